'use strict'
// Waiting on user code without ever waiting forever: `invoke` (a call whose synchronous throw
// becomes a rejection) and `settle` (its result, cut off by a signal or a bound). runEvals
// waits on targets, scorers, data sources and callbacks through these; a custom scorer's
// prepareRun too.

const { onAbort } = require('./abort.js')

/** Call user code: its promise (or value); a synchronous throw becomes a rejection. */
function invoke(fn) {
  try {
    return fn()
  } catch (e) {
    return Promise.reject(e)
  }
}

/**
 * Wait for `p` (what user code returned) until it settles, `signal` fires or `ms` pass:
 * `{ value }`, `{ error }`, `{ cut: 'signal' }` or `{ cut: 'timeout' }`. Never rejects; a
 * later rejection of `p` is handled; the timer and the listener go as soon as it resolves.
 */
function settle(p, signal, ms) {
  return new Promise((resolve) => {
    let timer
    let done = false
    let unsubscribe
    const finish = (r) => {
      if (done) return
      done = true
      if (timer !== undefined) clearTimeout(timer)
      if (unsubscribe) unsubscribe()
      resolve(r)
    }
    Promise.resolve(p).then(
      (value) => finish({ value }),
      (error) => finish({ error }),
    )
    if (signal) {
      if (signal.aborted) return finish({ cut: 'signal' })
      unsubscribe = onAbort(signal, () => finish({ cut: 'signal' }))
    }
    if (ms !== null && ms !== undefined) timer = setTimeout(() => finish({ cut: 'timeout' }), Math.max(0, ms))
  })
}

module.exports = { invoke, settle }
