'use strict'
// oxeval's public entry point: a thin facade over the generated napi binding (binding.js).
// It only (1) serializes JS values to JSON text for the core, (2) shapes the core's result
// into Mastra's result object (input fields echoed), and (3) raises TypeError /
// ScorerRunError / AbortError for the core's structured failures. All logic is in Rust.

const { randomUUID } = require('node:crypto')
const native = require('./binding.js')

/** The eight step keys of Mastra's result, always present (undefined when not applicable). */
const STEP_KEYS = [
  'score',
  'generateScorePrompt',
  'reason',
  'generateReasonPrompt',
  'preprocessStepResult',
  'preprocessPrompt',
  'analyzeStepResult',
  'analyzePrompt',
]

function causeError(c) {
  if (!c) return undefined
  const e = new Error(c.message)
  e.name = c.name || 'Error'
  if (c.code !== undefined) e.code = c.code
  if (c.status !== undefined) e.status = c.status
  if (c.rawOutput !== undefined) e.rawOutput = c.rawOutput
  return e
}

/** Thrown (as a rejection of `scorer.run()`) when a step fails. */
class ScorerRunError extends Error {
  constructor(failure, run) {
    super(failure.message, { cause: causeError(failure.cause) })
    this.name = 'ScorerRunError'
    this.code = failure.code
    this.failedStep = failure.failedStep
    this.completedSteps = failure.completedSteps || []
    this.result = shapeResult(run, failure.result || {})
  }
}

/** Rejection of `scorer.run()` when its AbortSignal fired. Keeps the partial result. */
class AbortError extends Error {
  constructor(message, failure, run, reason) {
    super(message, reason !== undefined ? { cause: reason } : undefined)
    this.name = 'AbortError'
    this.code = 'OXEVAL_ABORTED'
    this.failedStep = failure ? failure.failedStep : undefined
    this.completedSteps = failure ? failure.completedSteps || [] : []
    this.result = failure ? shapeResult(run, failure.result || {}) : undefined
  }
}

function typeError(message, code) {
  const e = new TypeError(message)
  e.code = code
  return e
}

function wellFormed(_key, value) {
  // Lone UTF-16 surrogates cannot cross into Rust as text: replace them with U+FFFD.
  return typeof value === 'string' && !value.isWellFormed() ? value.toWellFormed() : value
}

function strictOptions(key, value) {
  // Options must not silently turn NaN/Infinity into null (= "use the default").
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new TypeError(`'${key}' is ${value}; numbers must be finite`)
  }
  return wellFormed(key, value)
}

function toJson(value, what, code, replacer = wellFormed) {
  try {
    if (replacer === wellFormed) {
      // Fast path (no replacer): JSON.stringify escapes a lone surrogate as \udXXX, which Rust
      // cannot decode, so only text containing such an escape takes the replacer path.
      const json = JSON.stringify(value)
      if (json === undefined || !/\\u[dD][89a-fA-F]/.test(json)) return json
    }
    return JSON.stringify(value, replacer)
  } catch (e) {
    throw typeError(`${what} must be plain JSON-serializable data (${e.message})`, code)
  }
}

/**
 * The core sends an execution's prompt/output that repeats its step's field as `promptOf` /
 * `outputOf` (the field's name): point it at the same string/object (shared, not copied),
 * keeping Mastra's key order (status, prompt, output, …).
 */
function linkShared(out, judge) {
  for (const step of Object.values(judge)) {
    step.executions = step.executions.map((e) => {
      if (e.promptOf === undefined && e.outputOf === undefined) return e
      const linked = {}
      for (const k of Object.keys(e)) {
        if (k === 'promptOf' || k === 'outputOf') continue
        linked[k] = k === 'prompt' && e.promptOf !== undefined ? out[e.promptOf] : e[k]
        if (k === 'prompt' && e.outputOf !== undefined) linked.output = out[e.outputOf]
      }
      return linked
    })
  }
  return judge
}

function shapeResult(run, r) {
  const out = run !== null && typeof run === 'object' && !Array.isArray(run) ? { ...run } : {}
  out.runId = r.runId
  for (const k of STEP_KEYS) out[k] = r[k]
  if (r.judge !== undefined) out.judge = linkShared(out, r.judge)
  if (r.warnings !== undefined) out.warnings = r.warnings
  return out
}

/** Convert a synchronous native error (invalid options) into a TypeError. */
function rethrow(e) {
  if (e && e.code === 'InvalidArg') {
    const m = /^(OXEVAL_[A-Z_]+): ([\s\S]*)$/.exec(e.message)
    throw typeError(m ? m[2] : e.message, m ? m[1] : 'OXEVAL_INVALID_OPTIONS')
  }
  throw e
}

function checkOptions(options, factory) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw typeError(
      `${factory}() expects an options object like { model: 'openai/gpt-4o-mini' }; got ${options === null ? 'null' : Array.isArray(options) ? 'array' : typeof options}`,
      'OXEVAL_INVALID_OPTIONS',
    )
  }
  const m = options.model
  if (typeof m === 'function' || (m && typeof m === 'object' && typeof m.doGenerate === 'function')) {
    throw typeError(
      `${factory}(): AI SDK model objects are not supported yet; pass a 'provider/model' string or { id, url, apiKey }`,
      'OXEVAL_INVALID_OPTIONS',
    )
  }
  return toJson(options, 'options', 'OXEVAL_INVALID_OPTIONS', strictOptions)
}

class Scorer {
  #native
  #meta
  #prepare
  /** `prepare(run, signal)` may return extra fields for the core (e.g. extracted contexts). */
  constructor(nativeScorer, prepare) {
    this.#native = nativeScorer
    this.#meta = nativeScorer.meta
    this.#prepare = prepare
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
  getSteps() {
    return this.#meta.steps.map((s) => ({ ...s }))
  }
  /** Response cache statistics, or `null` when caching is off. */
  cacheStats() {
    return this.#native.cacheStats()
  }

  /**
   * Score one run. `options.signal` cancels it (in-flight HTTP is dropped);
   * `options.deadlineMs` bounds the whole run.
   */
  async run(run, options) {
    const signal = options && options.signal
    const deadlineMs = options && options.deadlineMs
    if (signal !== undefined && signal !== null && !(signal instanceof AbortSignal)) {
      throw typeError(
        `run options.signal must be an AbortSignal (e.g. AbortSignal.timeout(ms) or new AbortController().signal); got ${Array.isArray(signal) ? 'array' : typeof signal}`,
        'OXEVAL_INVALID_INPUT',
      )
    }
    if (deadlineMs !== undefined && (typeof deadlineMs !== 'number' || !(deadlineMs > 0))) {
      throw typeError('run options.deadlineMs must be a positive number of milliseconds', 'OXEVAL_INVALID_INPUT')
    }
    const started = Date.now()
    if (signal && signal.aborted) throw new AbortError('The run was aborted before it started', undefined, run, signal.reason)
    let payload = run
    if (this.#prepare && run !== null && typeof run === 'object' && !Array.isArray(run)) {
      // user code runs under the same signal and deadline as the judge calls
      if (run.runId === undefined || run.runId === null) payload = { ...run, runId: randomUUID() }
      const extra = await bounded(this.#prepare(payload), signal, deadlineMs, payload)
      if (extra) payload = { ...payload, ...extra }
    }
    const json = toJson(payload, 'scorer.run() input', 'OXEVAL_INVALID_INPUT')
    if (json === undefined) throw typeError('scorer.run() expects an object like { input, output }', 'OXEVAL_INVALID_INPUT')
    let remainingMs
    if (deadlineMs !== undefined) {
      remainingMs = deadlineMs - (Date.now() - started)
      if (remainingMs <= 0) throw deadlineFailure(payload, this.#prepare ? 'contextExtractor' : 'run')
    }
    let handle
    let onAbort
    if (signal) {
      if (signal.aborted) throw new AbortError('The run was aborted', undefined, run, signal.reason)
      handle = new native.CancelHandle()
      onAbort = () => handle.cancel()
      signal.addEventListener('abort', onAbort, { once: true })
    }
    let outcome
    try {
      outcome = await this.#native.run(json, handle, remainingMs)
    } finally {
      if (signal) signal.removeEventListener('abort', onAbort)
    }
    if (outcome.processWarnings) {
      for (const w of outcome.processWarnings) process.emitWarning(w.message, { code: w.code })
    }
    if (outcome.ok) return shapeResult(run, outcome.result)
    if (outcome.kind === 'type') throw typeError(outcome.message, outcome.code)
    if (outcome.kind === 'abort') throw new AbortError(outcome.error.message, outcome.error, run, signal && signal.reason)
    throw new ScorerRunError(outcome.error, run)
  }
}

/** A failure raised in JS (user callbacks), shaped like the core's. */
function jsFailure(run, step, code, message, cause) {
  return new ScorerRunError(
    {
      message: `Scorer Run Failed: step '${step}' failed: ${message}`,
      code,
      failedStep: step,
      completedSteps: [],
      result: { runId: run.runId },
      cause: { name: (cause && cause.name) || 'Error', message: cause && cause.message ? cause.message : message, code },
    },
    run,
  )
}

function deadlineFailure(run, step) {
  return jsFailure(run, step, 'OXEVAL_DEADLINE', "the run's deadline passed")
}

/** Await `promise`, but reject at once on abort or when the deadline passes. */
function bounded(promise, signal, deadlineMs, run) {
  if (!signal && deadlineMs === undefined) return promise
  return new Promise((resolve, reject) => {
    let timer
    const onAbort = () => {
      cleanup()
      reject(new AbortError('The run was aborted', { failedStep: 'contextExtractor', completedSteps: [], result: { runId: run.runId } }, run, signal.reason))
    }
    const cleanup = () => {
      if (timer) clearTimeout(timer)
      if (signal) signal.removeEventListener('abort', onAbort)
    }
    if (signal) signal.addEventListener('abort', onAbort, { once: true })
    if (deadlineMs !== undefined) {
      timer = setTimeout(() => {
        cleanup()
        reject(deadlineFailure(run, 'contextExtractor'))
      }, deadlineMs)
    }
    promise.then(
      (v) => {
        cleanup()
        resolve(v)
      },
      (e) => {
        cleanup()
        reject(e)
      },
    )
  })
}

/**
 * `contextExtractor(input, output)` is user code, so it runs here in JS; its result reaches
 * the core as `extractedContext` (the core decides which context source wins). It is only
 * called when the run has no `context` of its own.
 */
function contextPreparer(name, options) {
  const extractor = options.contextExtractor
  if (extractor === undefined || extractor === null) return undefined
  if (typeof extractor !== 'function') {
    throw typeError(`${name}(): options.contextExtractor must be a function (input, output) => string[]`, 'OXEVAL_INVALID_OPTIONS')
  }
  return async (run) => {
    if (run.context !== undefined && run.context !== null) return undefined
    let extracted
    try {
      extracted = await extractor(run.input, run.output)
    } catch (e) {
      throw jsFailure(run, 'contextExtractor', 'OXEVAL_CONTEXT_EXTRACTOR', e && e.message ? e.message : String(e), e)
    }
    return { extractedContext: extracted === undefined ? null : extracted }
  }
}

function factory(name, create, withContext = false) {
  return function (options) {
    const json = checkOptions(options, name)
    const prepare = withContext ? contextPreparer(name, options) : undefined
    let nativeScorer
    try {
      nativeScorer = create(json)
    } catch (e) {
      rethrow(e)
    }
    return new Scorer(nativeScorer, prepare)
  }
}

const createAnswerRelevancyScorer = factory('createAnswerRelevancyScorer', native.createAnswerRelevancyScorer)
const createFactualCorrectnessScorer = factory('createFactualCorrectnessScorer', native.createFactualCorrectnessScorer)
const createAnswerAccuracyScorer = factory('createAnswerAccuracyScorer', native.createAnswerAccuracyScorer)
const createContextRelevanceScorer = factory('createContextRelevanceScorer', native.createContextRelevanceScorer, true)
const createResponseGroundednessScorer = factory('createResponseGroundednessScorer', native.createResponseGroundednessScorer, true)

exports.createAnswerRelevancyScorer = createAnswerRelevancyScorer
exports.createFactualCorrectnessScorer = createFactualCorrectnessScorer
exports.createAnswerAccuracyScorer = createAnswerAccuracyScorer
exports.createContextRelevanceScorer = createContextRelevanceScorer
exports.createResponseGroundednessScorer = createResponseGroundednessScorer
exports.ScorerRunError = ScorerRunError
exports.AbortError = AbortError
exports.Scorer = Scorer
