'use strict'
// oxeval's public entry point: a thin facade over the generated napi binding (binding.js).
// It only (1) serializes JS values to JSON text for the core, (2) shapes the core's result
// into Mastra's result object (input fields echoed), and (3) raises TypeError /
// ScorerRunError / AbortError for the core's structured failures. All logic is in Rust.

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
    return JSON.stringify(value, replacer)
  } catch (e) {
    throw typeError(`${what} must be plain JSON-serializable data (${e.message})`, code)
  }
}

function shapeResult(run, r) {
  const out = run !== null && typeof run === 'object' && !Array.isArray(run) ? { ...run } : {}
  out.runId = r.runId
  for (const k of STEP_KEYS) out[k] = r[k]
  if (r.judge !== undefined) out.judge = r.judge
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
  constructor(nativeScorer) {
    this.#native = nativeScorer
    this.#meta = nativeScorer.meta
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

  /**
   * Score one run. `options.signal` cancels it (in-flight HTTP is dropped);
   * `options.deadlineMs` bounds the whole run.
   */
  async run(run, options) {
    const signal = options && options.signal
    const deadlineMs = options && options.deadlineMs
    if (deadlineMs !== undefined && (typeof deadlineMs !== 'number' || !(deadlineMs > 0))) {
      throw typeError('run options.deadlineMs must be a positive number of milliseconds', 'OXEVAL_INVALID_INPUT')
    }
    if (signal && signal.aborted) throw new AbortError('The run was aborted before it started', undefined, run, signal.reason)
    const json = toJson(run, 'scorer.run() input', 'OXEVAL_INVALID_INPUT')
    if (json === undefined) throw typeError('scorer.run() expects an object like { input, output }', 'OXEVAL_INVALID_INPUT')
    let handle
    let onAbort
    if (signal) {
      handle = new native.CancelHandle()
      onAbort = () => handle.cancel()
      signal.addEventListener('abort', onAbort, { once: true })
    }
    let outcome
    try {
      outcome = await this.#native.run(json, handle, deadlineMs)
    } finally {
      if (signal) signal.removeEventListener('abort', onAbort)
    }
    if (outcome.ok) return shapeResult(run, outcome.result)
    if (outcome.kind === 'type') throw typeError(outcome.message, outcome.code)
    if (outcome.kind === 'abort') throw new AbortError(outcome.error.message, outcome.error, run, signal && signal.reason)
    throw new ScorerRunError(outcome.error, run)
  }
}

function factory(name, create) {
  return function (options) {
    const json = checkOptions(options, name)
    let nativeScorer
    try {
      nativeScorer = create(json)
    } catch (e) {
      rethrow(e)
    }
    return new Scorer(nativeScorer)
  }
}

const createAnswerRelevancyScorer = factory('createAnswerRelevancyScorer', native.createAnswerRelevancyScorer)

exports.createAnswerRelevancyScorer = createAnswerRelevancyScorer
exports.ScorerRunError = ScorerRunError
exports.AbortError = AbortError
exports.Scorer = Scorer
