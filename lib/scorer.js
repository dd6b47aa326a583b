'use strict'
// The Scorer class (one native scorer: identity, steps, cacheStats, run) and `factory`, which
// makes the factory of one registry entry (generated/scorers.js). A run: its options described
// (describe.js) with the run's host key, what host calls need kept under that key (host.js),
// then ONE native run with a CancelHandle tied to the signal; the outcome is shaped
// (result.js) or raised (errors.js).

const native = require('../load-binding.js')
const { toJson } = require('./json.js')
const { onAbort } = require('./abort.js')
const { raise } = require('./errors.js')
const { shapeResult } = require('./result.js')
const { runContexts, liveRuns, runSignals, nextRunKey } = require('./host.js')
const { describeOptions, describeRunOptions } = require('./describe.js')
const { encode, revive } = require('./nonfinite.js')

class Scorer {
  #native
  #meta
  #keepRun
  #sets
  #runsNow
  #fields
  #fieldsKey
  #nonFinite
  constructor(nativeScorer, keepRun = false, sets = undefined, runFields = undefined, nonFinite = { takes: false, inOptions: false }) {
    this.#native = nativeScorer
    this.#meta = nativeScorer.meta
    this.#keepRun = keepRun
    this.#sets = sets
    // a code scorer that waits on nothing (no judge, no host call)
    this.#runsNow = nativeScorer.runsNow === true
    // the run fields it reads (the registry's runFields): only they cross into the core;
    // scorers reading the same fields share their JSON within a runEvals item (by this key)
    this.#fields = runFields
    this.#fieldsKey = runFields ? runFields.join(',') : '*'
    // its expectations may hold Infinity/NaN, carried as the core reads them (nonfinite.js):
    // `takes` (the registry's flag), `inOptions` (its factory options carried some)
    this.#nonFinite = nonFinite
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
  /** Batch mode: whether this scorer's judge can batch (`{ ok, message? }`; lib/batch.js). */
  [Symbol.for('oxeval.batchReady')]() {
    return native.scorerBatchReady(this.#native)
  }
  /** Response cache statistics, or `null` when caching is off. */

  cacheStats() {
    return this.#native.cacheStats()
  }

  /**
   * Score one run. `options.signal` cancels it (in-flight HTTP is dropped);
   * `options.deadlineMs` bounds the whole run, extractor callbacks included;
   * `options.callbackTimeoutMs` bounds each user callback call (default 60 s, the core's).
   * ONE native call: the core checks the run, calls the extractor callbacks and the
   * function options back through the host channel (finding this run by its key), and
   * runs the steps.
   */
  async run(run, options) {
    // a scorer without a judge (checks, code scorers) that calls nothing back does no I/O: it
    // runs in one call on this thread (no hop to the runtime and back; the outcome as one
    // JSON string), and only the run fields it reads cross (a check: the output)
    // runEvals' run options carry what the scorers of one item share (PREPARED): the options'
    // descriptor and the run's JSON, made once per item instead of once per scorer
    const sent = this.#nonFinite.takes ? withNonFinite(run) : run
    // stand-ins echo in preprocessStepResult.config only when some crossed
    const echoed = this.#nonFinite.inOptions || sent !== run
    // a run whose expectation carries stand-ins has JSON of its own
    const prepared = sent === run && options !== null && typeof options === 'object' ? options[PREPARED] : undefined
    if (this.#runsNow && !this.#keepRun) {
      const optionsJson = options === undefined ? NO_OPTIONS : prepared ? (prepared.options ??= JSON.stringify(describeRunOptions(options))) : JSON.stringify(describeRunOptions(options))
      const { json, error } = prepared ? sharedJson(prepared, run, this.#fields, this.#fieldsKey) : toJson(readFields(sent, this.#fields))
      const outcome = JSON.parse(this.#native.runCode(error === undefined ? (json ?? 'null') : null, error ?? null, optionsJson))
      if (outcome.ok && echoed) reviveConfig(outcome.result)
      if (outcome.ok) return withSets(shapeResult(run, outcome.result), this.#sets)
      raise(outcome, run, options !== null && typeof options === 'object' && options.signal instanceof AbortSignal ? options.signal : undefined)
    }
    const desc = describeRunOptions(options)
    const signal = desc.signal === 'AbortSignal' || desc.signal === 'AbortSignal:aborted' ? options.signal : undefined
    const { json, error } = prepared ? sharedJson(prepared, run, undefined, '') : toJson(sent)
    const key = nextRunKey()
    desc.runKey = key
    let handle
    let unsubscribe
    if (signal) {
      handle = new native.CancelHandle()
      if (signal.aborted) handle.cancel()
      else unsubscribe = onAbort(signal, () => handle.cancel())
    }
    const keepContext = run !== null && typeof run === 'object' && run.requestContext !== undefined && run.requestContext !== null
    if (keepContext) runContexts.set(key, run.requestContext)
    if (this.#keepRun) liveRuns.set(key, run)
    // a JS judge's request and a function option see the run's abort (host.js callSignal)
    if (signal) runSignals.set(key, signal)
    let outcome
    try {
      outcome = await this.#native.run(error === undefined ? (json ?? 'null') : null, error ?? null, JSON.stringify(desc), handle)
    } finally {
      if (unsubscribe) unsubscribe()
      if (keepContext) runContexts.delete(key)
      if (this.#keepRun) liveRuns.delete(key)
      if (signal) runSignals.delete(key)
    }
    if (outcome.processWarnings) {
      for (const w of outcome.processWarnings) process.emitWarning(w.message, { code: w.code })
    }
    if (outcome.ok && echoed) reviveConfig(outcome.result)
    if (outcome.ok) return withSets(shapeResult(run, outcome.result), this.#sets)
    raise(outcome, run, signal)
  }
}

/**
 * The key of what the scorers of one runEvals item share, on the run options runEvals makes
 * for that item (a Symbol: not an option, never described): `{ options?, json: WeakMap }`.
 * runEvals starts an item's scorer runs in one synchronous pass over run objects it made and
 * never changes, so the JSON made for the first scorer is the JSON of every other.
 */
const PREPARED = Symbol('oxeval.preparedRun')

/**
 * The JSON of `run`'s `fields` (undefined: the whole run), made once per item and field set
 * (`key`: the fields, `''` for the whole run).
 */
function sharedJson(prepared, run, fields, key) {
  if (run === null || typeof run !== 'object') return toJson(fields ? readFields(run, fields) : run)
  let byFields = prepared.json.get(run)
  if (byFields === undefined) prepared.json.set(run, (byFields = new Map()))
  let made = byFields.get(key)
  if (made === undefined) byFields.set(key, (made = toJson(fields ? readFields(run, fields) : run)))
  return made
}

/** The numbers back in the result's `preprocessStepResult.config` (where the expectation echoes). */
function reviveConfig(result) {
  const pre = result.preprocessStepResult
  if (pre !== null && typeof pre === 'object' && pre.config !== undefined) pre.config = revive(pre.config)
}

/** `run` with its expectation's non-finite numbers as stand-ins (a copy), or `run` itself. */
function withNonFinite(run) {
  if (run === null || typeof run !== 'object' || Array.isArray(run)) return run
  const e = run.expectedTrajectory
  const sent = encode(e)
  return sent === e ? run : { ...run, expectedTrajectory: sent }
}

/** The descriptor of absent run options (the common case, made once). */
const NO_OPTIONS = JSON.stringify(describeRunOptions(undefined))

/**
 * What of `run` a code scorer reads: its `runId` and the registry's `runFields` (e.g. a
 * check's `output`), so the rest of a large run is never serialized. Anything but a plain
 * object (an array, a primitive, an object with its own `toJSON`) crosses as it is, for the
 * core to judge.
 */
function readFields(run, fields) {
  if (!fields || run === null || typeof run !== 'object' || Array.isArray(run) || typeof run.toJSON === 'function') return run
  const sub = {}
  if (run.runId !== undefined) sub.runId = run.runId
  for (const f of fields) {
    const v = run[f]
    if (v !== undefined) sub[f] = v
  }
  return sub
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

/**
 * A check's arguments as its options object: the registry's `args` (Mastra's positional
 * arguments, `includes(expected, options)`) onto the trailing options object. A RegExp
 * crosses as `{ source, flags }` (the core runs it with ECMAScript semantics).
 */
function checkOptions(spec, args) {
  const n = spec.args.length
  const rest = args[n]
  if (rest !== undefined && rest !== null && (typeof rest !== 'object' || Array.isArray(rest))) return rest
  const options = { ...(rest ?? {}) }
  spec.args.forEach((name, i) => {
    const v = args[i]
    options[name] = v instanceof RegExp ? { source: v.source, flags: v.flags } : v
  })
  return options
}

/** The factory of one registry entry. */
function factory(spec) {
  if (spec.check) {
    const plain = factory({ ...spec, check: false })
    const check = function (...args) {
      return plain(checkOptions(spec, args))
    }
    Object.defineProperty(check, 'name', { value: spec.factory })
    return check
  }
  const create = function (options) {
    // a code scorer's factory takes no argument, as Mastra's (`createToneScorer()`)
    if (options === undefined && spec.kind === 'code') options = {}
    const { json, d, host, keepRun, nonFinite } = describeOptions(options, spec)
    const made = native.createScorer(spec.factory, json, JSON.stringify(d), host)
    if (!(made instanceof native.NativeScorer)) raise(made)
    return new Scorer(made, keepRun, spec.sets, spec.runFields, { takes: spec.nonFinite === true, inOptions: nonFinite })
  }
  Object.defineProperty(create, 'name', { value: spec.factory })
  return create
}

module.exports = { Scorer, factory, PREPARED }
