// `oxeval history`, `oxeval runs show|export`, `oxeval store import|prune`: the results store's
// reads and maintenance (the queries are the core's; this file formats them). Every command
// takes --store PATH (default: as `oxeval run`'s) and `--format json` (the stable JSON of
// docs/store.md).
import { parseArgs } from 'node:util'
import { UsageError } from './errors.mjs'
import { findConfig } from './config.mjs'
import { ask, shownStore, storeSpec } from './store.mjs'
import { safeText } from './terminal.mjs'

export const HISTORY_HELP = `Usage: oxeval history [--scorer ID] [--branch B] [--tag T] [--last N] [--format text|json]
       oxeval history --item ID [--last N]
       oxeval history --flaky [--last N] [--scorer ID]
       oxeval runs show RUN | oxeval runs export RUN --out FILE.jsonl
       oxeval store import FILE.jsonl… [--tag T] | oxeval store prune --keep N | --older-than 30d

The runs kept in the results store (.oxeval/store.db under the config's folder, else the
working directory; --store PATH or $OXEVAL_STORE for another): newest first, with each
scorer's mean, 95% interval and n, and a trend line per scorer (oldest → newest).

  --item ID        one item's scores across runs
  --flaky          the items whose verdict (pass/fail at the scorer's threshold, else at half
                   its scale) changed most often across the last N runs (default 10) of the
                   newest run's dataset
  --last N         only the newest N runs (history default: 20)
  --format json    the documented JSON (docs/store.md) instead of the table

Exit status: 0, or 2 for a usage error or a store that cannot be read.
`

const COMMON = {
  store: { type: 'string' },
  format: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
}

function parse(argv, options) {
  const { values, positionals } = parseArgs({ args: argv, options: { ...COMMON, ...options }, allowPositionals: true, strict: true })
  if (values.format !== undefined && !['text', 'json'].includes(values.format)) throw new UsageError(`--format must be text or json; got "${values.format}"`)
  return { values, positionals }
}

function lastOf(values, fallback) {
  if (values.last === undefined) return fallback
  const n = Number(values.last)
  if (!/^\d+$/.test(values.last) || n < 1 || n > 1_000_000) throw new UsageError(`--last must be a whole number from 1 to 1000000; got "${values.last}"`)
  return n
}

function theStore(values) {
  let configPath = null
  try {
    configPath = findConfig(undefined)
  } catch {}
  return storeSpec(values, { configPath })
}

const BARS = '▁▂▃▄▅▆▇█'

/** A trend line of numbers (null: a gap). */
export function sparkline(xs) {
  const real = xs.filter((x) => typeof x === 'number' && Number.isFinite(x))
  if (!real.length) return ''
  const lo = Math.min(...real)
  const hi = Math.max(...real)
  return xs.map((x) => (typeof x !== 'number' || !Number.isFinite(x) ? ' ' : BARS[hi === lo ? 3 : Math.round(((x - lo) / (hi - lo)) * 7)])).join('')
}

const num = (x) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(3) : '  -  ')
const ci = (c) => (Array.isArray(c) ? `[${num(c[0])}, ${num(c[1])}]` : '')

function historyText(h, store) {
  if (!h.runs.length) return `no runs in ${shownStore(store)} yet (oxeval run records every run there)\n`
  const lines = []
  const ids = [...new Set(h.runs.flatMap((r) => r.scorers.map((s) => s.id)))]
  lines.push(`${h.runs.length} run${h.runs.length === 1 ? '' : 's'} in ${safeText(shownStore(store))}, newest first`)
  lines.push('')
  lines.push('trend (oldest → newest):')
  const oldestFirst = [...h.runs].reverse()
  const width = Math.max(28, ...ids.map((id) => safeText(id).length))
  for (const id of ids) {
    const means = oldestFirst.map((r) => (r.scorers.find((s) => s.id === id) || {}).mean ?? null)
    const latest = h.runs[0].scorers.find((s) => s.id === id)
    lines.push(`  ${safeText(id).padEnd(width)} ${sparkline(means)}  latest ${num(latest && latest.mean)}`)
  }
  lines.push('')
  for (const r of h.runs) {
    const where = ([r.branch, r.commit ? r.commit.slice(0, 8) : null].filter(Boolean).join('@') || '-') + (r.dirty ? ' (dirty)' : '')
    const tags = r.tags.length ? ` [${r.tags.map((t) => safeText(t)).join(', ')}]` : ''
    lines.push(`${r.id}  ${r.startedAt.replace('T', ' ').slice(0, 19)}  ${(r.shards && r.status !== 'finished' ? `${r.status} ${r.shards.finished}/${r.shards.total}` : r.status).padEnd(11)} ${String(r.outcome ?? '-').padEnd(7)} ${safeText(where)}${r.name ? ` "${safeText(r.name)}"` : ''}${tags}`)
    for (const s of r.scorers) lines.push(`    ${safeText(s.id).padEnd(28)} mean ${num(s.mean)} ${ci(s.ci95)}  n=${s.n}`)
  }
  return `${lines.join('\n')}\n`
}

function itemText(h) {
  if (!h.runs.length) return `no stored run has item ${safeText(h.item)}\n`
  const ids = [...new Set(h.runs.flatMap((r) => Object.keys(r.scores)))]
  const lines = [`item ${safeText(h.item)}: ${h.runs.length} runs, newest first`]
  for (const id of ids) lines.push(`  ${safeText(id).padEnd(28)} ${sparkline([...h.runs].reverse().map((r) => r.scores[id] ?? null))}`)
  for (const r of h.runs) lines.push(`${r.id}  ${r.startedAt.replace('T', ' ').slice(0, 19)}  ${Object.entries(r.scores).map(([k, v]) => `${safeText(k)}=${num(v)}`).join('  ')}`)
  return `${lines.join('\n')}\n`
}

function flakyText(f) {
  if (!f.items.length) return `no item changed its verdict across the last ${f.runs.length} runs of dataset ${f.dataset ?? '-'}\n`
  const lines = [`the items whose verdict changed most across the last ${f.runs.length} runs (oldest → newest) of dataset ${String(f.dataset).slice(0, 16)}:`]
  const mark = { pass: '✓', fail: '✗', error: '!' }
  for (const it of f.items) lines.push(`  ${safeText(it.item).padEnd(20)} ${safeText(it.scorer).padEnd(28)} ${it.flips} change${it.flips === 1 ? '' : 's'}  ${it.verdicts.map((v) => (v ? mark[v] : '·')).join('')}`)
  return `${lines.join('\n')}\n`
}

const out = (io, values, value, text) => io.stdout.write(values.format === 'json' ? `${JSON.stringify(value, null, 2)}\n` : text)

export async function history(argv, io = { stdout: process.stdout }) {
  const { values, positionals } = parse(argv, { scorer: { type: 'string' }, branch: { type: 'string' }, tag: { type: 'string' }, last: { type: 'string' }, item: { type: 'string' }, flaky: { type: 'boolean' } })
  if (values.help) return { help: true }
  if (positionals.length) throw new UsageError(`oxeval history takes no positional arguments; got "${positionals[0]}"`)
  const store = theStore(values)
  const q = { scorer: values.scorer, branch: values.branch, tag: values.tag }
  if (values.item !== undefined && values.flaky) throw new UsageError('--item and --flaky cannot be combined')
  if (values.item !== undefined) {
    const h = ask(store, { kind: 'item', item: values.item, ...q, last: lastOf(values, null) })
    out(io, values, h, itemText(h))
  } else if (values.flaky) {
    const f = ask(store, { kind: 'flaky', ...q, last: lastOf(values, 10) })
    out(io, values, f, flakyText(f))
  } else {
    const h = ask(store, { kind: 'history', ...q, last: lastOf(values, 20) })
    out(io, values, h, historyText(h, store))
  }
  return { code: 0 }
}

export async function runs(argv, io = { stdout: process.stdout }) {
  const { values, positionals } = parse(argv, { out: { type: 'string', short: 'o' } })
  if (values.help) return { help: true }
  const [sub, id, ...more] = positionals
  if (!['show', 'export'].includes(sub) || !id || more.length) throw new UsageError('usage: oxeval runs show RUN | oxeval runs export RUN --out FILE.jsonl')
  const store = theStore(values)
  if (sub === 'show') {
    const r = ask(store, { kind: 'show', run: id })
    const lines = [
      `run ${r.id}${r.name ? ` "${safeText(r.name)}"` : ''}: ${r.status}${r.shards ? ` (${r.shards.finished}/${r.shards.total} shards finished)` : ''}, outcome ${r.outcome ?? '-'}`,
      `  started ${r.startedAt}${r.endedAt ? `, ended ${r.endedAt}` : ''}; ${r.items} items`,
      `  git ${safeText(r.branch ?? '-')} ${r.commit ?? '-'}${r.dirty ? ' (dirty)' : ''}; tags ${r.tags.map((t) => safeText(t)).join(', ') || '-'}`,
      `  dataset ${r.datasetFingerprint ?? '-'}; config ${r.configFingerprint ?? '-'}; oxeval ${r.version ?? '-'}`,
      ...r.scorers.map((s) => `  ${safeText(s.id).padEnd(28)} mean ${num(s.mean)} ${ci(s.ci95)}  n=${s.n}  judge ${safeText(String((r.judgeModels || {})[s.id] ?? '-'))}`),
      ...((r.outcomeDetail && r.outcomeDetail.reasons) || []).map((x) => `  reason: ${safeText(typeof x === 'string' ? x : x.message || JSON.stringify(x))}`),
    ]
    out(io, values, r, `${lines.join('\n')}\n`)
    return { code: 0 }
  }
  if (!values.out) throw new UsageError('oxeval runs export RUN needs --out FILE.jsonl')
  const r = ask(store, { kind: 'export', run: id, out: values.out })
  out(io, values, r, `wrote ${safeText(values.out)}\n`)
  return { code: 0 }
}

export async function storeCommand(argv, io = { stdout: process.stdout }) {
  const { values, positionals } = parse(argv, { keep: { type: 'string' }, 'older-than': { type: 'string' }, tag: { type: 'string', multiple: true } })
  if (values.help) return { help: true }
  const [sub, ...files] = positionals
  const store = theStore(values)
  if (sub === 'import') {
    if (!files.length) throw new UsageError('usage: oxeval store import FILE.jsonl…')
    const r = ask(store, { kind: 'import', files, tags: values.tag || [] })
    out(io, values, r, r.imported.map((i) => `${safeText(i.file)}: ${i.already ? `already in the store as run ${i.runId}` : `run ${i.runId} (${i.items} items)`}${i.replaced ? `; ${i.replaced} lone surrogate escape${i.replaced === 1 ? '' : 's'} (\\ud800…) imported as U+FFFD` : ''}`).join('\n') + '\n')
    return { code: 0 }
  }
  if (sub === 'prune') {
    if (files.length) throw new UsageError('oxeval store prune takes no files')
    let keep
    if (values.keep !== undefined) {
      keep = Number(values.keep)
      if (!/^\d+$/.test(values.keep)) throw new UsageError(`--keep must be a whole number; got "${values.keep}"`)
    }
    if (keep === undefined && values['older-than'] === undefined) throw new UsageError('oxeval store prune needs --keep N or --older-than DURATION (e.g. 30d)')
    const r = ask(store, { kind: 'prune', keep, olderThan: values['older-than'] })
    out(io, values, r, `removed ${r.removed} run${r.removed === 1 ? '' : 's'} from ${safeText(shownStore(store))}\n`)
    return { code: 0 }
  }
  throw new UsageError('usage: oxeval store import FILE.jsonl… | oxeval store prune --keep N | --older-than 30d')
}
