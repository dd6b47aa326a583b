// `oxeval merge out-*.jsonl`: combine the --out files of sharded runs into one result. The
// aggregates come from summarizeItems over the items in index order, so they equal an
// unsharded run's exactly. Files must come from the same scorers, gates and trials, and of one
// dataset (the header's sha-256 fingerprint); every shard 1..N exactly once, each finished (a
// summary line) and not interrupted; an item index present twice is an error. Anything else is
// refused (exit 2) with one line per problem, naming the file. The files are read as streams
// of lines (no size limit from V8's string length).
import { createRequire } from 'node:module'
import { parseArgs } from 'node:util'
import { UsageError } from './errors.mjs'
import { JsonlWriter, checkDistinct, checkWritable, encodeItem, promptMode, restoreItem, writeErrorText, writeReports } from './results.mjs'
import { fileChunks, lines } from './data.mjs'
import { sayer } from './terminal.mjs'
import { WorstItems, formatSummary, verdictExitCode } from './summary.mjs'
import { scorerViews } from '../report/items.mjs'
import { slimItem } from '../report/html.mjs'
import { STORE_OPTIONS, startCliRecording, storeFailureText, storeSpec } from './store.mjs'

const require = createRequire(import.meta.url)

export const MERGE_OPTIONS = {
  out: { type: 'string', short: 'o' },
  'out-prompts': { type: 'string' },
  html: { type: 'string' },
  junit: { type: 'string' },
  'price-in': { type: 'string' },
  'price-out': { type: 'string' },
  worst: { type: 'string' },
  ...STORE_OPTIONS,
  help: { type: 'boolean', short: 'h' },
}

export const MERGE_HELP = `Usage: oxeval merge FILE… [--out merged.jsonl] [--html report.html] [--junit report.xml]

Combines the --out files of sharded runs (oxeval run --shard K/N --out out-K.jsonl) into one
result: the same means, stats and coverage as one unsharded run. The files must come from the
same scorers (and thresholds), gates and trials, and from the same --data file (each header
records its sha-256 and row count). Refused (exit 2, each problem named with its file): a shard
missing from 1..N or given twice, files of different shard counts or datasets, a file without
a summary line (unfinished) or whose summary says aborted (interrupted), a file without a
dataset fingerprint (written by an older oxeval), an item index found twice. One unsharded
file (oxeval run --out without --shard) merges on its own. Files of any size are read as streams.

  -o, --out FILE       the merged results (JSONL: header, items in index order, summary); held
                       with FILE.lock while written, like oxeval run --out
      --out-prompts M  once (default: each prompt once, judge executions point at it with
                       "promptRef") or none (no prompts: a slim file)
      --html FILE      HTML report of the merged result
      --junit FILE     JUnit XML of the merged result
      --price-in USD   price per 1M input tokens (cost in the summary and the report)
      --price-out USD  price per 1M output tokens
      --worst N        worst items listed per scorer (default 5)
      --store PATH     record the merged run in this results store (default: .oxeval/store.db in
                       the working directory, or $OXEVAL_STORE); --no-store: do not; --tag T,
                       --name N label it (oxeval history)

The outputs and the input files must all be different files. An output that cannot be written
(disk full) is reported on stderr; the others are still written and the summary printed.

Exit status: 0 passed, 1 a threshold or gate failed, 2 usage or data error (or an output could not
be written).
`

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b)

/**
 * Reads a results file line by line (streamed): `{ header, items, summary }` (summary null when
 * the run did not finish writing). Item records get their prompts back (restoreItem).
 */
export async function readResultsFile(file) {
  let header = null
  let summary = null
  const items = []
  try {
    for await (const { line, text, bytes } of lines(fileChunks(file))) {
      if (text === null) throw new UsageError(`${file}:${line}: a record of ${Math.floor(bytes / 1048576)} MiB or more; too large to read`)
      if (text.trim() === '') continue
      let rec
      try {
        rec = JSON.parse(text)
      } catch (e) {
        throw new UsageError(`${file}:${line}: invalid JSON (${e.message})`)
      }
      if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) throw new UsageError(`${file}:${line}: not a results record`)
      if (header === null) {
        if (rec.type !== 'run') throw new UsageError(`${file}: line ${line} is not an oxeval results header ({ "type": "run" }); is this an \`oxeval run --out\` file?`)
        header = rec
        continue
      }
      const { type, ...rest } = rec
      if (summary !== null) throw new UsageError(`${file}:${line}: a record after the summary line (two runs in one file?)`)
      if (type === 'item') items.push(restoreItem(rest))
      else if (type === 'summary') summary = rest
      else throw new UsageError(`${file}:${line}: unknown record type ${JSON.stringify(type)}`)
    }
  } catch (e) {
    if (e instanceof UsageError && e.message.startsWith('cannot read the file')) throw new UsageError(`${file}: ${e.message}`)
    throw e
  }
  if (!header) throw new UsageError(`${file}: empty results file`)
  return { header, items, summary }
}

const shardText = (s) => `${s.index}/${s.count}`
const fingerprintText = (d) => `sha-256 ${d.sha256.slice(0, 12)}…, ${d.rows} rows`

/** Everything that makes `files` not one whole run: one line per problem, each naming its file. */
function mergeProblems(files) {
  const problems = []
  const first = files[0]
  const hasFingerprint = (f) => f.header.dataset && typeof f.header.dataset.sha256 === 'string'
  for (const f of files) {
    if (!hasFingerprint(f)) problems.push(`${f.file}: no dataset fingerprint in its header (written by an older oxeval); rerun it with this version`)
    if (!f.summary) problems.push(`${f.file}: unfinished: no summary line (the run was killed, or is still writing)`)
    else if (f.summary.aborted) problems.push(`${f.file}: interrupted: its summary says aborted (partial results); rerun it (with --cache it resumes without paying again)`)
    else if (Number.isInteger(f.header.totalItems) && f.items.length !== f.header.totalItems) problems.push(`${f.file}: ${f.items.length} item records, but its header announces ${f.header.totalItems}`)
  }
  for (const f of files.slice(1)) {
    for (const key of ['scorers', 'gates', 'trials']) {
      if (!same(f.header[key], first.header[key])) {
        problems.push(`${f.file}: ${key} differ from ${first.file} (${JSON.stringify(f.header[key])} vs ${JSON.stringify(first.header[key])}); only results of the same run can be merged`)
      }
    }
    if (hasFingerprint(f) && hasFingerprint(first) && (f.header.dataset.sha256 !== first.header.dataset.sha256 || f.header.dataset.rows !== first.header.dataset.rows)) {
      problems.push(`${f.file}: another dataset than ${first.file} (${fingerprintText(f.header.dataset)} vs ${fingerprintText(first.header.dataset)}); shards must come from the same --data file`)
    }
  }
  const sharded = files.filter((f) => f.header.shard)
  if (files.length > 1) {
    for (const f of files) if (!f.header.shard) problems.push(`${f.file}: not a shard (a run without --shard is a whole run); it cannot be merged with other files`)
  }
  if (sharded.length > 0) {
    const count = sharded[0].header.shard.count
    const odd = sharded.filter((f) => f.header.shard.count !== count)
    for (const f of odd) problems.push(`${f.file}: shard ${shardText(f.header.shard)}, but ${sharded[0].file} is shard ${shardText(sharded[0].header.shard)}: different shard counts`)
    if (odd.length === 0) {
      const given = new Map()
      for (const f of sharded) {
        const k = f.header.shard.index
        if (given.has(k)) problems.push(`${f.file}: shard ${shardText(f.header.shard)} given twice (also ${given.get(k)})`)
        else given.set(k, f.file)
      }
      const missing = Array.from({ length: count }, (_, i) => i + 1).filter((k) => !given.has(k))
      if (missing.length) {
        const list = sharded.map((f) => `${f.file} (${shardText(f.header.shard)})`).join(', ')
        problems.push(`shard${missing.length > 1 ? 's' : ''} ${missing.map((k) => `${k}/${count}`).join(', ')} missing (given: ${list})`)
      }
    }
  }
  return problems
}

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
  const files = []
  for (const f of positionals) files.push({ file: f, ...(await readResultsFile(f)) })
  const first = files[0]
  const problems = mergeProblems(files)
  const seen = new Map()
  const items = []
  let duplicate = false
  for (const f of files) {
    for (const it of f.items) {
      if (!Number.isInteger(it.index)) {
        problems.push(`${f.file}: an item has no index`)
        break
      }
      if (seen.has(it.index)) {
        if (!duplicate) problems.push(`item index ${it.index} appears twice (${seen.get(it.index)} and ${f.file}); were shards merged twice?`)
        duplicate = true
        continue
      }
      seen.set(it.index, f.file)
      items.push(it)
    }
  }
  if (problems.length === 1) throw new UsageError(`cannot merge: ${problems[0]}`)
  if (problems.length > 1) throw new UsageError(`cannot merge (${problems.length} problems):\n  ${problems.join('\n  ')}`)
  for (const f of files.slice(1)) {
    if (!same(f.header.model, first.header.model)) say(`oxeval: warning: ${f.file} was judged by another model (${JSON.stringify(f.header.model)} vs ${JSON.stringify(first.header.model)})`)
  }
  items.sort((a, b) => a.index - b.index)

  const { summarizeItems } = require('../index.js')
  if (typeof summarizeItems !== 'function') throw new Error('this build of oxeval has no summarizeItems')
  const scorers = first.header.scorers
  const gates = first.header.gates || []
  // the whole run's outcome, under the policy and scorer facts the shards were run with
  const info = first.header.scorerInfo || {}
  const policy = first.header.policy || {}
  const result = summarizeItems({
    items,
    scorers: scorers.map((s) => ({ ...s, ...info[s.id] })),
    gates,
    trials: first.header.trials,
    maxErrors: policy.maxErrors ?? 0,
    minCoverage: policy.minCoverage ?? undefined,
  })
  const { items: _items, ...summary } = result
  summary.durationMs = files.reduce((m, f) => Math.max(m, (f.summary && f.summary.durationMs) || 0), 0)
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
  // the merged run is recorded in the results store (--store, $OXEVAL_STORE, .oxeval/store.db; --no-store)
  const store = storeSpec(values)
  if (store) {
    const model = first.header.model && (first.header.model.id || first.header.model)
    const rec = startCliRecording(store, { ...header, startedAt: first.header.startedAt }, values, { judgeModels: Object.fromEntries([...scorers.map((s) => s.id), ...gates.map((g) => g.id || g)].map((id) => [id, model || null])) })
    const done = rec.error ? rec : (items.forEach((it) => rec.item(it)), rec.finish(summary))
    if (done.error) {
      writeFailed = true
      say(storeFailureText(store, done.error))
    }
  }
  const report = { header, summary, items: values.html || values.junit ? items.map((it) => slimItem(it)) : [], prices }
  if (await writeReports({ html: values.html, junit: values.junit }, report, say)) writeFailed = true
  const k = values.worst !== undefined ? Number(values.worst) : 5
  const worst = new WorstItems(scorerViews(scorers, gates, summary), Number.isInteger(k) && k >= 0 ? k : 5)
  for (const it of items) worst.add(it)
  io.stdout.write(formatSummary({ run: summary, scorers, gates, worst, skipped: skipped.length, prices, title: `oxeval merge (${files.length} files)` }))
  if (writeFailed) return { code: 2 }
  return { code: verdictExitCode(summary) }
}
