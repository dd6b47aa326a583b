// Batch mode in the usage figures: the share of judge calls and tokens that went through a
// provider batch, and what that saves. OpenAI, Azure OpenAI (global batch), Anthropic and
// Gemini all bill batch requests at half their direct price.

/** What a batched token costs, relative to a direct one. */
export const BATCH_PRICE = 0.5

/** Tokens as billed: direct tokens at full price, batched tokens at `BATCH_PRICE`. */
export function billedTokens(usage) {
  if (!usage) return 0
  return (usage.totalTokens || 0) - (1 - BATCH_PRICE) * (usage.batchTotalTokens || 0)
}

/**
 * One line on the batch share of a run's usage (`{ [scorerId]: usage }`), or null when no call
 * went through a batch: "batch: 60 of 60 judge calls (100%), 20,713 of 20,713 tokens; billed as
 * 10,357 tokens (-50%)".
 */
export function batchUsageText(usageByScorer) {
  const all = Object.values(usageByScorer || {})
  const sum = (k) => all.reduce((n, u) => n + ((u && u[k]) || 0), 0)
  const batchCalls = sum('batchCalls')
  if (!batchCalls) return null
  const calls = sum('calls')
  const tokens = sum('totalTokens')
  const batchTokens = sum('batchTotalTokens')
  const billed = tokens - (1 - BATCH_PRICE) * batchTokens
  const pct = (a, b) => (b > 0 ? `${Math.round((100 * a) / b)}%` : '-')
  const int = (n) => Math.round(n).toLocaleString('en-US')
  return `batch: ${int(batchCalls)} of ${int(calls)} judge calls (${pct(batchCalls, calls)}), ${int(batchTokens)} of ${int(tokens)} tokens through provider batches at ${BATCH_PRICE * 100}% of the price; billed as ${int(billed)} tokens (${tokens > 0 ? `-${Math.round((100 * (tokens - billed)) / tokens)}%` : '-'})`
}
