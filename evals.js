'use strict'
// runEvals and summarizeItems: the dataset runner. The math (means, coverage, errors, usage,
// statistics, thresholds, gates, verdict) is the core's (crates/oxeval-core/src/evals.rs,
// through NativeEvalAccumulator); this file schedules items, calls the user's target and
// callbacks, and marshals.

const { performance } = require('node:perf_hooks')
const { setMaxListeners } = require('node:events')

module.exports = function makeEvals({ native, typeError, jsType }) {
  const OPT = 'OXEVAL_INVALID_OPTIONS'

  function check(cond, message) {
    if (!cond) throw typeError(`runEvals: ${message}`, OPT)
  }

  /** The native accumulator, or a TypeError. */
  function accumulator(config) {
    const made = native.createEvalAccumulator(JSON.stringify(config))
    if (!(made instanceof native.NativeEvalAccumulator)) throw typeError(`runEvals: ${made.message}`, made.code || OPT)
    return made
  }

  function unwrap(outcome) {
    if (outcome.ok) return outcome.value
    throw typeError(`runEvals: ${outcome.message || (outcome.error && outcome.error.message)}`, outcome.code || OPT)
  }

  const isScorer = (s) => s !== null && typeof s === 'object' && typeof s.id === 'string' && typeof s.run === 'function'

  /** `scorers` entries → `[{ id, scorer, threshold? }]`. */
  function entriesOf(list, key, allowThreshold) {
    if (list === undefined || list === null) return []
    check(Array.isArray(list), `${key} must be an array of scorers${allowThreshold ? ' or { scorer, threshold }' : ''}, got ${jsType(list)}`)
    return list.map((e, i) => {
      if (allowThreshold && e !== null && typeof e === 'object' && 'scorer' in e && !isScorer(e)) {
        check(isScorer(e.scorer), `${key}[${i}].scorer must be a scorer (an object with an id and a run() method)`)
        check('threshold' in e, `${key}[${i}] has a scorer but no threshold`)
        return { id: e.scorer.id, scorer: e.scorer, threshold: e.threshold }
      }
      check(isScorer(e), `${key}[${i}] must be a scorer (an object with a string id and a run() method)${allowThreshold ? ' or { scorer, threshold }' : ''}, got ${jsType(e)}`)
      return { id: e.id, scorer: e }
    })
  }

  function errorJson(e) {
    const out = { name: (e && e.name) || 'Error', message: e && e.message !== undefined ? String(e.message) : String(e) }
    if (e && typeof e.code === 'string') out.code = e.code
    if (e && typeof e.failedStep === 'string') out.failedStep = e.failedStep
    return out
  }

  /** What the accumulator needs of a judge record: calls and usage. */
  function judgeUsage(judge) {
    if (!judge || typeof judge !== 'object') return undefined
    const out = {}
    for (const [step, rec] of Object.entries(judge)) {
      const ex = rec && Array.isArray(rec.executions) ? rec.executions : []
      out[step] = { executions: ex.map((x) => ({ modelCallCount: x && x.modelCallCount, usage: x && x.usage })) }
    }
    return out
  }

  /** The target's answer as the scorers' `output`: an Agent's response messages, else its text, else itself. */
  function outputOf(r) {
    if (r !== null && typeof r === 'object') {
      const msgs = r.response && Array.isArray(r.response.messages) ? r.response.messages : undefined
      if (msgs && msgs.length > 0) return msgs
      if (typeof r.text === 'string') return r.text
    }
    return r
  }

  async function callTarget(target, item, signal) {
    if (typeof target === 'function') return { targetResult: undefined, output: await target(item.input, item) }
    const opts = {}
    if (item.requestContext !== undefined) opts.requestContext = item.requestContext
    if (signal) opts.abortSignal = signal
    const r = await target.generate(item.input, opts)
    return { targetResult: r, output: outputOf(r) }
  }

  async function runEvals(config) {
    check(config !== null && typeof config === 'object' && !Array.isArray(config), `expects one options object, got ${jsType(config)}`)
    const { data, target, onItemComplete, signal } = config
    const scorers = entriesOf(config.scorers, 'scorers', true)
    const gates = entriesOf(config.gates, 'gates', false)
    check(scorers.length + gates.length > 0, 'give at least one scorer (scorers) or gate (gates)')
    check(
      data !== null && data !== undefined && typeof data !== 'string' && (typeof data[Symbol.iterator] === 'function' || typeof data[Symbol.asyncIterator] === 'function'),
      `data must be an array (or an iterable / async iterable) of items, got ${jsType(data)}`,
    )
    check(target === undefined || target === null || typeof target === 'function' || (typeof target === 'object' && typeof target.generate === 'function'), 'target must be an async function (input, item) => output or an object with a generate() method (an Agent)')
    const concurrency = config.concurrency ?? 8
    check(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 10000, `concurrency must be an integer in [1, 10000], got ${String(concurrency)}`)
    check(onItemComplete === undefined || onItemComplete === null || typeof onItemComplete === 'function', 'onItemComplete must be a function')
    check(signal === undefined || signal === null || signal instanceof AbortSignal, `signal must be an AbortSignal, got ${jsType(signal)}`)
    const itemIdOf = config.itemId
    check(itemIdOf === undefined || itemIdOf === null || typeof itemIdOf === 'function', 'itemId must be a function (item, index) => string')
    const keepItems = config.keepItems ?? true
    check(typeof keepItems === 'boolean', `keepItems must be a boolean, got ${jsType(keepItems)}`)
    const acc = accumulator({
      scorers: scorers.map((s) => (s.threshold === undefined ? { id: s.id } : { id: s.id, threshold: s.threshold })),
      gates: gates.map((g) => ({ id: g.id })),
      trials: config.trials ?? null,
    })
    const trials = Number(config.trials ?? 1)
    const all = [...scorers, ...gates]
    const started = performance.now()
    const items = []
    let stop = false
    let failure
    let aborted = false
    // every run in flight listens for the abort: one internal signal (no listener limit),
    // fired by the user's
    const inner = signal ? new AbortController() : undefined
    if (inner) setMaxListeners(0, inner.signal)
    const runSignal = inner ? inner.signal : undefined
    const onAbort = () => {
      stop = true
      aborted = true
      inner.abort(signal.reason)
    }
    if (signal) {
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, { once: true })
    }

    const it = typeof data[Symbol.asyncIterator] === 'function' ? data[Symbol.asyncIterator]() : data[Symbol.iterator]()
    let next = 0
    let exhausted = false
    let pulling = Promise.resolve()
    const pull = () => {
      const p = pulling.then(async () => {
        if (exhausted || stop) return null
        const r = await it.next()
        if (r.done) {
          exhausted = true
          return null
        }
        return { item: r.value, index: next++ }
      })
      pulling = p.catch(() => {})
      return p
    }

    let chain = Promise.resolve()
    const complete = (r) => {
      chain = chain.then(() => onItemComplete(r))
      return chain
    }

    async function runScorer(entry, runInput, itemId) {
      const out = []
      // itemId names the item in the response cache's records (a replay miss says which item)
      const runOptions = runSignal ? { signal: runSignal, itemId } : { itemId }
      await Promise.all(
        Array.from({ length: trials }, async (_, t) => {
          try {
            const result = await entry.scorer.run(runInput, runOptions)
            out[t] = { ok: true, result }
          } catch (e) {
            out[t] = { ok: false, error: e }
          }
        }),
      )
      return out
    }

    async function runItem(raw, index) {
      const t0 = performance.now()
      const isObj = raw !== null && typeof raw === 'object' && !Array.isArray(raw)
      const item = isObj ? raw : {}
      const r = { index }
      if (isObj && item.id !== undefined) r.id = item.id
      r.input = item.input
      let output = item.output
      let targetResult
      if (!isObj) {
        r.targetError = { name: 'TypeError', message: `data item ${index} must be an object { input, output?, groundTruth?, … }, got ${jsType(raw)}`, code: 'OXEVAL_INVALID_INPUT' }
      } else if (target) {
        try {
          ;({ targetResult, output } = await callTarget(target, item, runSignal))
        } catch (e) {
          r.targetError = errorJson(e)
          if (aborted && r.targetError.name === 'AbortError') return null
        }
      } else if (!('output' in item)) {
        r.targetError = { name: 'TypeError', message: `data item ${index} has no output, and runEvals has no target to produce one`, code: 'OXEVAL_INVALID_INPUT' }
      }
      r.output = output
      if (item.groundTruth !== undefined) r.groundTruth = item.groundTruth
      r.results = {}
      r.errors = {}
      const runs = {}
      if (!r.targetError) {
        // the item's own fields reach the scorers (groundTruth, context, requestContext, and any
        // field a scorer reads from its run, e.g. summarization's `source`); `id` is the item's
        const runInput = {}
        for (const k of Object.keys(item)) if (k !== 'id' && item[k] !== undefined) runInput[k] = item[k]
        runInput.input = item.input
        runInput.output = output
        const custom = itemIdOf ? itemIdOf(raw, index) : undefined
        const itemId = typeof custom === 'string' && custom !== '' ? custom.slice(0, 256) : typeof item.id === 'string' || typeof item.id === 'number' ? String(item.id).slice(0, 256) || `#${index}` : `#${index}`
        const outcomes = await Promise.all(all.map((e) => runScorer(e, runInput, itemId)))
        if (aborted && outcomes.some((o) => o.some((x) => !x.ok && x.error && x.error.name === 'AbortError'))) return null
        all.forEach((e, k) => {
          const o = outcomes[k]
          runs[e.id] = o.map((x) => (x.ok ? { score: x.result.score, judge: judgeUsage(x.result.judge) } : { judge: judgeUsage(x.error && x.error.result && x.error.result.judge) }))
          const firstOk = o.find((x) => x.ok)
          if (firstOk) r.results[e.id] = firstOk.result
          else r.errors[e.id] = errorJson(o[0].error)
        })
      }
      const added = unwrap(acc.add(JSON.stringify({ index, targetError: Boolean(r.targetError), runs })))
      if (trials > 1 && Object.keys(added.trials).length > 0) r.trials = added.trials
      r.usage = added.usage
      r.durationMs = performance.now() - t0
      if (keepItems) items.push(r)
      if (onItemComplete) {
        const view = Object.assign(Object.create(null), r)
        // Mastra's onItemComplete fields
        view.item = raw
        view.targetResult = targetResult
        view.scorerResults = r.results
        await complete(view)
      }
      return r
    }

    const worker = async () => {
      for (;;) {
        if (stop) return
        let n
        try {
          n = await pull()
        } catch (e) {
          stop = true
          failure = failure || e
          return
        }
        if (!n) return
        try {
          await runItem(n.item, n.index)
        } catch (e) {
          stop = true
          failure = failure || e
          return
        }
      }
    }
    try {
      await Promise.all(Array.from({ length: concurrency }, worker))
      await chain
    } finally {
      if (signal) signal.removeEventListener('abort', onAbort)
    }
    if (failure) throw failure
    const result = unwrap(acc.summary())
    if (keepItems) result.items = items.sort((a, b) => a.index - b.index)
    result.durationMs = performance.now() - started
    if (aborted) result.aborted = true
    return result
  }

  /**
   * The aggregates of per-item results (runEvals' `items`, or the CLI's JSONL lines; shards
   * merged): `{ items, scorers: [{ id, threshold? }], gates?: [id | { id }], trials? }`.
   */
  function summarizeItems(config) {
    if (config === null || typeof config !== 'object') throw typeError('summarizeItems: expects { items, scorers, gates?, trials? }', OPT)
    const { items } = config
    if (!Array.isArray(items)) throw typeError(`summarizeItems: items must be an array, got ${jsType(items)}`, OPT)
    const scorers = (config.scorers ?? []).map((s) => (typeof s === 'string' ? { id: s } : s))
    const gates = (config.gates ?? []).map((g) => (typeof g === 'string' ? { id: g } : { id: g.id }))
    const acc = accumulator({ scorers, gates, trials: config.trials ?? null })
    const ids = [...scorers, ...gates].map((s) => s.id)
    for (const item of items) {
      const runs = {}
      if (!item.targetError) {
        for (const id of ids) {
          const usage = item.usage && item.usage[id]
          const trial = item.trials && item.trials[id]
          let list
          if (trial && Array.isArray(trial.scores)) list = trial.scores.map((s) => (typeof s === 'number' ? { score: s } : {}))
          else if (item.results && item.results[id]) list = [{ score: item.results[id].score }]
          else if (item.errors && item.errors[id]) list = [{}]
          else continue
          if (usage && list.length > 0) list[0].usage = usage
          runs[id] = list
        }
      }
      unwrap(acc.add(JSON.stringify({ index: item.index, targetError: Boolean(item.targetError), runs })))
    }
    return unwrap(acc.summary())
  }

  return { runEvals, summarizeItems }
}
