'use strict'
// oxeval's error classes (ScorerRunError, AbortError, the coded TypeError) with the fields
// Mastra's errors carry, and `raise`: a core outcome `{ ok: false, kind, … }` as the matching
// error.

const { shapeResult } = require('./result.js')

function causeError(c) {
  if (!c) return undefined
  const e = new Error(c.message)
  e.name = c.name || 'Error'
  if (c.code !== undefined) e.code = c.code
  if (c.status !== undefined) e.status = c.status
  if (c.rawOutput !== undefined) e.rawOutput = c.rawOutput
  return e
}

/**
 * The fields Mastra's errors carry (MastraError: `id`, `domain`, `category`, `details`,
 * `toJSON()`), so error handling written for Mastra works on oxeval's errors. Kept here (no
 * import of @mastra/core: the main entry does not depend on it).
 */
function mastraFields(err, id, details) {
  err.id = id
  err.domain = 'SCORER'
  err.category = 'USER'
  err.details = details
}

/** `toJSON()` of a cause, as Mastra serializes one: name and message plus oxeval's fields. */
function causeJson(c) {
  if (!c || typeof c !== 'object') return c === undefined ? undefined : { message: String(c) }
  if (typeof c.toJSON === 'function') return c.toJSON()
  const j = { name: c.name, message: c.message }
  for (const k of ['code', 'status', 'rawOutput']) if (c[k] !== undefined) j[k] = c[k]
  return j
}

/** MastraError's methods, shared by both error classes. */
const mastraMethods = {
  /** Mastra's `toJSONDetails()`: message, domain, category, details. */
  toJSONDetails() {
    return { message: this.message, domain: this.domain, category: this.category, details: this.details }
  },
  /** Mastra's `toJSON()` (`code` is Mastra's error id; oxeval's code is `details.code`). */
  toJSON() {
    return {
      message: this.message,
      domain: this.domain,
      category: this.category,
      code: this.id,
      details: this.details,
      cause: causeJson(this.cause),
    }
  },
}

function withMastraMethods(cls) {
  for (const [k, fn] of Object.entries(mastraMethods)) {
    Object.defineProperty(cls.prototype, k, { value: fn, writable: true, configurable: true, enumerable: false })
  }
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
    // Mastra's ScorerRunError id (MastraError fields), so Mastra-style handling matches
    mastraFields(this, 'MASTR_SCORER_FAILED_TO_RUN_WORKFLOW_FAILED', {
      code: this.code,
      failedStep: this.failedStep,
      completedSteps: this.completedSteps.join(', '),
    })
  }
}
withMastraMethods(ScorerRunError)

/** Rejection of `scorer.run()` when its AbortSignal fired. Keeps the partial result. */
class AbortError extends Error {
  constructor(message, failure, run, reason) {
    super(message, reason !== undefined ? { cause: reason } : undefined)
    this.name = 'AbortError'
    this.code = 'OXEVAL_ABORTED'
    this.failedStep = failure && failure.failedStep !== null ? failure.failedStep : undefined
    this.completedSteps = failure ? failure.completedSteps || [] : []
    this.result = failure && failure.result ? shapeResult(run, failure.result) : undefined
    mastraFields(this, 'OXEVAL_SCORER_RUN_ABORTED', {
      code: this.code,
      failedStep: this.failedStep ?? null,
      completedSteps: this.completedSteps.join(', '),
    })
  }
}
withMastraMethods(AbortError)

/** A TypeError with oxeval's stable `code` (a wrong argument or option). */
function typeError(message, code) {
  const e = new TypeError(message)
  e.code = code
  return e
}

/** Raise a core outcome `{ ok: false, kind, … }` as the matching error class. */
function raise(outcome, run, signal) {
  if (outcome.kind === 'type') throw typeError(outcome.message, outcome.code)
  if (outcome.kind === 'abort') throw new AbortError(outcome.error.message, outcome.error, run, signal ? signal.reason : undefined)
  throw new ScorerRunError(outcome.error, run)
}

module.exports = { ScorerRunError, AbortError, typeError, raise }
