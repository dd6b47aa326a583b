// `oxeval run --estimate` (docs/cost.md): what the run would cost, without calling the judge
// or the target: the library's estimateCost over the run's own scorers, data and prices.

const int = (n) => n.toLocaleString('en-US')
const span = (r, f = int) => (r.min === r.max ? f(r.min) : `${f(r.min)}..${f(r.max)}`)
const usd = (x) => `$${x < 1 ? x.toFixed(4) : x.toFixed(2)}`

/** The estimate as text: a row per scorer, the total, what was skipped and how it was counted. */
export function formatEstimate(e) {
  const rows = [['scorer', 'model', 'tokens', 'calls', 'cached', 'input tokens', 'output tokens', 'cost', 'batch cost']]
  for (const s of e.scorers) {
    const cost = s.cost ? [span(s.cost.direct, usd), span(s.cost.batch, usd)] : [s.noPrice ? 'no price' : '-', '-']
    rows.push([s.id, s.model ?? '(no judge)', s.tokenizer ?? '-', span(s.calls), int(s.cachedCalls), span(s.inputTokens), span(s.outputTokens), ...cost])
  }
  const t = e.total
  const totalCost = t.cost ? [span(t.cost.direct, usd) + (t.cost.complete ? '' : ' +?'), span(t.cost.batch, usd)] : ['-', '-']
  rows.push(['total', '', '', span(t.calls), int(t.cachedCalls), span(t.inputTokens), span(t.outputTokens), ...totalCost])
  const widths = rows[0].map((_, k) => Math.max(...rows.map((r) => String(r[k]).length)))
  const lines = [`oxeval estimate: ${int(e.items)} item(s) estimated, ${e.skipped.length} skipped, ${e.trials} trial(s); no judge request was sent`, '']
  for (const r of rows) lines.push(r.map((c, k) => String(c).padEnd(widths[k])).join('  ').trimEnd())
  lines.push('')
  for (const s of e.scorers) {
    if (s.noPrice) lines.push(`  ${s.id}: ${s.noPrice} (or --price-in/--price-out)`)
    for (const f of s.failures || []) lines.push(`  ${s.id}: item ${f.itemId} (${f.mode} reply) not fully estimated: ${f.message}`)
    if (s.skipped) lines.push(`  ${s.id}: ${s.skipped}`)
  }
  const shown = e.skipped.slice(0, 5)
  for (const s of shown) lines.push(`  skipped item ${s.index}${s.id !== undefined ? ` (${s.id})` : ''}: ${s.reason}`)
  if (e.skipped.length > shown.length) lines.push(`  … and ${e.skipped.length - shown.length} more skipped`)
  lines.push(`prices: oxeval's table of ${e.pricesDate} unless given (USD per 1M tokens; batch: the provider's batch discount)`)
  for (const n of e.notes) lines.push(`note: ${n}`)
  return `${lines.join('\n')}\n`
}

/** Runs the estimate and prints it; exit 0 (it decides nothing about the run). */
export async function runEstimate(oxeval, options, io) {
  const e = await oxeval.estimateCost(options)
  io.stdout.write(formatEstimate(e))
  return { code: 0, estimate: e }
}
