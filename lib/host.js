'use strict'
// The host channel: how the core's run reaches user JS. `hostCaller` is the ONE function Rust
// calls for every host call (`{ kind, request }`: a judge model given as a JS value, answered
// by models.js; a function option such as getContext, answered by `functionsCaller`); the runs
// in flight (their requestContext for judge functions, the run itself for function options);
// and callBounded, which calls a user callback (contextExtractor) under the run's signal and
// the bound the core gives.

const { toJson } = require('./json.js')

/** The `requestContext` of each run in flight (by runId), for judge functions. */
const runContexts = new Map()

/** Each run in flight (by runId) of a scorer with function options, as those functions get it. */
const liveRuns = new Map()

/** The `AbortSignal` of each run in flight that has one (by runId). */
const runSignals = new Map()

/**
 * The signal of one host call for run `runId`: fires on the run's abort (`scorer.run(run, {
 * signal })`) or after `timeoutMs` (the core's budget for a judge call), whichever comes
 * first; without a timeout, the run's signal (or none).
 */
function callSignal(runId, timeoutMs) {
  const run = runId !== undefined ? runSignals.get(runId) : undefined
  if (timeoutMs === undefined) return run
  const timeout = AbortSignal.timeout(Math.max(1, timeoutMs))
  return run ? AbortSignal.any([run, timeout]) : timeout
}

function errorJson(e) {
  return JSON.stringify({
    ok: false,
    error: { name: (e && e.name) || 'Error', message: e && e.message !== undefined ? String(e.message) : String(e) },
  })
}

/**
 * The one function Rust calls (JSON text `{ kind, request }` → the reply, JSON text) with a
 * handler per kind (`judgeModel`, `functionOption`), each `(request) => Promise<replyJson>`
 * and never rejecting. A kind without a handler is an `ok: false` reply. Never rejects.
 */
function hostCaller(handlers) {
  return async (json) => {
    let call
    try {
      call = JSON.parse(json)
    } catch (e) {
      return errorJson(e)
    }
    const handler = handlers[call.kind]
    if (typeof handler !== 'function') return errorJson(new TypeError(`the host has no handler for ${call.kind} calls`))
    const reply = await handler(call.request)
    // the run was aborted meanwhile: the core was told (its CancelHandle) and ends the call
    // itself with the abort, so the failure the abort caused in user code is not sent to race it
    const run = call.request && call.request.runId !== undefined ? runSignals.get(call.request.runId) : undefined
    return run && run.aborted ? new Promise(() => {}) : reply
  }
}

/**
 * The handler of a scorer's function options: request `{ name, runId, args }` → the
 * option (top-level wins over `options.`) called with `{ run, ...args }`, `run` being the
 * run in flight; reply `{ ok: true, value }` or `{ ok: false, error }`. Never rejects.
 */
function functionsCaller(options) {
  return async (req) => {
    try {
      const own = options[req.name]
      const fn = typeof own === 'function' ? own : options.options && options.options[req.name]
      if (typeof fn !== 'function') throw new TypeError(`options.${req.name} is no longer a function`)
      const params = { run: liveRuns.get(req.runId), ...req.args }
      // the run's signal, not enumerable: the parameters stay Mastra's as data (cloned, compared)
      const signal = callSignal(req.runId)
      if (signal) Object.defineProperty(params, 'signal', { value: signal, enumerable: false })
      const value = await fn(params)
      const t = toJson({ ok: true, value: value === undefined ? null : value })
      if (t.error !== undefined) throw new TypeError(`${req.name} returned a value that is not JSON-serializable data (${t.error})`)
      return t.json
    } catch (e) {
      return errorJson(e)
    }
  }
}

/**
 * Call a user callback under the run's signal and the bound the core gives
 * (`ticket.callbackBound()`: the run's deadline or the callback bound `callbackTimeoutMs`,
 * whichever comes first). Resolves to `{ value }` or to `{ outcome }` (the core's failure
 * for `step`).
 */
function callBounded(fn, ticket, signal, step) {
  return new Promise((resolve) => {
    let timer
    let settled = false
    const done = (r) => {
      if (settled) return
      settled = true
      if (timer) clearTimeout(timer)
      if (signal) signal.removeEventListener('abort', onAbort)
      resolve(r)
    }
    const onAbort = () => done({ outcome: ticket.fail(step, 'aborted', '', '') })
    if (signal) signal.addEventListener('abort', onAbort, { once: true })
    const bound = ticket.callbackBound()
    if (bound && bound.ms !== null) timer = setTimeout(() => done({ outcome: ticket.fail(step, bound.kind, '', '') }), Math.max(0, bound.ms))
    Promise.resolve()
      .then(fn)
      .then(
        (value) => done({ value }),
        (e) => done({ outcome: ticket.fail(step, 'threw', e && e.message ? String(e.message) : String(e), (e && e.name) || 'Error') }),
      )
  })
}

module.exports = { runContexts, liveRuns, runSignals, callSignal, hostCaller, functionsCaller, callBounded }
