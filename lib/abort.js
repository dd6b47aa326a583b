'use strict'
// Many waits on one AbortSignal: runEvals hands its signal to every scorer run, target call and
// wait of every item in flight (in batch mode, all of them at once). Node's EventTarget walks
// its whole listener list on each addEventListener (to drop duplicates), so thousands of
// listeners on one signal made starting and finishing runs quadratic (14 % of a 4 000-item
// batch run's CPU was addEventListener/removeEventListener). Here a signal gets ONE listener
// and a Set of callbacks: subscribing and unsubscribing are O(1).

const subscribers = new WeakMap()

/**
 * Call `fn` once when `signal` aborts (not if it already has: check `signal.aborted` first, as
 * with addEventListener). Returns the function that unsubscribes. Callbacks run in the order
 * they subscribed; one that throws does not stop the others (its error is reported as an
 * uncaught exception, as an event listener's would be).
 */
function onAbort(signal, fn) {
  let set = subscribers.get(signal)
  if (set === undefined) {
    set = new Set()
    subscribers.set(signal, set)
    const fire = () => {
      const fns = [...set]
      set.clear()
      for (const f of fns) {
        try {
          f()
        } catch (e) {
          queueMicrotask(() => {
            throw e
          })
        }
      }
    }
    signal.addEventListener('abort', fire, { once: true })
  }
  set.add(fn)
  return () => set.delete(fn)
}

module.exports = { onAbort }
