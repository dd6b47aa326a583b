// Reading EvalItemResult records (runEvals' per-item results), shared by the CLI, the HTML
// report and the JUnit report.

/** The item's score for one scorer: the trials' mean (trials > 1) or the result's score; null if none. */
export function itemScore(item, id) {
  const t = item.trials && item.trials[id]
  if (t) return typeof t.mean === 'number' ? t.mean : null
  const r = item.results && item.results[id]
  return r && typeof r.score === 'number' ? r.score : null
}

/** The item's `notScorable` for one scorer (`{ step, reason? }`: left out of means and coverage), else null. */
export function itemNotScorable(item, id) {
  const r = item.results && item.results[id]
  return r && r.notScorable && typeof r.notScorable === 'object' ? r.notScorable : null
}

/** The item's error for one scorer (or its target error, which stops every scorer). */
export function itemError(item, id) {
  return (item.errors && item.errors[id]) || item.targetError || null
}

/** The reason text of one scorer's result ('' if none). */
export function itemReason(item, id) {
  const r = item.results && item.results[id]
  return r && typeof r.reason === 'string' ? r.reason : ''
}

/** Whether a score meets a threshold (`number` = minimum, or `{ min?, max? }`). */
export function meetsThreshold(score, threshold) {
  if (threshold === undefined || threshold === null) return true
  if (typeof score !== 'number') return false
  const t = typeof threshold === 'number' ? { min: threshold } : threshold
  return (t.min === undefined || score >= t.min) && (t.max === undefined || score <= t.max)
}

/** `>= 0.7`, `<= 0.3`, `0.2..0.8`. */
export function thresholdText(threshold) {
  if (threshold === undefined || threshold === null) return ''
  if (typeof threshold === 'number') return `>= ${threshold}`
  if (threshold.min !== undefined && threshold.max !== undefined) return `${threshold.min}..${threshold.max}`
  if (threshold.min !== undefined) return `>= ${threshold.min}`
  if (threshold.max !== undefined) return `<= ${threshold.max}`
  return ''
}

/**
 * Cost in dollars of a usage record at `prices` (`{ in, out }` per 1M tokens), or null without
 * prices. Tokens of batched calls (`batchInputTokens`, `batchOutputTokens`) count at the batch
 * price (half).
 */
export function usageCost(usage, prices) {
  if (!usage || !prices || (prices.in === undefined && prices.out === undefined)) return null
  const input = (usage.inputTokens || 0) - 0.5 * (usage.batchInputTokens || 0)
  const output = (usage.outputTokens || 0) - 0.5 * (usage.batchOutputTokens || 0)
  return (input * (prices.in || 0) + output * (prices.out || 0)) / 1e6
}

/** Text for a possibly non-string value (inputs and outputs may be objects or message arrays). */
export function asText(v) {
  if (v === undefined) return ''
  if (typeof v === 'string') return v
  try {
    return JSON.stringify(v)
  } catch {
    return String(v)
  }
}

/**
 * The run's outcome: the core's one decision (`runEvals`/`summarizeItems` → `outcome`:
 * `{ status: 'passed' | 'scored' | 'failed', passed, meaning, reasons: [{ kind, scorer?, message }] }`).
 * Every surface (exit status, summary line, HTML badge, JUnit, Vitest) reads it from here. A
 * result without one (written by an older oxeval) is never taken as a pass.
 */
export function outcomeOf(summary) {
  const o = summary && summary.outcome
  if (o && typeof o === 'object' && typeof o.status === 'string' && Array.isArray(o.reasons)) return o
  return {
    status: 'failed',
    passed: false,
    meaning: 'failed: this result carries no outcome',
    reasons: [{ kind: 'unknown', message: 'this result has no outcome (written by an older oxeval?), so it is not taken as a pass' }],
  }
}

/** `'higher'` or `'lower'`: which way the scorer's score is better (from the run's `scorerInfo`). */
export function directionOf(summary, id) {
  const d = summary && summary.scorerInfo && summary.scorerInfo[id] && summary.scorerInfo[id].direction
  return d === 'lower' ? 'lower' : 'higher'
}

/** The top of the scorer's score range (`scale`; 1 by default). */
export function scaleOf(summary, id) {
  const s = summary && summary.scorerInfo && summary.scorerInfo[id] && summary.scorerInfo[id].scale
  return typeof s === 'number' && s > 0 ? s : 1
}

/** How bad a score is (larger is worse), for sorting "worst items" in the scorer's direction. */
export function badness(score, direction) {
  return direction === 'lower' ? score : -score
}

/**
 * Whether one item's score is a pass for the scorer: a gate needs 1; a threshold is met; with
 * neither, only the best score (`scale`, or 0 where lower is better) is. "Worst items" never
 * lists passing items.
 */
export function itemPasses(score, { threshold, direction = 'higher', scale = 1, gate = false } = {}) {
  if (typeof score !== 'number') return false
  if (gate) return score >= 1
  if (threshold !== undefined && threshold !== null) return meetsThreshold(score, threshold)
  return direction === 'lower' ? score <= 0 : score >= scale
}

/** Scorer descriptions for worst-item lists: `[{ id, threshold?, gate, direction, scale }]` from a run's header lists and summary. */
export function scorerViews(scorers, gates, summary) {
  return [
    ...scorers.map((s) => ({ id: s.id, threshold: s.threshold, gate: false, direction: s.direction ?? directionOf(summary, s.id), scale: s.scale ?? scaleOf(summary, s.id) })),
    ...gates.map((g) => {
      const id = typeof g === 'string' ? g : g.id
      return { id, gate: true, direction: 'higher', scale: 1 }
    }),
  ]
}

/** A number for an agreement line: 2 decimals, or `n/a` (with no NaN ever shown). */
const stat = (x) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(2) : 'n/a')

/**
 * One scorer's agreement with the items' labels (`result.agreement[id]`) in one line:
 * κ at the threshold with the confusion counts, MAE, Spearman's ρ, and the reason of any
 * undefined statistic.
 */
export function agreementText(id, a) {
  const c = a.confusion
  const parts = [
    `κ ${stat(a.kappa)} at ${a.threshold} (judge/label pass/pass ${c.bothPass}, fail/fail ${c.bothFail}, pass/fail ${c.judgePassLabelFail}, fail/pass ${c.judgeFailLabelPass})`,
    `MAE ${stat(a.mae)}`,
    `ρ ${stat(a.spearman)}`,
    `${a.scored} of ${a.labeled} labeled items scored`,
  ]
  const why = [a.kappaReason && `κ: ${a.kappaReason}`, a.spearmanReason && a.numeric > 0 && `ρ: ${a.spearmanReason}`].filter(Boolean)
  return `${id}: ${parts.join(', ')}${why.length ? ` (${why.join('; ')})` : ''}`
}

// ---- runEvals for agents: categorized scores and per-turn results ----

/** The categories of Mastra's AgentScorerConfig, as `result.scores` keys them. */
export const CATEGORIES = ['agent', 'trajectory']

/**
 * A scorer's mean in a run's `scores`: flat (`scores[id]`) or in the categorized form
 * (`scores.agent[id]`, `scores.trajectory[id]`); undefined when it has none there (a gate).
 */
export function meanOf(summary, id) {
  const scores = (summary && summary.scores) || {}
  if (Object.hasOwn(scores, id) && (typeof scores[id] === 'number' || scores[id] === null)) return scores[id]
  for (const c of CATEGORIES) {
    const m = scores[c]
    if (m && typeof m === 'object' && Object.hasOwn(m, id)) return m[id]
  }
  return undefined
}

/** The category (`'agent'` / `'trajectory'`) a scorer is filed under in `scores`, else null. */
export function categoryOf(summary, id) {
  const scores = (summary && summary.scores) || {}
  for (const c of CATEGORIES) {
    const m = scores[c]
    if (m && typeof m === 'object' && Object.hasOwn(m, id)) return c
  }
  return null
}

/** `scores` as flat `{ key: mean }`, the categorized form's means under `agent.<id>` / `trajectory.<id>` (Mastra's toEvalMeta keys). */
export function flattenScores(scores, prefix = '', out = {}) {
  for (const [k, v] of Object.entries(scores || {})) {
    const key = prefix ? `${prefix}.${k}` : k
    if (v !== null && typeof v === 'object') flattenScores(v, key, out)
    else out[key] = v
  }
  return out
}

/** A `scores` key (`id`, or `agent.<id>` / `trajectory.<id>`) → the scorer id the other maps use. */
export function scorerIdOf(summary, key) {
  if (summary && summary.coverage && Object.hasOwn(summary.coverage, key)) return key
  const dot = key.indexOf('.')
  if (dot > 0 && CATEGORIES.includes(key.slice(0, dot))) return key.slice(dot + 1)
  return key
}

/** One turn's record of an item (`item.turns[k]`), or null. */
export function turnOf(item, k) {
  return (Array.isArray(item.turns) && item.turns.find((t) => t && t.index === k)) || null
}

/** The item's score for a turn's assertion: the trials' mean (trials > 1) or the result's score; null if none. */
export function turnScore(item, k, id) {
  const t = turnOf(item, k)
  return t ? itemScore(t, id) : null
}

/** The item's error for a turn's assertion (or its target error, which stops every turn's assertions). */
export function turnError(item, k, id) {
  const t = turnOf(item, k)
  return (t && t.errors && t.errors[id]) || item.targetError || null
}

/** The reason text of a turn's assertion result ('' if none). */
export function turnReason(item, k, id) {
  const t = turnOf(item, k)
  return t ? itemReason(t, id) : ''
}

/** The per-turn threshold / gate results of a run as flat rows: `[{ turn, id, gate, passed, score, threshold? }]`. */
export function turnAssertions(summary) {
  const rows = []
  for (const t of (summary && summary.turnResults) || []) {
    for (const g of t.gateResults || []) rows.push({ turn: t.index, id: g.id, gate: true, passed: g.passed, score: g.score })
    for (const th of t.thresholdResults || []) rows.push({ turn: t.index, id: th.id, gate: false, passed: th.passed, score: th.averageScore, threshold: th.threshold })
  }
  return rows
}

/** `scores` as `{ id: mean }` whatever its form (the categorized form's categories opened). */
export function meansById(scores) {
  const out = {}
  for (const [k, v] of Object.entries(scores || {})) {
    if (v !== null && typeof v === 'object' && CATEGORIES.includes(k)) Object.assign(out, v)
    else out[k] = v
  }
  return out
}
