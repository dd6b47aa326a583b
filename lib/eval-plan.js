'use strict'
// runEvals' first two stages: check the config (every option, a TypeError naming it, before
// any user code or judge call) and plan the run (the bounds on user code, the core's
// accumulator, every scorer entry with its route). lib/evals.js runs the plan.

const native = require('../load-binding.js')
const { typeError } = require('./errors.js')
const { jsType } = require('./json.js')
const conv = require('./conversation.js')
const models = require('./models.js')

const OPT = 'OXEVAL_INVALID_OPTIONS'

function check(cond, message) {
  if (!cond) throw typeError(`runEvals: ${message}`, OPT)
}

/** The native accumulator, or a TypeError. */
function accumulator(config) {
  const made = native.createEvalAccumulator(JSON.stringify(config))
  if (!(made instanceof native.NativeEvalAccumulator)) throw typeError(`runEvals: ${made.message}`, made.code || OPT)
  return made
}

function unwrap(outcome) {
  if (outcome.ok) return outcome.value
  throw typeError(`runEvals: ${outcome.message || (outcome.error && outcome.error.message)}`, outcome.code || OPT)
}

const isScorer = (s) => s !== null && typeof s === 'object' && typeof s.id === 'string' && typeof s.run === 'function'

/** `scorers` entries → `[{ id, scorer, threshold? }]`. */
function entriesOf(list, key, allowThreshold) {
  if (list === undefined || list === null) return []
  check(Array.isArray(list), `${key} must be an array of scorers${allowThreshold ? ' or { scorer, threshold }' : ''}, got ${jsType(list)}`)
  return list.map((e, i) => {
    if (allowThreshold && e !== null && typeof e === 'object' && 'scorer' in e && !isScorer(e)) {
      check(isScorer(e.scorer), `${key}[${i}].scorer must be a scorer (an object with an id and a run() method)`)
      check('threshold' in e, `${key}[${i}] has a scorer but no threshold`)
      return { id: e.scorer.id, scorer: e.scorer, threshold: e.threshold }
    }
    check(isScorer(e), `${key}[${i}] must be a scorer (an object with a string id and a run() method)${allowThreshold ? ' or { scorer, threshold }' : ''}, got ${jsType(e)}`)
    return { id: e.id, scorer: e }
  })
}

/**
 * `scorers`: an array (bare or `{ scorer, threshold }`), or Mastra's `{ agent?, trajectory? }`
 * (AgentScorerConfig): each entry then carries its category (the core checks that a
 * trajectory one is a trajectory scorer). → `{ entries, categorized }`.
 */
function scorerLists(list) {
  if (list !== null && typeof list === 'object' && !Array.isArray(list) && !isScorer(list)) {
    const other = Object.keys(list).filter((k) => k !== 'agent' && k !== 'trajectory')
    check(
      other.length === 0,
      `scorers must be an array of scorers or { scorer, threshold }, or { agent?, trajectory? } (Mastra's AgentScorerConfig), got an object with ${other.length === 1 ? 'the key' : 'keys'} ${other.join(', ')}${other.some((k) => k === 'workflow' || k === 'steps') ? " (oxeval's runEvals has no Workflow targets)" : ''}`,
    )
    const agent = entriesOf(list.agent, 'scorers.agent', true).map((e) => ({ ...e, category: 'agent' }))
    const trajectory = entriesOf(list.trajectory, 'scorers.trajectory', true).map((e) => ({ ...e, category: 'trajectory' }))
    return { entries: [...agent, ...trajectory], categorized: true }
  }
  return { entries: entriesOf(list, 'scorers', true), categorized: false }
}

/** A number option for the core: Infinity means "no limit" (a large count); other non-finite values are text, so the core names them. */
function countData(v) {
  if (v === Infinity) return 9e15
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v)
  return v ?? null
}

/**
 * The judge model of a scorer as `provider/model` (what its executions name; the core prices
 * it for `maxCost`), or null: no judge, or a model left to the environment.
 */
function judgeName(scorer) {
  let m
  try {
    m = scorer && scorer.judge ? scorer.judge.model : undefined
  } catch {
    return null
  }
  if (typeof m === 'string') return m
  if (m === undefined || m === null) return null
  const k = models.modelOf(m)
  if (k.kind !== 'data') return `${k.provider}/${k.modelId}`
  if (typeof m.id === 'string') return m.id
  return typeof m.providerId === 'string' && typeof m.modelId === 'string' ? `${m.providerId}/${m.modelId}` : null
}

/** The scorer facts the core uses: which way is better, the score range, Mastra's `type` (routing), the judge model. */
function scorerInfo(entry) {
  const o = { ...conv.scorerFacts(entry.scorer), id: entry.id }
  const model = judgeName(entry.scorer)
  if (model !== null) o.model = model
  if (entry.category !== undefined) o.category = entry.category
  return o
}

/** The run policy for the core (see evals.rs): maxErrors, minCoverage, gatePassRate, partial, stopEarly. */
function policyOf(config) {
  return {
    maxErrors: countData(config.maxErrors),
    minCoverage: config.minCoverage ?? null,
    gatePassRate: config.gatePassRate ?? null,
    partial: config.partial ?? null,
    stopEarly: config.stopEarly ?? null,
  }
}

/** A number option as data for the core: a non-finite number or a non-JSON value is described. */
function msData(v) {
  if (v === undefined || v === null || typeof v === 'string' || typeof v === 'boolean') return v
  if (typeof v === 'number') return Number.isFinite(v) ? v : { jsType: 'number', nonFinite: String(v) }
  return { jsType: jsType(v) }
}

/**
 * Stage 1, check the config: every option of runEvals checked (a TypeError naming it, before
 * any user code or judge call) and normalized.
 */
function checkConfig(config) {
  check(config !== null && typeof config === 'object' && !Array.isArray(config), `expects one options object, got ${jsType(config)}`)
  const { data, target, onItemComplete, signal, targetOptions } = config
  const { entries: scorers, categorized } = scorerLists(config.scorers)
  const gates = entriesOf(config.gates, 'gates', false)
  check(
    data !== null && data !== undefined && typeof data !== 'string' && (typeof data[Symbol.iterator] === 'function' || typeof data[Symbol.asyncIterator] === 'function'),
    `data must be an array (or an iterable / async iterable) of items, got ${jsType(data)}`,
  )
  check(scorers.length + gates.length > 0 || conv.hasTurnAssertions(data), 'give at least one scorer (scorers) or gate (gates), or per-turn gates / scorers in turns items')
  check(target === undefined || target === null || typeof target === 'function' || (typeof target === 'object' && typeof target.generate === 'function'), 'target must be an async function (input, { item, signal, index, ...item }) => output or an object with a generate() method (an Agent)')
  const agent = target !== null && typeof target === 'object' ? target : null
  check(targetOptions === undefined || targetOptions === null || (typeof targetOptions === 'object' && !Array.isArray(targetOptions)), `targetOptions must be an object (options for the Agent's generate()), got ${jsType(targetOptions)}`)
  check(targetOptions === undefined || targetOptions === null || agent !== null, "targetOptions are passed to an Agent target's generate(); this run's target is not an Agent")
  const targetKind = agent ? 'agent' : typeof target === 'function' ? 'function' : 'none'
  const concurrency = config.concurrency ?? 8
  check(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 10000, `concurrency must be an integer in [1, 10000], got ${String(concurrency)}`)
  check(onItemComplete === undefined || onItemComplete === null || typeof onItemComplete === 'function', 'onItemComplete must be a function')
  check(signal === undefined || signal === null || signal instanceof AbortSignal, `signal must be an AbortSignal, got ${jsType(signal)}`)
  const itemIdOf = config.itemId
  check(itemIdOf === undefined || itemIdOf === null || typeof itemIdOf === 'function', 'itemId must be a function (item, index) => string')
  const keepItems = config.keepItems ?? true
  check(typeof keepItems === 'boolean', `keepItems must be a boolean, got ${jsType(keepItems)}`)
  return { data, target, agent, targetKind, targetOptions, onItemComplete, signal, concurrency, itemIdOf, keepItems, scorers, categorized, gates }
}

/**
 * Stage 2, plan the run: the bounds on the user code runEvals calls (the core's, run.rs
 * EvalBounds: callbackTimeoutMs for one onItemComplete call, passed on to every scorer run
 * whose callbacks it bounds; targetTimeoutMs for one target call; the grace after an abort),
 * the core's accumulator (the math, the policy) and every entry with its route (Mastra's
 * routing, the core's: the scorers under scorers.trajectory and the trajectory gates receive
 * the item's trajectory as their output).
 */
function planRun(config, { scorers, categorized, gates }) {
  const bounds = unwrap(native.evalBounds(JSON.stringify({ callbackTimeoutMs: msData(config.callbackTimeoutMs), targetTimeoutMs: msData(config.targetTimeoutMs) })))
  const acc = accumulator({
    scorers: scorers.map((s) => (s.threshold === undefined ? scorerInfo(s) : { ...scorerInfo(s), threshold: s.threshold })),
    categorized,
    gates: gates.map(scorerInfo),
    trials: config.trials ?? null,
    ...policyOf(config),
    // the budget (evals/budget.rs): runEvals' own, not summarizeItems'
    maxCost: countData(config.maxCost),
    prices: config.prices ?? null,
  })
  const trials = Number(config.trials ?? 1)
  const routed = new Set(acc.routes().trajectory)
  const all = [...scorers, ...gates].map((e) => ({ ...e, trajectory: routed.has(e.id) }))
  return { bounds, acc, trials, all }
}

module.exports = { OPT, accumulator, unwrap, policyOf, checkConfig, planRun }
