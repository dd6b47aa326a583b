'use strict'
// The Scorer class (one native scorer: identity, steps, cacheStats, run) and `factory`, which
// makes the factory of one registry entry (generated/scorers.js). A run: its options described
// (describe.js), `start` in the core, contextExtractor under the core's bound (host.js), then
// the native run with a CancelHandle tied to the signal; the outcome is shaped (result.js) or
// raised (errors.js).

const native = require('../load-binding.js')
const { toJson } = require('./json.js')
const { raise } = require('./errors.js')
const { shapeResult } = require('./result.js')
const { runContexts, liveRuns, runSignals, callBounded } = require('./host.js')
const { describeOptions, describeRunOptions, extractorOption } = require('./describe.js')

class Scorer {
  #native
  #meta
  #extractor
  #keepRun
  #sets
  #runsNow
  constructor(nativeScorer, extractor, keepRun = false, sets = undefined) {
    this.#native = nativeScorer
    this.#meta = nativeScorer.meta
    this.#extractor = extractor
    this.#keepRun = keepRun
    this.#sets = sets
    this.#runsNow = nativeScorer.runsNow === true
  }
  get id() {
    return this.#meta.id
  }
  get name() {
    return this.#meta.name
  }
  get description() {
    return this.#meta.description
  }
  get type() {
    return this.#meta.type
  }
  get judge() {
    return this.#meta.judge ? { ...this.#meta.judge } : undefined
  }
  /** `'higher'` or `'lower'`: which way this scorer's score is better (hallucination: lower). */
  get direction() {
    return this.#meta.direction
  }
  /** Scores lie in `[0, scale]` (the `scale` option; 1 without one). */
  get scale() {
    return this.#meta.scale
  }
  getSteps() {
    return this.#meta.steps.map((s) => ({ ...s }))
  }
  /** `util.inspect` / `console.log`: the scorer's identity instead of `Scorer {}`. */
  [Symbol.for('nodejs.util.inspect.custom')](depth, options, inspect) {
    const m = this.#meta
    const shown = { id: m.id, name: m.name, type: m.type, judgeModel: m.judge ? m.judge.model : undefined }
    return depth < 0 ? '[Scorer]' : `Scorer ${inspect(shown, { ...options, depth: options.depth === null ? null : options.depth - 1 })}`
  }
  /** Response cache statistics, or `null` when caching is off. */
  cacheStats() {
    return this.#native.cacheStats()
  }

  /**
   * Score one run. `options.signal` cancels it (in-flight HTTP is dropped);
   * `options.deadlineMs` bounds the whole run, contextExtractor included;
   * `options.callbackTimeoutMs` bounds each user callback call (default 60 s, the core's).
   */
  async run(run, options) {
    const desc = describeRunOptions(options)
    const signal = desc.signal === 'AbortSignal' || desc.signal === 'AbortSignal:aborted' ? options.signal : undefined
    const { json, error } = toJson(run)
    // a code scorer that waits on nothing (no judge, no host call) is scored in the call
    // itself (`start` and the run at once): no hop to the runtime's threads; an abort before
    // it is `start`'s, and there is nothing to abort during it
    if (this.#runsNow) {
      const now = JSON.parse(this.#native.runNow(error === undefined ? (json ?? 'null') : null, error ?? null, JSON.stringify(desc)))
      if (now.ok) return withSets(shapeResult(run, now.result), this.#sets)
      raise(now, run, signal)
    }
    const ticket = this.#native.start(error === undefined ? (json ?? 'null') : null, error ?? null, JSON.stringify(desc))
    if (!(ticket instanceof native.RunTicket)) raise(ticket, run, signal)
    let extra = null
    let afterCallback = false
    if (ticket.needsContext && this.#extractor) {
      afterCallback = true
      const extractor = this.#extractor
      const r = await callBounded(() => extractor(run.input, run.output), ticket, signal, 'contextExtractor')
      if (r.outcome) raise(r.outcome, run, signal)
      const t = toJson({ extractedContext: r.value === undefined ? null : r.value })
      if (t.error !== undefined) raise(ticket.fail('contextExtractor', 'threw', `its result is not JSON-serializable data (${t.error})`, 'TypeError'), run, signal)
      extra = t.json
    }
    let handle
    let onAbort
    if (signal) {
      handle = new native.CancelHandle()
      if (signal.aborted) handle.cancel()
      onAbort = () => handle.cancel()
      signal.addEventListener('abort', onAbort, { once: true })
    }
    const runId = ticket.runId
    const keepContext = run.requestContext !== undefined && run.requestContext !== null
    if (keepContext) runContexts.set(runId, run.requestContext)
    if (this.#keepRun) liveRuns.set(runId, { ...run, runId })
    // a JS judge's request and a function option see the run's abort (host.js callSignal)
    if (signal) runSignals.set(runId, signal)
    let outcome
    try {
      outcome = await ticket.run(extra, afterCallback, handle)
    } finally {
      if (signal) signal.removeEventListener('abort', onAbort)
      if (keepContext) runContexts.delete(runId)
      if (this.#keepRun) liveRuns.delete(runId)
      if (signal && runSignals.get(runId) === signal) runSignals.delete(runId)
    }
    if (outcome.processWarnings) {
      for (const w of outcome.processWarnings) process.emitWarning(w.message, { code: w.code })
    }
    if (outcome.ok) return withSets(shapeResult(run, outcome.result), this.#sets)
    raise(outcome, run, signal)
  }
}

/**
 * The step results' `Set`s (the registry's `sets`: step key → dotted paths, e.g. keyword
 * coverage's keyword sets): the core sends arrays in insertion order; a user sees Mastra's Sets.
 */
function withSets(result, sets) {
  if (!sets) return result
  for (const [step, paths] of Object.entries(sets)) {
    for (const path of paths) {
      const keys = path.split('.')
      let obj = result[step]
      for (const k of keys.slice(0, -1)) obj = obj !== null && typeof obj === 'object' ? obj[k] : undefined
      const last = keys[keys.length - 1]
      if (obj !== null && typeof obj === 'object' && Array.isArray(obj[last])) obj[last] = new Set(obj[last])
    }
  }
  return result
}

/** The factory of one registry entry. */
function factory(spec) {
  const create = function (options) {
    // a code scorer's factory takes no argument, as Mastra's (`createToneScorer()`)
    if (options === undefined && spec.kind === 'code') options = {}
    const { json, d, host, keepRun } = describeOptions(options, spec)
    const made = native.createScorer(spec.factory, json, JSON.stringify(d), host)
    if (!(made instanceof native.NativeScorer)) raise(made)
    const extractor = spec.contextExtractor && typeof extractorOption(options) === 'function' ? extractorOption(options) : undefined
    return new Scorer(made, extractor, keepRun, spec.sets)
  }
  Object.defineProperty(create, 'name', { value: spec.factory })
  return create
}

module.exports = { Scorer, factory }
