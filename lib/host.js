'use strict'
// The host channel: how the core's run reaches user JS. `hostCaller` is the ONE function Rust
// calls for every host call (`{ kind, request }`: a judge model given as a JS value, answered
// by models.js; a function option such as getContext or an extractor callback such as
// contextExtractor, answered by `functionsCaller`); and the runs in flight, by the key each
// run's host calls carry (their requestContext for judge functions, their signal, the run
// itself for function options).

const { toJson } = require('./json.js')

/** The `requestContext` of each run in flight (by its key), for judge functions. */
const runContexts = new Map()

/** Each run in flight (by its key) of a scorer with function options, as the user passed it. */
const liveRuns = new Map()

/** The `AbortSignal` of each run in flight that has one (by its key). */
const runSignals = new Map()

/**
 * The signal of one host call for the run keyed `runKey`: fires on the run's abort (`scorer.run(run, {
 * signal })`) or after `timeoutMs` (the core's budget for a judge call), whichever comes
 * first; without a timeout, the run's signal (or none).
 */
function callSignal(runKey, timeoutMs) {
  const run = runKey !== undefined ? runSignals.get(runKey) : undefined
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
    const run = call.request && call.request.runKey !== undefined ? runSignals.get(call.request.runKey) : undefined
    return run && run.aborted ? new Promise(() => {}) : reply
  }
}

/**
 * The handler of a scorer's function options: request `{ name, runId, runKey, args,
 * positional? }` → the option (top-level wins over `options.`) called with `{ run, ...args }`
 * (`run` being the run in flight with its `runId`), or, for an extractor (`positional:
 * ['input', 'output']`), with the run's own `input` and `output` objects as Mastra calls
 * it; reply `{ ok: true, value }` or `{ ok: false, error }`. Never rejects.
 */
function functionsCaller(options) {
  return async (req) => {
    try {
      const own = options[req.name]
      const fn = typeof own === 'function' ? own : options.options && options.options[req.name]
      if (typeof fn !== 'function') throw new TypeError(`options.${req.name} is no longer a function`)
      const live = liveRuns.get(req.runKey)
      let value
      if (Array.isArray(req.positional)) {
        value = await fn(...req.positional.map((k) => (live !== null && typeof live === 'object' ? live[k] : undefined)))
      } else {
        const params = { run: live !== null && typeof live === 'object' ? { ...live, runId: req.runId } : live, ...req.args }
        // the run's signal, not enumerable: the parameters stay Mastra's as data (cloned, compared)
        const signal = callSignal(req.runKey)
        if (signal) Object.defineProperty(params, 'signal', { value: signal, enumerable: false })
        value = await fn(params)
      }
      const t = toJson({ ok: true, value: value === undefined ? null : value })
      if (t.error !== undefined) throw new TypeError(`${req.name} returned a value that is not JSON-serializable data (${t.error})`)
      return t.json
    } catch (e) {
      return errorJson(e)
    }
  }
}

let lastRunKey = 0
/** A fresh key for one run: the core puts it in every host call of that run. */
function nextRunKey() {
  lastRunKey = lastRunKey >= Number.MAX_SAFE_INTEGER ? 1 : lastRunKey + 1
  return `r${lastRunKey}`
}

module.exports = { runContexts, liveRuns, runSignals, callSignal, hostCaller, functionsCaller, nextRunKey }
