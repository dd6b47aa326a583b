// The summary printed on stdout after a run or a merge: one row per scorer (mean, coverage,
// errors, std, 95% CI, threshold, tokens), gates and the verdict, then the worst items.
import { safeText } from './terminal.mjs'
import { batchUsageText } from '../report/batch-usage.mjs'
import { agreementText, asText, badness, categoryOf, itemError, itemPasses, itemReason, itemScore, meanOf, outcomeOf, thresholdText, usageCost } from '../report/items.mjs'

const fmt = (x, d = 3) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(d) : '-')
const int = (x) => (typeof x === 'number' ? x.toLocaleString('en-US') : '-')

/** One line of at most `n` characters (newlines and runs of spaces collapsed). */
export function clip(text, n) {
  // untrusted text (reasons, inputs, ids, errors): controls and bidi overrides shown as escapes
  const s = safeText(asText(text).replace(/\s+/g, ' ').trim())
  return s.length > n ? `${s.slice(0, n - 1)}…` : s
}

function table(rows) {
  const widths = rows[0].map((_, c) => rows.reduce((m, r) => Math.max(m, String(r[c]).length), 0))
  return rows.map((r) => r.map((cell, c) => String(cell).padEnd(widths[c])).join('  ').trimEnd()).join('\n')
}

/**
 * Keeps, per scorer, the `k` worst-scored items (in the scorer's direction: the highest where
 * lower is better) and the first `k` errored ones, in bounded memory. Passing items (a met
 * threshold, a gate's 1, else the best score) are never kept. `scorers`: ids or
 * `[{ id, threshold?, gate?, direction?, scale? }]` (report/items.mjs `scorerViews`).
 */
export class WorstItems {
  constructor(scorers, k = 5) {
    this.k = k
    this.views = Object.fromEntries(scorers.map((s) => (typeof s === 'string' ? [s, { id: s }] : [s.id, s])))
    this.low = Object.fromEntries(Object.keys(this.views).map((id) => [id, []]))
    this.errored = Object.fromEntries(Object.keys(this.views).map((id) => [id, []]))
  }
  add(item) {
    for (const id of Object.keys(this.low)) {
      const view = this.views[id]
      const score = itemScore(item, id)
      const err = itemError(item, id)
      if (err && score === null) {
        const list = this.errored[id]
        list.push({ index: item.index, id: item.id, input: item.input, error: err })
        list.sort((a, b) => a.index - b.index)
        if (list.length > this.k) list.pop()
        continue
      }
      if (score === null || itemPasses(score, view)) continue
      const list = this.low[id]
      list.push({ index: item.index, id: item.id, input: item.input, score, reason: itemReason(item, id) })
      list.sort((a, b) => badness(b.score, view.direction) - badness(a.score, view.direction) || a.index - b.index)
      if (list.length > this.k) list.pop()
    }
  }
}

/** The outcome lines: the word (Mastra's verdict where gates or thresholds were set), what it means, and why. */
export function outcomeLines(run, { shard = null } = {}) {
  const outcome = outcomeOf(run)
  const word = run.verdict !== undefined ? `verdict: ${run.verdict}` : `outcome: ${outcome.status}`
  const lines = [`${word} (${outcome.meaning ?? outcome.status})`]
  for (const r of outcome.reasons) lines.push(`  ✗ ${r.message}`)
  // --max-cost: what the judge calls were billed against the budget
  if (run.budget) lines.push(`budget: $${run.budget.spent.toFixed(4)} spent of $${run.budget.maxCost} (--max-cost)${run.budget.notStarted ? `, ${run.budget.notStarted} item(s) not started` : ''}`)
  if (shard) lines.push(`(shard ${shard.index}/${shard.count}: means, thresholds and coverage apply to the merged run; oxeval merge decides them)`)
  return lines
}

/**
 * The summary text. `run`: EvalRunResult (no items); `scorers`: `[{ id, threshold? }]`;
 * `gates`: ids; `worst`: a WorstItems; `skipped`: the number of bad rows skipped.
 */
export function formatSummary({ run, scorers, gates = [], worst, skipped = 0, prices, title, shard = null }) {
  const out = []
  const total = run.summary ? run.summary.totalItems : 0
  const secs = typeof run.durationMs === 'number' ? `, ${(run.durationMs / 1000).toFixed(1)} s` : ''
  out.push(`${title || 'oxeval'}: ${total} items${skipped ? ` (${skipped} of them unreadable rows)` : ''}, trials ${run.trials ?? 1}${secs}${run.aborted ? ', INTERRUPTED (partial results)' : ''}`)
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
    const m = meanOf(run, s.id)
    const mean = typeof m === 'number' ? m : gate ? gate.score : (st.mean ?? null)
    // the categorized form (scorers: { agent, trajectory }): the category beside the id
    const category = categoryOf(run, s.id)
    const row = [
      category ? `${s.id} (${category})` : s.id,
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
  const batched = batchUsageText(run.usage)
  if (batched) out.push(batched)
  const turns = turnTable(run)
  if (turns) out.push('', 'per turn (turns items: each assertion judged its turn alone):', turns)
  const ns = run.summary && run.summary.notScorable
  if (ns && Object.keys(ns).length) {
    // Mastra 1.71's notScorable: out of the mean and of coverage's count
    out.push(`not scorable (left out of mean and coverage): ${Object.entries(ns).map(([id, n]) => `${id} ${n}`).join(', ')}`)
  }
  const agreement = Object.entries(run.agreement || {})
  if (agreement.length > 0) {
    // items' `expected` labels: how far each judge agrees with them
    out.push('')
    out.push('agreement with your labels:')
    for (const [id, a] of agreement) out.push(`  ${agreementText(id, a)}`)
  }
  out.push('')
  for (const line of outcomeLines(run, { shard })) out.push(line)
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

/** The per-turn results (`turnResults`) as a table: turn, assertion, kind, mean, coverage, verdict; '' without turns. */
function turnTable(run) {
  const rows = [['turn', 'assertion', 'kind', 'mean', 'coverage', 'result']]
  for (const t of run.turnResults || []) {
    const gates = new Map((t.gateResults || []).map((g) => [g.id, g]))
    const ths = new Map((t.thresholdResults || []).map((x) => [x.id, x]))
    for (const id of [...gates.keys(), ...Object.keys(t.scores || {})]) {
      const g = gates.get(id)
      const th = ths.get(id)
      const cov = t.coverage && t.coverage[id]
      rows.push([
        String(t.index),
        id,
        g ? 'gate' : th ? thresholdText(th.threshold) : 'score',
        fmt(g ? g.score : t.scores[id]),
        cov ? `${cov.scored}/${cov.total}` : '-',
        g ? (g.passed ? 'PASS' : 'FAIL') : th ? (th.passed ? 'PASS' : 'FAIL') : '',
      ])
    }
  }
  return rows.length > 1 ? table(rows) : ''
}

/**
 * Exit status from a run result: 0 when the run's outcome (the core's one decision) passed,
 * else 1. A shard's outcome decides only what a part can (errors, replay misses, gates);
 * `oxeval merge` decides the rest for the whole run.
 */
export function verdictExitCode(run) {
  return outcomeOf(run).passed ? 0 : 1
}
