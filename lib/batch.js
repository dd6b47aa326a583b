'use strict'
// runEvals' batch mode (the transport is the core's: crates/oxeval-core/src/engine/batch/): the
// option's check (every judged scorer needs a disk cache), the session every run joins (run
// option `batchSession`), the scheduling (up to `maxItems` items in flight, the core's default
// 5 000; past it new items come in bulk, once half the slots are free; `concurrency` bounds only the targets; an item holds the session until its scorer runs have started, so no batch
// goes while items are still arriving), `onProgress`, and the session's end.

const native = require('../load-binding.js')
const { typeError } = require('./errors.js')
const { jsType } = require('./json.js')

const OPT = 'OXEVAL_INVALID_OPTIONS'
const READY = Symbol.for('oxeval.batchReady')

/** A `{ id, run }` scorer's batch readiness: `{ ok, message? }`. */
function readiness(scorer) {
  if (typeof scorer[READY] === 'function') return scorer[READY]()
  return { ok: false, message: 'it is not an oxeval scorer (its judge calls are not oxeval\'s to batch)' }
}

/** A FIFO semaphore of `n` slots. */
function semaphore(n) {
  let free = n
  const waiting = []
  return async (fn) => {
    if (free > 0) free--
    else await new Promise((r) => waiting.push(r))
    try {
      return await fn()
    } finally {
      const next = waiting.shift()
      if (next) next()
      else free++
    }
  }
}

/**
 * `n` slots: `tryTake()` takes one if free; `freeAtLeast(k)` resolves once `k` are free (at
 * once if they are); `give()` frees one.
 */
function semaphoreSlots(n) {
  let free = n
  let waiter
  return {
    tryTake: () => (free > 0 ? (free--, true) : false),
    freeAtLeast: (k) =>
      new Promise((r) => {
        if (free >= k) r()
        else waiter = { k, r }
      }),
    give() {
      free++
      if (waiter && free >= waiter.k) {
        const { r } = waiter
        waiter = undefined
        r()
      }
    },
  }
}

/**
 * runEvals' batch mode for `config.batch` over `entries` (`{ id, scorer }`), or null. Throws a
 * TypeError naming the first scorer that cannot batch.
 */
function batchMode(config, entries, concurrency) {
  const opt = config.batch
  if (opt === undefined || opt === null || opt === false) return null
  if (opt !== true && (typeof opt !== 'object' || Array.isArray(opt))) {
    throw typeError(`runEvals: batch must be true or { pollMs?, maxWaitMs?, maxRequests?, maxItems?, flushMs?, retryDirect?, detach?, onProgress? }, got ${jsType(opt)}`, OPT)
  }
  const onProgress = opt === true ? undefined : opt.onProgress
  if (onProgress !== undefined && typeof onProgress !== 'function') throw typeError(`runEvals: batch.onProgress must be a function, got ${jsType(onProgress)}`, OPT)
  const maxItems = opt === true ? undefined : opt.maxItems
  if (maxItems !== undefined && !(Number.isInteger(maxItems) && maxItems >= 1)) throw typeError(`runEvals: batch.maxItems must be an integer ≥ 1 (items in flight at once), got ${typeof maxItems === 'number' ? String(maxItems) : jsType(maxItems)}`, OPT)
  for (const e of entries) {
    const r = readiness(e.scorer)
    if (!r.ok) throw typeError(`runEvals: batch: scorer "${e.id}" cannot batch: ${r.message}`, OPT)
  }
  const { onProgress: _fn, ...data } = opt === true ? {} : opt
  const session = native.createBatchSession(JSON.stringify(data))
  if (!(session instanceof native.NativeBatchSession)) throw typeError(session.message, session.code || OPT)
  // the items in flight at once (batch.maxItems, the core's default): each holds its state
  // until its last stage is answered
  const itemSlots = semaphoreSlots(session.maxItems)
  // the free slots that let new items in once the run is at maxItems: half of them
  const refill = Math.max(1, Math.ceil(session.maxItems / 2))
  const gate = semaphore(concurrency)
  let timer
  let last = ''
  let progressError
  const report = () => {
    if (!onProgress) return
    const p = session.progress()
    const text = JSON.stringify(p)
    if (text === last) return
    last = text
    try {
      const r = onProgress(p)
      if (r && typeof r.then === 'function') r.then(undefined, (e) => (progressError ??= e))
    } catch (e) {
      progressError ??= e
    }
  }
  if (onProgress) {
    timer = setInterval(report, Math.min(1000, Math.max(50, Number(data.pollMs) || 1000)))
    timer.unref()
  }
  let closed
  return {
    runOptions: { batchSession: session.id },
    /** A target call under the `concurrency` bound. */
    target: (fn) => gate(fn),
    /**
     * Start the items, up to `maxItems` at once (a stage of those is one batch): `pull` the next, `start(n, release)`
     * runs it (it calls `release` once its scorer runs have started). Resolves when all ended.
     */
    async feed(pull, start, fail, stopped) {
      const running = new Set()
      // reading the data holds the session: no batch goes while items may still come
      session.hold(1)
      try {
        for (;;) {
          if (stopped()) break
          let n
          try {
            n = await pull()
          } catch (e) {
            fail(e)
            break
          }
          if (!n) break
          if (!itemSlots.tryTake()) {
            // at maxItems, admission is in bulk: the feeder lets go of the session (the items
            // in flight flush without waiting for new ones) until `refill` slots are free, then
            // holds it again while it starts items into every free slot, so those start
            // together and their first requests go as one batch (admitting each item as one
            // ends made a batch of a few lines whenever the others were all waiting)
            session.release(1)
            await itemSlots.freeAtLeast(refill)
            session.hold(1)
            itemSlots.tryTake()
          }
          session.hold(1)
          let held = true
          const release = () => {
            if (held) {
              held = false
              session.release(1)
            }
          }
          const p = Promise.resolve()
            .then(() => start(n, release))
            .catch(fail)
            .finally(() => {
              release()
              itemSlots.give()
              running.delete(p)
            })
          running.add(p)
        }
      } finally {
        session.release(1)
      }
      while (running.size) await Promise.all([...running])
    },
    /** End the session (once): `{ progress, pending, removed }`, the last progress reported. */
    async close() {
      if (!closed) {
        closed = (async () => {
          if (timer) clearInterval(timer)
          report()
          const r = await session.close()
          // a batch record that cannot be read: its requests were not submitted again (their
          // items failed saying so); the user decides what to do with the file
          for (const u of (r && r.unreadable) || []) {
            process.emitWarning(`oxeval: batch record ${u.file} ${u.why}; no batch is submitted with this cache until it is repaired or moved away (see oxeval batch status)`, { code: 'OXEVAL_BATCH_RECORD_UNREADABLE' })
          }
          return r
        })()
      }
      const r = await closed
      if (progressError) throw progressError
      return r
    },
  }
}

module.exports = { batchMode, READY }
