'use strict'
// `estimateCost(config)` (docs/cost.md): what a runEvals config would cost, WITHOUT calling the
// judge. Each scorer's own run walks its real pipeline with run option `estimate` (the core's
// estimating judge, engine/estimate.rs: the request the cache does not answer is counted, not
// sent, and answered with a schema-valid reply), twice: a minimal reply and a stated typical
// one, which bound the steps built from an earlier reply. Targets are not run: items without
// an `output` are skipped and listed.

const native = require('../load-binding.js')
const { checkConfig, planRun } = require('./eval-plan.js')
const conv = require('./conversation.js')
const { Scorer } = require('./scorer.js')
const { CustomScorer } = require('./custom.js')
const { typeError } = require('./errors.js')
const { toJson } = require('./json.js')

const OPT = 'OXEVAL_INVALID_OPTIONS'
const MODES = ['minimal', 'typical']
const range = () => ({ min: 0, max: 0 })

/** A scorer's running tally: per mode, calls and tokens; cache hits; the judge's model and tokenizer. */
function blank(entry) {
  return { id: entry.id, model: null, tokenizer: null, steps: new Set(), calls: range(), cachedCalls: 0, inputTokens: range(), outputTokens: range(), items: 0, failures: [], skipped: null }
}

/** Adds one run's judge record (its executions) to a tally, under `mode`'s side of each range. */
function add(t, judge, mode) {
  const side = mode === 'minimal' ? 'min' : 'max'
  for (const [step, rec] of Object.entries(judge || {})) {
    for (const x of (rec && rec.executions) || []) {
      if (!x) continue
      t.steps.add(step)
      if (typeof x.judgeModelId === 'string') t.model = `${x.judgeProvider}/${x.judgeModelId}`
      if (x.cached) {
        if (mode === 'minimal') t.cachedCalls += 1
        continue
      }
      if (typeof x.finishReason === 'string' && x.finishReason.startsWith('estimate:')) t.tokenizer = x.finishReason.slice(9)
      t.calls[side] += x.modelCallCount || 0
      t.inputTokens[side] += (x.usage && x.usage.inputTokens) || 0
      t.outputTokens[side] += (x.usage && x.usage.outputTokens) || 0
    }
  }
}

/** Why an item is not estimated (null: it is). */
function skipReason(raw, hasTarget) {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return 'not an object'
  if (conv.isMultiTurn(raw)) return 'a multi-turn item (inputs / turns): its conversation is not run by the estimate'
  if (!('output' in raw)) return hasTarget ? 'no output: the estimate does not run the target' : 'no output'
  return null
}

/** The item's run input as runEvals builds it (its fields, its input and output). */
function runInputOf(raw) {
  const base = {}
  for (const k of Object.keys(raw)) if (k !== 'id' && k !== 'expected' && raw[k] !== undefined) base[k] = raw[k]
  return base
}

/** The price of `model` at `prices` (the core's table and overrides), or null. */
function priceOf(model, prices) {
  const r = native.judgePrice(model, prices === undefined || prices === null ? undefined : JSON.stringify(prices))
  if (!r.ok) throw typeError(`estimateCost: ${r.message}`, OPT)
  return { price: r.value, date: r.date }
}

const dollars = (p, input, output, batch) => ((input * p.input + output * p.output) / 1e6) * (batch ? 1 - p.batchDiscount : 1)

/** A tally as the estimate reports it, with its cost when its model has a price. */
function report(t, prices) {
  const out = { id: t.id, model: t.model, tokenizer: t.tokenizer, steps: [...t.steps], items: t.items, calls: t.calls, cachedCalls: t.cachedCalls, inputTokens: t.inputTokens, outputTokens: t.outputTokens }
  if (t.failures.length) out.failures = t.failures
  if (t.skipped) out.skipped = t.skipped
  if (!t.model || t.calls.max === 0) return { ...out, cost: null }
  const { price } = priceOf(t.model, prices)
  if (!price) return { ...out, cost: null, noPrice: `no price for ${t.model}: give prices: { '${t.model}': { input, output } } (USD per 1M tokens)` }
  const cost = (batch) => ({ min: dollars(price, t.inputTokens.min, t.outputTokens.min, batch), max: dollars(price, t.inputTokens.max, t.outputTokens.max, batch) })
  return { ...out, price, cost: { direct: cost(false), batch: cost(true) } }
}

/** One scorer's estimating runs on one run input: minimal and typical, per trial. */
async function estimateOne(entry, tally, runInput, itemId, trials) {
  for (let trial = 1; trial <= trials; trial++) {
    for (const mode of MODES) {
      const options = trial === 1 ? { estimate: mode, itemId } : { estimate: mode, itemId, trial }
      try {
        const r = await entry.scorer.run(runInput, options)
        add(tally, r.judge, mode)
      } catch (e) {
        add(tally, e && e.result && e.result.judge, mode)
        if (tally.failures.length < 3) tally.failures.push({ itemId, mode, code: e && e.code, message: String(e && e.message).slice(0, 300) })
      }
    }
  }
}

/**
 * What running `config` (runEvals' options) would cost: per scorer the judge calls, input
 * tokens of the real prompts, an output-token range and the cost at direct and batch prices.
 */
async function estimateCost(config) {
  const checked = checkConfig(config)
  const { trials, all } = planRun({ ...config, maxCost: undefined }, checked)
  const tallies = new Map(all.map((e) => [e.id, blank(e)]))
  const skipped = []
  let items = 0
  let index = 0
  const data = checked.data
  const iter = typeof data[Symbol.asyncIterator] === 'function' ? data : (async function* () { yield* data })()
  for await (const raw of iter) {
    const i = index++
    const why = skipReason(raw, Boolean(checked.target))
    if (why) {
      if (skipped.length < 1000) skipped.push({ index: i, id: raw && raw.id, reason: why })
      continue
    }
    if (toJson(raw).error !== undefined) {
      skipped.push({ index: i, id: raw.id, reason: 'not JSON-serializable data' })
      continue
    }
    items++
    const runInput = runInputOf(raw)
    const itemId = typeof raw.id === 'string' || typeof raw.id === 'number' ? String(raw.id).slice(0, 256) || `#${i}` : `#${i}`
    for (const e of all) {
      const t = tallies.get(e.id)
      if (!(e.scorer instanceof Scorer || e.scorer instanceof CustomScorer)) {
        t.skipped = 'not an oxeval scorer: its calls are its own'
        continue
      }
      let input = runInput
      if (e.trajectory) {
        const tr = conv.trajectoryOf(raw.output)
        if (!tr.value) continue
        input = { ...runInput, output: tr.value }
      }
      t.items++
      await estimateOne(e, t, input, itemId, trials)
    }
  }
  const scorers = [...tallies.values()].map((t) => report(t, config.prices))
  const sum = (pick) => scorers.reduce((a, s) => ({ min: a.min + pick(s).min, max: a.max + pick(s).max }), range())
  const priced = scorers.filter((s) => s.cost)
  const unpriced = scorers.filter((s) => s.noPrice)
  return {
    items,
    skipped,
    trials,
    scorers,
    total: {
      calls: sum((s) => s.calls),
      cachedCalls: scorers.reduce((a, s) => a + s.cachedCalls, 0),
      inputTokens: sum((s) => s.inputTokens),
      outputTokens: sum((s) => s.outputTokens),
      // the priced scorers' sum; `complete` false when a judged scorer has no price
      cost: priced.length ? { direct: sum((s) => s.cost.direct), batch: sum((s) => s.cost.batch), complete: unpriced.length === 0 } : null,
    },
    pricesDate: priceOf('openai/gpt-4o', undefined).date,
    notes: [
      'min: every judge reply the least its schema allows (empty lists); max: a stated typical reply (3 list items, 12-word sentences). A step built from an earlier reply (e.g. verdicts per extracted statement) lies in that range; real replies with long reasons may be longer.',
      'tokens: OpenAI models with OpenAI\'s tokenizer (o200k_base / cl100k_base, chat message overhead included; a structured-output schema is not counted); other models approximately, 4 characters a token.',
      'calls the response cache already holds are counted in cachedCalls and cost nothing.',
    ],
  }
}

module.exports = { estimateCost }
