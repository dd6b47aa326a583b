// The summary printed on stdout after a run or a merge: one row per scorer (mean, coverage,
// errors, std, 95% CI, threshold, tokens), gates and the verdict, then the worst items.
import { safeText } from './terminal.mjs'
import { asText, itemError, itemReason, itemScore, thresholdText, usageCost } from '../report/items.mjs'

const fmt = (x, d = 3) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(d) : '-')
const int = (x) => (typeof x === 'number' ? x.toLocaleString('en-US') : '-')

/** One line of at most `n` characters (newlines and runs of spaces collapsed). */
export function clip(text, n) {
  // untrusted text (reasons, inputs, ids, errors): controls and bidi overrides shown as escapes
  const s = safeText(asText(text).replace(/\s+/g, ' ').trim())
  return s.length > n ? `${s.slice(0, n - 1)}…` : s
}

function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)))
  return rows.map((r) => r.map((cell, c) => String(cell).padEnd(widths[c])).join('  ').trimEnd()).join('\n')
}

/** Keeps, per scorer, the `k` lowest-scored items and the first `k` errored ones (bounded memory). */
export class WorstItems {
  constructor(ids, k = 5) {
    this.k = k
    this.low = Object.fromEntries(ids.map((id) => [id, []]))
    this.errored = Object.fromEntries(ids.map((id) => [id, []]))
  }
  add(item) {
    for (const id of Object.keys(this.low)) {
      const err = itemError(item, id)
      if (err) {
        const list = this.errored[id]
        list.push({ index: item.index, id: item.id, input: item.input, error: err })
        list.sort((a, b) => a.index - b.index)
        if (list.length > this.k) list.pop()
        continue
      }
      const score = itemScore(item, id)
      if (score === null) continue
      const list = this.low[id]
      list.push({ index: item.index, id: item.id, input: item.input, score, reason: itemReason(item, id) })
      list.sort((a, b) => a.score - b.score || a.index - b.index)
      if (list.length > this.k) list.pop()
    }
  }
}

/**
 * The summary text. `run`: EvalRunResult (no items); `scorers`: `[{ id, threshold? }]`;
 * `gates`: ids; `worst`: a WorstItems; `skipped`: the number of bad rows skipped.
 */
export function formatSummary({ run, scorers, gates = [], worst, skipped = 0, prices, title, shard = null }) {
  const out = []
  const total = run.summary ? run.summary.totalItems : 0
  const secs = typeof run.durationMs === 'number' ? `, ${(run.durationMs / 1000).toFixed(1)} s` : ''
  out.push(`${title || 'oxeval'}: ${total} items${skipped ? ` (+${skipped} bad rows skipped)` : ''}, trials ${run.trials ?? 1}${secs}${run.aborted ? ', INTERRUPTED (partial results)' : ''}`)
  out.push('')
  const head = ['scorer', 'mean', 'coverage', 'errors', 'std', '95% CI', 'threshold', 'tokens']
  const withCost = prices && (prices.in !== undefined || prices.out !== undefined)
  if (withCost) head.push('cost $')
  const rows = [head]
  const thr = new Map((run.thresholdResults || []).map((t) => [t.id, t]))
  const all = [...scorers.map((s) => ({ ...s, gate: false })), ...gates.map((id) => ({ id, gate: true }))]
  for (const s of all) {
    const st = (run.stats && run.stats[s.id]) || {}
    const cov = run.coverage && run.coverage[s.id]
    const usage = run.usage && run.usage[s.id]
    const t = thr.get(s.id)
    const gate = s.gate && (run.gateResults || []).find((g) => g.id === s.id)
    const verdict = s.gate ? (gate ? `gate ${gate.passed ? 'PASS' : 'FAIL'}` : 'gate') : t ? `${thresholdText(t.threshold)} ${t.passed ? 'PASS' : 'FAIL'}` : ''
    const mean = run.scores && typeof run.scores[s.id] === 'number' ? run.scores[s.id] : gate ? gate.score : (st.mean ?? null)
    const row = [
      s.id,
      fmt(mean),
      cov ? `${cov.scored}/${cov.total}` : '-',
      int(run.errors ? run.errors[s.id] ?? 0 : 0),
      fmt(st.std),
      st.ci95 ? `[${fmt(st.ci95[0])}, ${fmt(st.ci95[1])}]` : '-',
      verdict,
      int(usage ? usage.totalTokens : null),
    ]
    if (withCost) row.push(fmt(usageCost(usage, prices), 4))
    rows.push(row)
  }
  out.push(table(rows))
  out.push('')
  const failed = [...thr.values()].filter((t) => !t.passed).map((t) => t.id)
  const gatesFailed = (run.gateResults || []).filter((g) => !g.passed).map((g) => g.id)
  let verdictLine = `verdict: ${run.verdict || (gatesFailed.length ? 'failed' : failed.length ? 'scored' : 'passed')}`
  if (gatesFailed.length) verdictLine += ` (gate failed: ${gatesFailed.join(', ')})`
  if (failed.length) verdictLine += ` (below threshold: ${failed.join(', ')})`
  out.push(verdictLine)
  if (shard && failed.length) out.push(`(shard ${shard.index}/${shard.count}: thresholds apply to the merged run; oxeval merge decides them)`)
  if (worst) {
    for (const s of all) {
      const low = worst.low[s.id] || []
      const errs = worst.errored[s.id] || []
      if (!low.length && !errs.length) continue
      out.push('')
      out.push(`worst items, ${s.id}:`)
      for (const w of low) {
        out.push(`  #${w.index}${w.id !== undefined ? ` (${clip(w.id, 30)})` : ''}  ${fmt(w.score)}  ${clip(w.input, 60)}`)
        if (w.reason) out.push(`      ${clip(w.reason, 160)}`)
      }
      for (const e of errs) {
        out.push(`  #${e.index}${e.id !== undefined ? ` (${clip(e.id, 30)})` : ''}  ERROR ${e.error.code || e.error.name}: ${clip(e.error.message, 140)}`)
      }
    }
  }
  return `${safeText(out.join('\n'), { newlines: true })}\n`
}

/**
 * Exit status from a run result: 1 when a gate or a threshold failed, else 0. A shard's means
 * are not the run's: with `shard`, only gates (every item must pass) decide; `oxeval merge`
 * applies the thresholds to the whole run.
 */
export function verdictExitCode(run, { shard = null } = {}) {
  if ((run.gateResults || []).some((g) => !g.passed)) return 1
  if (!shard && (run.thresholdResults || []).some((t) => !t.passed)) return 1
  return 0
}
