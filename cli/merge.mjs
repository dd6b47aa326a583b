// `oxeval merge out-*.jsonl`: combine the --out files of sharded runs into one result. The
// aggregates come from summarizeItems over the items in index order, so they equal an
// unsharded run's exactly. Files must come from the same scorers, gates and trials; an item
// index present twice is an error.
import { createRequire } from 'node:module'
import { parseArgs } from 'node:util'
import { UsageError } from './errors.mjs'
import { JsonlWriter, checkDistinct, checkWritable, encodeItem, promptMode, readResults, writeErrorText } from './results.mjs'
import { sayer } from './terminal.mjs'
import { WorstItems, formatSummary, verdictExitCode } from './summary.mjs'
import { slimItem, writeHtmlReport } from '../report/html.mjs'
import { writeJunitReport } from '../report/junit.mjs'

const require = createRequire(import.meta.url)

export const MERGE_OPTIONS = {
  out: { type: 'string', short: 'o' },
  'out-prompts': { type: 'string' },
  html: { type: 'string' },
  junit: { type: 'string' },
  'price-in': { type: 'string' },
  'price-out': { type: 'string' },
  worst: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
}

export const MERGE_HELP = `Usage: oxeval merge FILE… [--out merged.jsonl] [--html report.html] [--junit report.xml]

Combines the --out files of sharded runs (oxeval run --shard K/N --out out-K.jsonl) into one
result: the same means, stats and coverage as one unsharded run. The files must come from the
same scorers (and thresholds), gates and trials; an item index found twice is an error.

  -o, --out FILE       the merged results (JSONL: header, items in index order, summary); held
                       with FILE.lock while written, like oxeval run --out
      --out-prompts M  once (default: each prompt once, judge executions point at it with
                       "promptRef") or none (no prompts: a slim file)
      --html FILE      HTML report of the merged result
      --junit FILE     JUnit XML of the merged result
      --price-in USD   price per 1M input tokens (cost in the summary and the report)
      --price-out USD  price per 1M output tokens
      --worst N        worst items listed per scorer (default 5)

The outputs and the input files must all be different files. An output that cannot be written
(disk full) is reported on stderr; the others are still written and the summary printed.

Exit status: 0 passed, 1 a threshold or gate failed, 2 usage or data error (or an output could not
be written).
`

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b)

export async function merge(argv, io = { stdout: process.stdout, stderr: process.stderr }) {
  const { values, positionals } = parseArgs({ args: argv, options: MERGE_OPTIONS, allowPositionals: true, strict: true })
  if (values.help) return { help: true }
  if (positionals.length === 0) throw new UsageError('merge needs at least one results file (oxeval run --out FILE)')
  const say = sayer(io.stderr)
  const outPrompts = promptMode(values['out-prompts'])
  checkDistinct([...positionals.map((f) => ['input', f]), ['--out', values.out], ['--html', values.html], ['--junit', values.junit]])
  checkWritable('--html', values.html)
  checkWritable('--junit', values.junit)
  checkWritable('--out', values.out)
  const files = positionals.map((f) => ({ file: f, ...readResults(f) }))
  const first = files[0]
  for (const f of files.slice(1)) {
    for (const key of ['scorers', 'gates', 'trials']) {
      if (!same(f.header[key], first.header[key])) {
        throw new UsageError(`${f.file}: ${key} differ from ${first.file} (${JSON.stringify(f.header[key])} vs ${JSON.stringify(first.header[key])}); only results of the same run can be merged`)
      }
    }
    if (!same(f.header.model, first.header.model)) say(`oxeval: warning: ${f.file} was judged by another model (${JSON.stringify(f.header.model)} vs ${JSON.stringify(first.header.model)})`)
  }
  const seen = new Map()
  const items = []
  for (const f of files) {
    if (!f.summary) say(`oxeval: warning: ${f.file} has no summary line (the run did not finish writing)`)
    else if (f.summary.aborted) say(`oxeval: warning: ${f.file} is an interrupted run (partial results)`)
    for (const it of f.items) {
      if (!Number.isInteger(it.index)) throw new UsageError(`${f.file}: an item has no index`)
      if (seen.has(it.index)) throw new UsageError(`item index ${it.index} appears twice (${seen.get(it.index)} and ${f.file}); were shards merged twice?`)
      seen.set(it.index, f.file)
      items.push(it)
    }
  }
  items.sort((a, b) => a.index - b.index)
  const shards = files.map((f) => f.header.shard).filter(Boolean)
  if (shards.length === files.length && shards.length > 0) {
    const count = shards[0].count
    const have = new Set(shards.map((s) => s.index))
    const missing = Array.from({ length: count }, (_, i) => i + 1).filter((k) => !have.has(k))
    if (shards.some((s) => s.count !== count)) say('oxeval: warning: the files come from different shard counts')
    else if (missing.length) say(`oxeval: warning: shard${missing.length > 1 ? 's' : ''} ${missing.map((k) => `${k}/${count}`).join(', ')} missing`)
  }

  const { summarizeItems } = require('../index.js')
  if (typeof summarizeItems !== 'function') throw new Error('this build of oxeval has no summarizeItems')
  const scorers = first.header.scorers
  const gates = first.header.gates || []
  const result = summarizeItems({ items, scorers, gates, trials: first.header.trials })
  const { items: _items, ...summary } = result
  summary.durationMs = Math.max(0, ...files.map((f) => (f.summary && f.summary.durationMs) || 0))
  if (files.some((f) => !f.summary || f.summary.aborted)) summary.aborted = true
  const skipped = files.flatMap((f) => (f.summary && f.summary.skipped) || []).sort((a, b) => a.index - b.index)
  if (skipped.length) summary.skipped = skipped

  const header = { ...first.header, shard: null, totalItems: items.length, merged: files.length, startedAt: undefined }
  delete header.startedAt
  const prices = values['price-in'] !== undefined || values['price-out'] !== undefined
    ? { in: values['price-in'] !== undefined ? Number(values['price-in']) : undefined, out: values['price-out'] !== undefined ? Number(values['price-out']) : undefined }
    : undefined
  if (prices && [prices.in, prices.out].some((p) => p !== undefined && !(Number.isFinite(p) && p >= 0))) throw new UsageError('--price-in/--price-out must be non-negative numbers')
  // one output that cannot be written (disk full) costs neither the others nor the summary
  let writeFailed = false
  if (values.out) {
    let w = null
    try {
      w = new JsonlWriter(values.out, '--out', { onReplace: (why, rec) => say(`oxeval: --out: item ${rec && rec.index}: ${why}; written without it`) })
    } catch (e) {
      writeFailed = true
      say(`oxeval: ${e.message}`)
    }
    if (w) {
      await w.write({ ...header, prompts: outPrompts })
      for (const it of items) if (!(await w.write({ type: 'item', ...encodeItem(it, outPrompts) }))) break
      await w.write({ type: 'summary', ...summary })
      const e = await w.close()
      if (e) {
        writeFailed = true
        say(`oxeval: ${writeErrorText('--out', values.out, e)}`)
      }
    }
  }
  const report = { header, summary, items: values.html || values.junit ? items.map(slimItem) : [], prices }
  for (const [flag, file, write] of [['--html', values.html, writeHtmlReport], ['--junit', values.junit, writeJunitReport]]) {
    if (!file) continue
    try {
      await write(file, report)
    } catch (e) {
      writeFailed = true
      say(`oxeval: ${writeErrorText(flag, file, e)}`)
    }
  }
  const k = values.worst !== undefined ? Number(values.worst) : 5
  const worst = new WorstItems([...scorers.map((s) => s.id), ...gates], Number.isInteger(k) && k >= 0 ? k : 5)
  for (const it of items) worst.add(it)
  io.stdout.write(formatSummary({ run: summary, scorers, gates, worst, skipped: skipped.length, prices, title: `oxeval merge (${files.length} files)` }))
  if (writeFailed) return { code: 2 }
  return { code: verdictExitCode(summary) }
}
