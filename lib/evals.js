'use strict'
// runEvals and summarizeItems: the dataset runner. The math (means, coverage, errors, usage,
// statistics, thresholds, gates, verdict) is the core's (crates/oxeval-core/src/evals.rs,
// through NativeEvalAccumulator); this file schedules items, calls the user's target and
// callbacks, and marshals.

const { performance } = require('node:perf_hooks')
const { setMaxListeners } = require('node:events')

const native = require('../load-binding.js')
const { typeError } = require('./errors.js')
const { jsType } = require('./json.js')
const { PREPARED, Scorer } = require('./scorer.js')
const { onAbort } = require('./abort.js')
const { batchMode } = require('./batch.js')
const conv = require('./conversation.js')

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

/**
 * `scorers`: an array (bare or `{ scorer, threshold }`), or Mastra's `{ agent?, trajectory? }`
 * (AgentScorerConfig): each entry then carries its category (the core checks that a
 * trajectory one is a trajectory scorer). → `{ entries, categorized }`.
 */
function scorerLists(list) {
  if (list !== null && typeof list === 'object' && !Array.isArray(list) && !isScorer(list)) {
    const other = Object.keys(list).filter((k) => k !== 'agent' && k !== 'trajectory')
    check(
      other.length === 0,
      `scorers must be an array of scorers or { scorer, threshold }, or { agent?, trajectory? } (Mastra's AgentScorerConfig), got an object with ${other.length === 1 ? 'the key' : 'keys'} ${other.join(', ')}${other.some((k) => k === 'workflow' || k === 'steps') ? " (oxeval's runEvals has no Workflow targets)" : ''}`,
    )
    const agent = entriesOf(list.agent, 'scorers.agent', true).map((e) => ({ ...e, category: 'agent' }))
    const trajectory = entriesOf(list.trajectory, 'scorers.trajectory', true).map((e) => ({ ...e, category: 'trajectory' }))
    return { entries: [...agent, ...trajectory], categorized: true }
  }
  return { entries: entriesOf(list, 'scorers', true), categorized: false }
}

function errorJson(e) {
  const out = { name: (e && e.name) || 'Error', message: e && e.message !== undefined ? String(e.message) : String(e) }
  if (e && typeof e.code === 'string') out.code = e.code
  if (e && typeof e.failedStep === 'string') out.failedStep = e.failedStep
  const status = e && (typeof e.status === 'number' ? e.status : e.cause && typeof e.cause.status === 'number' ? e.cause.status : undefined)
  if (status !== undefined) out.status = status
  return out
}

/** What the core's outcome needs of a failure: its code, HTTP status and message. */
function errorSignature(e) {
  const j = errorJson(e)
  const out = { code: j.code ?? 'OXEVAL_SCORER_FAILED', message: j.message }
  if (j.status !== undefined) out.status = j.status
  return out
}

/** A number option for the core: Infinity means "no limit" (a large count); other non-finite values are text, so the core names them. */
function countData(v) {
  if (v === Infinity) return 9e15
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v)
  return v ?? null
}

/** The scorer facts the core uses: which way is better, the score range, Mastra's `type` (routing). */
function scorerInfo(entry) {
  const o = { ...conv.scorerFacts(entry.scorer), id: entry.id }
  if (entry.category !== undefined) o.category = entry.category
  return o
}

/** The run policy for the core (see evals.rs): maxErrors, minCoverage, gatePassRate, partial, stopEarly. */
function policyOf(config) {
  return {
    maxErrors: countData(config.maxErrors),
    minCoverage: config.minCoverage ?? null,
    gatePassRate: config.gatePassRate ?? null,
    partial: config.partial ?? null,
    stopEarly: config.stopEarly ?? null,
  }
}

/** A data item the caller already knows is unusable (the CLI's unreadable rows): its message. */
const INVALID_ITEM = Symbol.for('oxeval.invalidItem')

/** What the accumulator needs of a judge record: calls and usage. */
function judgeUsage(judge) {
  if (!judge || typeof judge !== 'object') return undefined
  const out = {}
  for (const [step, rec] of Object.entries(judge)) {
    const ex = rec && Array.isArray(rec.executions) ? rec.executions : []
    out[step] = { executions: ex.map((x) => (x && x.batch ? { modelCallCount: x.modelCallCount, usage: x.usage, batch: x.batch } : { modelCallCount: x && x.modelCallCount, usage: x && x.usage })) }
  }
  return out
}

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
 * This is how runEvals never waits forever for code that ignores its signal.
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

/** A number option as data for the core: a non-finite number or a non-JSON value is described. */
function msData(v) {
  if (v === undefined || v === null || typeof v === 'string' || typeof v === 'boolean') return v
  if (typeof v === 'number') return Number.isFinite(v) ? v : { jsType: 'number', nonFinite: String(v) }
  return { jsType: jsType(v) }
}

async function runEvals(config) {
  check(config !== null && typeof config === 'object' && !Array.isArray(config), `expects one options object, got ${jsType(config)}`)
  const { data, target, onItemComplete, signal, targetOptions } = config
  const { entries: scorers, categorized } = scorerLists(config.scorers)
  const gates = entriesOf(config.gates, 'gates', false)
  check(
    data !== null && data !== undefined && typeof data !== 'string' && (typeof data[Symbol.iterator] === 'function' || typeof data[Symbol.asyncIterator] === 'function'),
    `data must be an array (or an iterable / async iterable) of items, got ${jsType(data)}`,
  )
  check(scorers.length + gates.length > 0 || conv.hasTurnAssertions(data), 'give at least one scorer (scorers) or gate (gates), or per-turn gates / scorers in turns items')
  check(target === undefined || target === null || typeof target === 'function' || (typeof target === 'object' && typeof target.generate === 'function'), 'target must be an async function (input, { item, signal, index, ...item }) => output or an object with a generate() method (an Agent)')
  const agent = target !== null && typeof target === 'object' ? target : null
  check(targetOptions === undefined || targetOptions === null || (typeof targetOptions === 'object' && !Array.isArray(targetOptions)), `targetOptions must be an object (options for the Agent's generate()), got ${jsType(targetOptions)}`)
  check(targetOptions === undefined || targetOptions === null || agent !== null, "targetOptions are passed to an Agent target's generate(); this run's target is not an Agent")
  const targetKind = agent ? 'agent' : typeof target === 'function' ? 'function' : 'none'
  const concurrency = config.concurrency ?? 8
  check(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 10000, `concurrency must be an integer in [1, 10000], got ${String(concurrency)}`)
  check(onItemComplete === undefined || onItemComplete === null || typeof onItemComplete === 'function', 'onItemComplete must be a function')
  check(signal === undefined || signal === null || signal instanceof AbortSignal, `signal must be an AbortSignal, got ${jsType(signal)}`)
  const itemIdOf = config.itemId
  check(itemIdOf === undefined || itemIdOf === null || typeof itemIdOf === 'function', 'itemId must be a function (item, index) => string')
  const keepItems = config.keepItems ?? true
  check(typeof keepItems === 'boolean', `keepItems must be a boolean, got ${jsType(keepItems)}`)
  // the bounds on the user code runEvals calls are the core's (run.rs EvalBounds):
  // callbackTimeoutMs (one onItemComplete call; passed on to every scorer run, whose
  // callbacks it bounds), targetTimeoutMs (one target call), the grace after an abort
  const bounds = unwrap(native.evalBounds(JSON.stringify({ callbackTimeoutMs: msData(config.callbackTimeoutMs), targetTimeoutMs: msData(config.targetTimeoutMs) })))
  const acc = accumulator({
    scorers: scorers.map((s) => (s.threshold === undefined ? scorerInfo(s) : { ...scorerInfo(s), threshold: s.threshold })),
    categorized,
    gates: gates.map(scorerInfo),
    trials: config.trials ?? null,
    ...policyOf(config),
  })
  const trials = Number(config.trials ?? 1)
  // Mastra's routing (the core's): the scorers under scorers.trajectory and the trajectory
  // gates receive the item's trajectory as their output
  const routed = new Set(acc.routes().trajectory)
  const all = [...scorers, ...gates].map((e) => ({ ...e, trajectory: routed.has(e.id) }))
  const warnings = []
  let memoryChecked = false
  // batch mode (lib/batch.js): every item in flight, the runs in one batch session
  const batching = batchMode(config, all, concurrency)
  const started = performance.now()
  const items = []
  let stop = false
  let failure
  let aborted = false
  let startedItems = 0
  let finishedItems = 0
  // `halt` stops the run: the user's abort, or a failure that rejects it. Every run in
  // flight listens to it (one internal signal: no listener limit), and every wait on user
  // code is cut off when it fires. `closed` fires when runEvals settles: nothing of the
  // user's is called after that.
  const halt = new AbortController()
  setMaxListeners(0, halt.signal)
  // `work` cuts the work in flight (targets, scorer runs): on a halt, and when the core says
  // the run should stop early (its first runs all failed the same persistent way); then the
  // rest of the data is still read and recorded as not run, so no item is lost
  const work = new AbortController()
  setMaxListeners(0, work.signal)
  let stoppedEarly = null
  let batchInfo
  let haltedAt
  const halting = (reason) => {
    if (halt.signal.aborted) return
    haltedAt = performance.now()
    halt.abort(reason)
    work.abort(reason)
  }
  const closed = new AbortController()
  const onUserAbort = () => {
    stop = true
    aborted = true
    halting(signal.reason)
  }
  if (signal) {
    if (signal.aborted) onUserAbort()
    else signal.addEventListener('abort', onUserAbort, { once: true })
  }
  const fail = (e) => {
    stop = true
    if (!failure) failure = { error: e }
    halting(new DOMException('runEvals stopped: an error ends the run', 'AbortError'))
  }
  const scorerRunOptions = bounds.callbackTimeoutSet ? { callbackTimeoutMs: config.callbackTimeoutMs } : {}
  if (batching) Object.assign(scorerRunOptions, batching.runOptions)

  const it = typeof data[Symbol.asyncIterator] === 'function' ? data[Symbol.asyncIterator]() : data[Symbol.iterator]()
  let next = 0
  let exhausted = false
  let pulling = Promise.resolve()
  const pull = (drain = false) => {
    const p = pulling.then(async () => {
      if (exhausted || (stop && !drain) || halt.signal.aborted) return null
      // a data source that stalls in next() is cut off by the abort
      const r = await settle(invoke(() => it.next()), halt.signal)
      if (r.cut) return null
      if ('error' in r) throw r.error
      if (r.value.done) {
        exhausted = true
        return null
      }
      return { item: r.value.value, index: next++ }
    })
    pulling = p.catch(() => {})
    return p
  }

  const timeoutError = (what, option, ms, code) => {
    const e = new Error(`runEvals: ${what} did not settle within ${ms} ms (runEvals option ${option})`)
    e.name = 'TimeoutError'
    e.code = code
    return e
  }
  // onItemComplete: one call at a time, in completion order; each call bounded by
  // callbackTimeoutMs (then the run rejects, as when it throws); none after runEvals settled
  let chain = Promise.resolve()
  const complete = (view) => {
    chain = chain.then(async () => {
      if (closed.signal.aborted) return
      const r = await settle(
        invoke(() => onItemComplete(view)),
        closed.signal,
        bounds.callbackTimeoutMs,
      )
      if ('error' in r) throw r.error
      if (r.cut === 'timeout') throw timeoutError('onItemComplete', 'callbackTimeoutMs', bounds.callbackTimeoutMs, 'OXEVAL_CALLBACK_TIMEOUT')
    })
    return chain
  }

  /**
   * The item's target: `{ targetResult, output }`, `{ targetError }`, or null when the run
   * stopped first (the item does not finish). Its signal fires on abort and on the timeout.
   */
  async function callTarget(item, index, turn) {
    const ctl = new AbortController()
    const onHalt = () => ctl.abort(work.signal.reason)
    let unsubscribe
    if (work.signal.aborted) onHalt()
    else unsubscribe = onAbort(work.signal, onHalt)
    let timedOut = false
    let timer
    if (bounds.targetTimeoutMs !== null) {
      timer = setTimeout(() => {
        timedOut = true
        ctl.abort(new DOMException(`target did not settle within ${bounds.targetTimeoutMs} ms (runEvals option targetTimeoutMs)`, 'TimeoutError'))
      }, bounds.targetTimeoutMs)
    }
    try {
      let r
      const input = turn ? turn.input : item.input
      if (typeof target === 'function') {
        // the new form's context, spread over the item: code reading item fields from the
        // second argument keeps working; a conversation's turn also says which turn and thread
        const ctx = { ...item, item, signal: ctl.signal, index }
        if (turn) Object.assign(ctx, { turn: { index: turn.index, count: turn.count }, threadId: turn.threadId, resourceId: turn.resourceId })
        r = await settle(invoke(() => target(input, ctx)), ctl.signal)
      } else {
        const opts = conv.agentCallOptions(targetOptions, item, ctl.signal, turn && turn.memory)
        r = await settle(invoke(() => target.generate(input, opts)), ctl.signal)
      }
      if (timedOut) {
        return { targetError: { name: 'TimeoutError', message: `target did not settle within ${bounds.targetTimeoutMs} ms (runEvals option targetTimeoutMs); its signal was aborted`, code: 'OXEVAL_TARGET_TIMEOUT' } }
      }
      if (r.cut) return null
      if ('error' in r) {
        const targetError = errorJson(r.error)
        if (aborted && targetError.name === 'AbortError') return null
        return { targetError }
      }
      if (typeof target === 'function') return { targetResult: undefined, output: r.value }
      const a = conv.agentOutput(r.value)
      return { targetResult: r.value, output: a.output, scoredInput: a.input }
    } finally {
      if (timer !== undefined) clearTimeout(timer)
      if (unsubscribe) unsubscribe()
    }
  }

  async function runScorer(entry, runInput, runOptions) {
    const out = []
    await Promise.all(
      Array.from({ length: trials }, async (_, t) => {
        // a scorer that ignores the signal is cut off when the run stops
        // a later trial is its own judge request (its own cache key and batch line): N
        // trials are N samples, with a cache and in batch mode too
        const options = t === 0 ? runOptions : { ...runOptions, trial: t + 1 }
        const r = await settle(
          invoke(() => entry.scorer.run(runInput, options)),
          work.signal,
        )
        out[t] = r.cut ? { ok: false, cut: true } : 'error' in r ? { ok: false, error: r.error } : { ok: true, result: r.value }
      }),
    )
    return out
  }

  /** `{ name, code, message }` of an item the run stopped before running. */
  // short: a stopped run of 100 000 items writes it 100 000 times; the full reason is the
  // run's `stopped` (and its outcome)
  const notRun = () => ({ name: 'RunStoppedError', code: 'OXEVAL_RUN_STOPPED', message: 'not run: the run stopped early (see the run summary\'s `stopped`: its first runs failed in a way retrying cannot change)' })

  /** One entry's runs of an item as the core counts them, and the item's result/error for it. */
  function record(e, o, runs, results, errors) {
    runs[e.id] = o.map((x) => (x.ok ? (x.result.notScorable ? { notScorable: true, judge: judgeUsage(x.result.judge) } : { score: x.result.score, judge: judgeUsage(x.result.judge) }) : { error: errorSignature(x.error), judge: judgeUsage(x.error && x.error.result && x.error.result.judge) }))
    const firstOk = o.find((x) => x.ok)
    if (firstOk) results[e.id] = firstOk.result
    else errors[e.id] = errorJson(o[0].error)
  }

  /**
   * The runs of some entries on one run input: an entry routed to the trajectory receives
   * `trajectory` as its output (or, when it could not be extracted, fails with its error).
   */
  function runAll(entries, runInput, trajectory, itemId) {
    // itemId names the item in the response cache's records (a replay miss says which item);
    // one options object for the item's scorers: what they share is made once (PREPARED)
    const runOptions = { ...scorerRunOptions, signal: work.signal, itemId, [PREPARED]: { json: new WeakMap() } }
    let routed
    return entries.map((e) => {
      // a scorer that runs user code as it starts (createScorer's prepareRun, a Mastra
      // scorer) may change the run: the scorers started after it make their JSON afresh
      if (!(e.scorer instanceof Scorer)) runOptions[PREPARED] = { json: new WeakMap() }
      if (!e.trajectory) return runScorer(e, runInput, runOptions)
      if (trajectory.error) return Promise.resolve(Array.from({ length: trials }, () => ({ ok: false, error: trajectory.error })))
      return runScorer(e, (routed ??= { ...runInput, output: trajectory.value }), runOptions)
    })
  }

  async function runItem(raw, index, preError, launched) {
    const t0 = performance.now()
    const isObj = raw !== null && typeof raw === 'object' && !Array.isArray(raw)
    const item = isObj ? raw : {}
    // the core checks the labels before the target or any judge call for this item
    if (item.expected !== undefined) unwrap(acc.checkLabels(JSON.stringify({ index, expected: item.expected })))
    // a multi-turn item (inputs, turns): its form and shape are the core's to judge (a
    // TypeError naming the item and the field), before its target or any judge call
    const usable = isObj && !preError && typeof item[INVALID_ITEM] !== 'string'
    const plan = usable && conv.isMultiTurn(item) ? unwrap(acc.planItem(JSON.stringify(conv.describeItem(item, index, targetKind)))) : { mode: 'single' }
    const multi = plan.mode !== 'single'
    const r = { index }
    if (isObj && item.id !== undefined) r.id = item.id
    // what the scorers see as the input: a conversation's first turn (Mastra's rule)
    const inputs = multi ? conv.turnInputs(item, plan) : null
    r.input = multi ? inputs[0] : item.input
    if (plan.mode === 'inputs') r.inputs = item.inputs
    let output = item.output
    let scoredInput
    let targetResult
    let conversation = null
    if (preError) {
      r.targetError = preError
    } else if (isObj && typeof item[INVALID_ITEM] === 'string') {
      r.targetError = { name: 'TypeError', message: item[INVALID_ITEM], code: 'OXEVAL_INVALID_INPUT' }
    } else if (!isObj) {
      r.targetError = { name: 'TypeError', message: `data item ${index} must be an object { input, output?, groundTruth?, … }, got ${jsType(raw)}`, code: 'OXEVAL_INVALID_INPUT' }
    } else if (plan.invalid) {
      r.targetError = { name: 'TypeError', message: plan.invalid, code: 'OXEVAL_INVALID_INPUT' }
    } else if (multi && target) {
      if (agent && !memoryChecked) {
        memoryChecked = true
        const w = await settle(conv.memoryWarning(agent, item), halt.signal)
        if (w.value) warnings.push(w.value)
      }
      const c = await conv.converse(inputs, agent ? targetOptions : undefined, (input, turn) => (batching ? batching.target(() => callTarget(item, index, { ...turn, input })) : callTarget(item, index, { ...turn, input })))
      if (c === null) return stoppedEarly && !halt.signal.aborted ? runItem(raw, index, notRun()) : null
      if (c.targetError) r.targetError = c.targetError
      else ({ targetResult, output } = c), (conversation = c.turns)
    } else if (multi) {
      const c = conv.recorded(item, plan)
      output = c.output
      conversation = c.turns
    } else if (target) {
      const t = await (batching ? batching.target(() => callTarget(item, index)) : callTarget(item, index))
      if (t === null) return stoppedEarly && !halt.signal.aborted ? runItem(raw, index, notRun()) : null
      if (t.targetError) r.targetError = t.targetError
      else ({ targetResult, output, scoredInput } = t)
    } else if (!('output' in item)) {
      r.targetError = { name: 'TypeError', message: `data item ${index} has no output, and runEvals has no target to produce one`, code: 'OXEVAL_INVALID_INPUT' }
    }
    r.output = output
    if (item.groundTruth !== undefined) r.groundTruth = item.groundTruth
    if (item.expected !== undefined) r.expected = item.expected
    r.results = {}
    r.errors = {}
    const runs = {}
    // per turn (a turns item): its assertions with their scorer objects, and what it records
    const turnPlans = plan.mode === 'turns' ? plan.turns.map((p, k) => ({ entries: conv.turnEntries(item.turns[k], p), runs: {}, results: {}, errors: {} })) : []
    if (!r.targetError) {
      // the item's own fields reach the scorers (groundTruth, context, requestContext,
      // expectedTrajectory, and any field a scorer reads from its run, e.g. summarization's
      // `source`); `id` is the item's, `expected` the user's labels, `inputs`/`turns` its turns
      const base = {}
      for (const k of Object.keys(item)) if (k !== 'id' && k !== 'expected' && k !== 'inputs' && k !== 'turns' && item[k] !== undefined) base[k] = item[k]
      // an Agent's single answer: its scorer data's input (Mastra's scoringData.input)
      const runInput = { ...base, input: scoredInput !== undefined ? scoredInput : r.input, output }
      const custom = itemIdOf ? itemIdOf(raw, index) : undefined
      const itemId = typeof custom === 'string' && custom !== '' ? custom.slice(0, 256) : typeof item.id === 'string' || typeof item.id === 'number' ? String(item.id).slice(0, 256) || `#${index}` : `#${index}`
      const needs = all.some((e) => e.trajectory)
      const trajectory = needs ? conv.trajectoryOf(output) : null
      if (trajectory && trajectory.value) r.trajectory = trajectory.value.steps
      const pending = [Promise.all(runAll(all, runInput, trajectory, itemId))]
      // each turn's assertions see only that turn's input and output (its own trajectory)
      turnPlans.forEach((tp, k) => {
        const turn = conversation[k]
        const turnInput = { ...base, input: turn.input, output: turn.output }
        const tt = tp.entries.some((e) => e.trajectory) ? conv.trajectoryOf(turn.output) : null
        if (tt && tt.value) tp.trajectory = tt.value.steps
        pending.push(Promise.all(runAll(tp.entries, turnInput, tt, itemId)))
      })
      // batch mode: the item's scorer runs have all started (its hold on the session ends)
      if (launched) launched()
      const [outcomes, ...turnOutcomes] = await Promise.all(pending)
      const every = [...outcomes, ...turnOutcomes.flat()]
      // the run stopped while the item's scorers ran: the item did not finish (stopped
      // early: it is recorded as not run)
      const cut = every.some((o) => o.some((x) => x.cut || (!x.ok && work.signal.aborted && x.error && x.error.name === 'AbortError')))
      if (cut && stoppedEarly && !halt.signal.aborted) return runItem(raw, index, notRun())
      if (every.some((o) => o.some((x) => x.cut))) return null
      if (aborted && every.some((o) => o.some((x) => !x.ok && x.error && x.error.name === 'AbortError'))) return null
      all.forEach((e, k) => record(e, outcomes[k], runs, r.results, r.errors))
      turnPlans.forEach((tp, k) => tp.entries.forEach((e, j) => record(e, turnOutcomes[k][j], tp.runs, tp.results, tp.errors)))
    }
    const turnsData = plan.mode === 'turns' ? plan.turns.map((p, k) => ({ gates: p.gates, scorers: p.scorers, runs: turnPlans[k].runs })) : undefined
    const added = unwrap(JSON.parse(acc.add(JSON.stringify({ index, targetError: r.targetError ? errorSignature(r.targetError) : false, runs, expected: r.expected, turns: turnsData }))))
    finishedItems++
    if (added.stop && !stoppedEarly) {
      // the core's early stop: no new item starts, the work in flight is cut, the rest is recorded as not run
      stoppedEarly = added.stop.message
      stop = true
      work.abort(new DOMException(stoppedEarly, 'AbortError'))
    }
    if (trials > 1 && Object.keys(added.trials).length > 0) r.trials = added.trials
    r.usage = added.usage
    if (plan.mode === 'turns') {
      // per turn: what it sent and got, its assertions' results, and their declarations (so
      // summarizeItems and oxeval merge recount the same turnResults)
      r.turns = plan.turns.map((p, k) => {
        const t = { index: k, input: item.turns[k].input, output: conversation ? conversation[k].output : undefined, gates: p.gates, scorers: p.scorers, results: turnPlans[k].results, errors: turnPlans[k].errors }
        if (turnPlans[k].trajectory) t.trajectory = turnPlans[k].trajectory
        const a = added.turns && added.turns[k]
        if (a) {
          if (trials > 1 && Object.keys(a.trials).length > 0) t.trials = a.trials
          t.usage = a.usage
        }
        return t
      })
    }
    r.durationMs = performance.now() - t0
    if (keepItems) items.push(r)
    if (onItemComplete) {
      const view = Object.assign(Object.create(null), r)
      // Mastra's onItemComplete fields (the categorized form: its results by category)
      view.item = raw
      view.targetResult = targetResult
      view.scorerResults = categorized ? byCategory(r.results) : r.results
      // the item has finished: after an abort its call is waited for at the end (within
      // the grace), not here
      const c = await settle(complete(view), halt.signal)
      if ('error' in c) throw c.error
    }
    return r
  }

  /** The categorized form's results as Mastra's onItemComplete gives them: `{ agent?, trajectory? }`. */
  function byCategory(results) {
    const out = {}
    for (const e of scorers) {
      if (!(e.id in results)) continue
      ;(out[e.category] ??= {})[e.id] = results[e.id]
    }
    return out
  }

  const worker = async () => {
    for (;;) {
      if (stop) return
      let n
      try {
        n = await pull()
      } catch (e) {
        fail(e)
        return
      }
      if (!n) return
      startedItems++
      try {
        await runItem(n.item, n.index)
      } catch (e) {
        fail(e)
        return
      }
    }
  }
  try {
    if (batching) {
      await batching.feed(pull, (n, launched) => {
        startedItems++
        return runItem(n.item, n.index, undefined, launched)
      }, fail, () => stop)
    } else await Promise.all(Array.from({ length: concurrency }, worker))
    // stopped early: every item not run yet is read and recorded as not run (no judge call)
    while (stoppedEarly && !failure && !halt.signal.aborted) {
      let n
      try {
        n = await pull(true)
      } catch (e) {
        fail(e)
        break
      }
      if (!n) break
      startedItems++
      try {
        await runItem(n.item, n.index, notRun())
      } catch (e) {
        fail(e)
      }
    }
    // the onItemComplete calls still queued: all of them, unless the run stopped (abort,
    // or a failure meanwhile): then only within the grace after it stopped
    let c = await settle(chain, halt.signal)
    if (c.cut) c = await settle(chain, null, bounds.abortGraceMs - (performance.now() - haltedAt))
    if ('error' in c && !failure) failure = { error: c.error }
  } finally {
    if (batching) batchInfo = await batching.close().catch((e) => { if (!failure) failure = { error: e } })
    closed.abort()
    if (signal) signal.removeEventListener('abort', onUserAbort)
    // a data source left unfinished is closed (a generator's finally blocks run); not awaited
    if (!exhausted && typeof it.return === 'function') {
      Promise.resolve(invoke(() => it.return())).catch(() => {})
    }
  }
  if (failure) throw failure.error
  const result = unwrap(acc.summary(JSON.stringify({ aborted, unfinished: aborted ? startedItems - finishedItems : 0 })))
  if (keepItems) result.items = items.sort((a, b) => a.index - b.index)
  if (warnings.length > 0) result.warnings = warnings
  result.durationMs = performance.now() - started
  if (batchInfo) result.batch = batchInfo
  if (aborted) {
    result.aborted = true
    // items started and cut off by the abort: in no count above
    if (result.summary) result.summary.unfinishedItems = startedItems - finishedItems
  }
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
  const pick = (s) => {
    const o = { id: s.id }
    for (const k of ['threshold', 'direction', 'scale', 'category']) if (s[k] !== undefined) o[k] = s[k]
    // a scorer filed under scorers.trajectory was checked to be one when the items were run
    if (s.category === 'trajectory') o.type = 'trajectory'
    return o
  }
  const scorers = (config.scorers ?? []).map((s) => (typeof s === 'string' ? { id: s } : pick(s)))
  const gates = (config.gates ?? []).map((g) => (typeof g === 'string' ? { id: g } : pick(g)))
  const categorized = scorers.some((s) => s.category !== undefined)
  // recomputing finished results: the early stop is the runner's, not the merge's
  const acc = accumulator({ scorers, gates, categorized, trials: config.trials ?? null, ...policyOf(config), stopEarly: false })
  const ids = [...scorers, ...gates].map((s) => s.id)
  for (const item of items) {
    const turns = Array.isArray(item.turns)
      ? item.turns.map((t) => ({ gates: t.gates, scorers: t.scorers, runs: item.targetError ? {} : recordRuns(t, [...(t.gates || []), ...(t.scorers || [])].map((d) => d.id)) }))
      : undefined
    const runs = item.targetError ? {} : recordRuns(item, ids)
    unwrap(JSON.parse(acc.add(JSON.stringify({ index: item.index, targetError: item.targetError ? errorSignature(item.targetError) : false, runs, expected: item.expected, turns }))))
  }
  return unwrap(acc.summary(JSON.stringify({ aborted: config.aborted === true })))
}

/** The runs of `ids` as a finished record (an item, or one of its turns) keeps them: its results, errors, trials and usage. */
function recordRuns(rec, ids) {
  const runs = {}
  for (const id of ids) {
    const usage = rec.usage && rec.usage[id]
    const trial = rec.trials && rec.trials[id]
    let list
    // a failed trial's own error is not kept; the item's error is, when no trial scored
    const failedRun = rec.errors && rec.errors[id] ? { error: errorSignature(rec.errors[id]) } : {}
    if (trial && Array.isArray(trial.scores)) list = trial.scores.map((s) => (typeof s === 'number' ? { score: s } : failedRun))
    else if (rec.results && rec.results[id]) list = [{ score: rec.results[id].score }]
    else if (rec.errors && rec.errors[id]) list = [{ error: errorSignature(rec.errors[id]) }]
    else continue
    if (usage && list.length > 0) list[0].usage = usage
    runs[id] = list
  }
  return runs
}

module.exports = { runEvals, summarizeItems }
