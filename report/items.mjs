// Reading EvalItemResult records (runEvals' per-item results), shared by the CLI, the HTML
// report and the JUnit report.

/** The item's score for one scorer: the trials' mean (trials > 1) or the result's score; null if none. */
export function itemScore(item, id) {
  const t = item.trials && item.trials[id]
  if (t) return typeof t.mean === 'number' ? t.mean : null
  const r = item.results && item.results[id]
  return r && typeof r.score === 'number' ? r.score : null
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

/** Cost in dollars of a usage record at `prices` (`{ in, out }` per 1M tokens), or null without prices. */
export function usageCost(usage, prices) {
  if (!usage || !prices || (prices.in === undefined && prices.out === undefined)) return null
  return ((usage.inputTokens || 0) * (prices.in || 0) + (usage.outputTokens || 0) * (prices.out || 0)) / 1e6
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
