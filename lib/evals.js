'use strict'
// runEvals and summarizeItems: the dataset runner. The math (means, coverage, errors, usage,
// statistics, thresholds, gates, verdict) is the core's (crates/oxeval-core/src/evals.rs,
// through NativeEvalAccumulator); this file schedules items, calls the user's target and
// callbacks, and marshals.

const { performance } = require('node:perf_hooks')
const { setMaxListeners } = require('node:events')

const { typeError } = require('./errors.js')
const { jsType } = require('./json.js')
const { OPT, accumulator, unwrap, policyOf, checkConfig, planRun } = require('./eval-plan.js')
const { PREPARED, Scorer } = require('./scorer.js')
const { CustomScorer } = require('./custom.js')
const { onAbort } = require('./abort.js')
const { invoke, settle } = require('./settle.js')
const { batchMode } = require('./batch.js')
const conv = require('./conversation.js')
const store = require('./store.js')

const VERSION = require('../package.json').version

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

/** A data item the caller already knows is unusable (the CLI's unreadable rows): its message. */
const INVALID_ITEM = Symbol.for('oxeval.invalidItem')

/** What the core counts of one execution: calls, usage, and for the budget its model, batch and cache hit. */
function executionUsage(x) {
  if (!x || typeof x !== 'object') return { modelCallCount: undefined, usage: undefined }
  const o = { modelCallCount: x.modelCallCount, usage: x.usage }
  if (x.batch) o.batch = x.batch
  if (x.cached) o.cached = true
  if (typeof x.judgeModelId === 'string') o.model = `${x.judgeProvider}/${x.judgeModelId}`
  return o
}

/** What the accumulator needs of a judge record: calls and usage. */
function judgeUsage(judge) {
  if (!judge || typeof judge !== 'object') return undefined
  const out = {}
  for (const [step, rec] of Object.entries(judge)) {
    const ex = rec && Array.isArray(rec.executions) ? rec.executions : []
    out[step] = { executions: ex.map(executionUsage) }
  }
  return out
}

/**
 * runEvals: check the config (stage 1), plan the run (stage 2), then drive the items (stage
 * 4), each item opened, its output produced, scored and recorded (stage 3), and decide the
 * result (stage 5). The state below is the run's: its controllers, counts and queues.
 */
async function runEvals(config) {
  const { data, target, agent, targetKind, targetOptions, onItemComplete, signal, concurrency, itemIdOf, keepItems, scorers, categorized, gates } = checkConfig(config)
  const { bounds, acc, trials, all } = planRun(config, { scorers, categorized, gates })
  // the results store (lib/store.js): `store` or $OXEVAL_STORE; a store that cannot be written
  // never costs the run (result.store says why)
  const storeSpec = store.storeOption(config.store)
  const runFacts = storeSpec ? store.apiRun(config, scorers, gates, VERSION) : null
  const warnings = []
  let memoryChecked = false
  // batch mode (lib/batch.js): every item in flight, the runs in one batch session
  // the budget decides per item before it starts; batch mode admits items in bulk
  if (config.batch && config.maxCost !== undefined && config.maxCost !== null) throw typeError('runEvals: maxCost cannot be combined with batch mode yet (batch mode admits items in bulk); run without batch, or without maxCost', OPT)
  const batching = batchMode(config, all, concurrency)
  const recorder = storeSpec ? store.startRecording(storeSpec, runFacts) : null
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
  // the budget (maxCost, the core's evals/budget.rs): once it refuses, no new item starts;
  // the items in flight finish and the rest is recorded as not run (`budgetStop`)
  let budgetStop = null
  let wakeWaiters = []
  const wake = () => {
    const w = wakeWaiters
    wakeWaiters = []
    for (const f of w) f()
  }
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
    const own = entry.scorer instanceof Scorer || entry.scorer instanceof CustomScorer
    await Promise.all(
      Array.from({ length: trials }, async (_, t) => {
        // a scorer that ignores the signal is cut off when the run stops; one that is not
        // oxeval's (its run is user code throughout) also at callbackTimeoutMs. A later trial
        // is its own judge request (its own cache key and batch line): N trials are N
        // samples, with a cache and in batch mode too
        const options = t === 0 || !own ? runOptions : { ...runOptions, trial: t + 1 }
        const r = own ? await settle(invoke(() => entry.scorer.run(runInput, options)), work.signal) : await runForeign(entry, runInput, runOptions)
        out[t] = r.cut ? { ok: false, cut: true } : 'error' in r ? { ok: false, error: r.error } : { ok: true, result: r.value }
      }),
    )
    return out
  }

  /**
   * One run of a scorer that is not oxeval's (`{ id, run }`, a Mastra scorer): ONE call of
   * user code, bounded by callbackTimeoutMs (default 60 s) as every user callback; its own
   * signal fires on the run's stop and at the bound. A run past the bound is the item's
   * TimeoutError for that scorer (OXEVAL_CALLBACK_TIMEOUT).
   */
  async function runForeign(entry, runInput, runOptions) {
    const ctl = new AbortController()
    let unsubscribe
    if (work.signal.aborted) ctl.abort(work.signal.reason)
    else unsubscribe = onAbort(work.signal, () => ctl.abort(work.signal.reason))
    try {
      const r = await settle(invoke(() => entry.scorer.run(runInput, { ...runOptions, signal: ctl.signal })), work.signal, bounds.callbackTimeoutMs)
      if (r.cut !== 'timeout') return r
      const error = timeoutError(`scorer "${entry.id}": run()`, 'callbackTimeoutMs', bounds.callbackTimeoutMs, 'OXEVAL_CALLBACK_TIMEOUT')
      error.message += '; a scorer that is not oxeval\'s is one user call, bounded as a callback'
      ctl.abort(error)
      return { error }
    } finally {
      if (unsubscribe) unsubscribe()
    }
  }

  /** `{ name, code, message }` of an item the run stopped before running. */
  // short: a stopped run of 100 000 items writes it 100 000 times; the full reason is the
  // run's `stopped` (and its outcome)
  const notRun = () => ({ name: 'RunStoppedError', code: 'OXEVAL_RUN_STOPPED', message: 'not run: the run stopped early (see the run summary\'s `stopped`: its first runs failed in a way retrying cannot change)' })
  const overBudget = () => ({ name: 'BudgetExhaustedError', code: 'OXEVAL_BUDGET_EXHAUSTED', message: 'not run: the judge spend would have passed maxCost (see the run summary\'s `budget`)' })

  /**
   * Whether the item just taken may start (the core's budget; always without maxCost): null,
   * or why not (the budget refused; from then on no item starts). While no item has paid yet
   * the core lets one run at a time: this waits for the one in flight to finish (or the halt).
   */
  async function budgetGate() {
    if (config.maxCost === undefined || config.maxCost === null) return null
    for (;;) {
      if (budgetStop) return overBudget()
      const v = acc.budget(Math.max(0, startedItems - finishedItems - 1))
      if (v === null) return null
      if (!v.wait) {
        budgetStop = v
        stop = true
        return overBudget()
      }
      if (halt.signal.aborted) return null
      await new Promise((resolve) => {
        const off = onAbort(halt.signal, resolve)
        wakeWaiters.push(() => {
          off()
          resolve()
        })
      })
    }
  }

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

  /**
   * Stage 3, run one item: open it, produce its output (its target, or what it recorded),
   * score it, record it. Resolves with its record, or null when the run stopped while it ran
   * (it did not finish); an item the early stop cut is recorded as not run.
   */
  async function runItem(raw, index, preError, launched) {
    const t0 = performance.now()
    const job = openItem(raw, index, preError)
    const { item, r } = job
    let produced = { output: item.output }
    if (!r.targetError) {
      const p = await produce(job)
      if (p === null) return unfinished(raw, index)
      if (p.targetError) r.targetError = p.targetError
      else produced = p
    }
    r.output = produced.output
    if (item.groundTruth !== undefined) r.groundTruth = item.groundTruth
    if (item.expected !== undefined) r.expected = item.expected
    r.results = {}
    r.errors = {}
    const runs = {}
    // per turn (a turns item): its assertions with their scorer objects, and what it records
    const turnPlans = job.plan.mode === 'turns' ? job.plan.turns.map((p, k) => ({ entries: conv.turnEntries(item.turns[k], p), runs: {}, results: {}, errors: {} })) : []
    if (!r.targetError) {
      const s = await scoreItem(job, produced, turnPlans, launched)
      if (s.stopped) return unfinished(raw, index)
      all.forEach((e, k) => record(e, s.outcomes[k], runs, r.results, r.errors))
      turnPlans.forEach((tp, k) => tp.entries.forEach((e, j) => record(e, s.turnOutcomes[k][j], tp.runs, tp.results, tp.errors)))
    }
    return recordItem(job, runs, turnPlans, produced, t0)
  }

  /** An item the run stopped while it ran: recorded as not run after an early stop, else not finished (null). */
  const unfinished = (raw, index) => (stoppedEarly && !halt.signal.aborted ? runItem(raw, index, notRun()) : null)

  /**
   * Stage 3a, open an item: its plan (the core checks its labels and a multi-turn item's form
   * before its target or any judge call), its record `r` (what the scorers see as the input: a
   * conversation's first turn, Mastra's rule), and why it cannot run, if so (`r.targetError`).
   */
  function openItem(raw, index, preError) {
    const isObj = raw !== null && typeof raw === 'object' && !Array.isArray(raw)
    const item = isObj ? raw : {}
    if (item.expected !== undefined) unwrap(acc.checkLabels(JSON.stringify({ index, expected: item.expected })))
    const usable = isObj && !preError && typeof item[INVALID_ITEM] !== 'string'
    const plan = usable && conv.isMultiTurn(item) ? unwrap(acc.planItem(JSON.stringify(conv.describeItem(item, index, targetKind)))) : { mode: 'single' }
    const multi = plan.mode !== 'single'
    const r = { index }
    if (isObj && item.id !== undefined) r.id = item.id
    const inputs = multi ? conv.turnInputs(item, plan) : null
    r.input = multi ? inputs[0] : item.input
    if (plan.mode === 'inputs') r.inputs = item.inputs
    const invalid = (message) => ({ name: 'TypeError', message, code: 'OXEVAL_INVALID_INPUT' })
    if (preError) r.targetError = preError
    else if (isObj && typeof item[INVALID_ITEM] === 'string') r.targetError = invalid(item[INVALID_ITEM])
    else if (!isObj) r.targetError = invalid(`data item ${index} must be an object { input, output?, groundTruth?, … }, got ${jsType(raw)}`)
    else if (plan.invalid) r.targetError = invalid(plan.invalid)
    else if (!multi && !target && !('output' in item)) r.targetError = invalid(`data item ${index} has no output, and runEvals has no target to produce one`)
    return { raw, index, item, plan, multi, inputs, r }
  }

  /**
   * Stage 3b, the item's output: its target's answer (a conversation: its turns in order, on
   * one thread), a recorded conversation's, or the item's own. `{ output, targetResult?,
   * scoredInput?, conversation? }`, `{ targetError }`, or null when the run stopped first.
   */
  async function produce({ item, index, plan, multi, inputs }) {
    const call = (turn) => (batching ? batching.target(() => callTarget(item, index, turn)) : callTarget(item, index, turn))
    if (multi && target) {
      if (agent && !memoryChecked) {
        memoryChecked = true
        const w = await settle(conv.memoryWarning(agent, item), halt.signal, bounds.callbackTimeoutMs)
        if (w.value) warnings.push(w.value)
      }
      const c = await conv.converse(inputs, agent ? targetOptions : undefined, (input, turn) => call({ ...turn, input }))
      if (c === null || c.targetError) return c
      return { targetResult: c.targetResult, output: c.output, conversation: c.turns }
    }
    if (multi) {
      const c = conv.recorded(item, plan)
      return { output: c.output, conversation: c.turns }
    }
    if (target) return call(undefined)
    return { output: item.output }
  }

  /**
   * Stage 3c, score an item: every entry's runs on it (the item's own fields reach the
   * scorers: groundTruth, context, requestContext, expectedTrajectory, any field a scorer
   * reads; `id` is the item's, `expected` the user's labels, `inputs`/`turns` its turns), and
   * each turn's assertions on that turn alone. `{ outcomes, turnOutcomes }`, or `{ stopped }`
   * when the run stopped while they ran.
   */
  async function scoreItem({ raw, index, item, r }, { output, scoredInput, conversation }, turnPlans, launched) {
    const base = {}
    for (const k of Object.keys(item)) if (k !== 'id' && k !== 'expected' && k !== 'inputs' && k !== 'turns' && item[k] !== undefined) base[k] = item[k]
    // an Agent's single answer: its scorer data's input (Mastra's scoringData.input)
    const runInput = { ...base, input: scoredInput !== undefined ? scoredInput : r.input, output }
    const custom = itemIdOf ? itemIdOf(raw, index) : undefined
    const itemId = typeof custom === 'string' && custom !== '' ? custom.slice(0, 256) : typeof item.id === 'string' || typeof item.id === 'number' ? String(item.id).slice(0, 256) || `#${index}` : `#${index}`
    const trajectory = all.some((e) => e.trajectory) ? conv.trajectoryOf(output) : null
    if (trajectory && trajectory.value) r.trajectory = trajectory.value.steps
    const pending = [Promise.all(runAll(all, runInput, trajectory, itemId))]
    turnPlans.forEach((tp, k) => {
      const turn = conversation[k]
      const tt = tp.entries.some((e) => e.trajectory) ? conv.trajectoryOf(turn.output) : null
      if (tt && tt.value) tp.trajectory = tt.value.steps
      pending.push(Promise.all(runAll(tp.entries, { ...base, input: turn.input, output: turn.output }, tt, itemId)))
    })
    // batch mode: the item's scorer runs have all started (its hold on the session ends)
    if (launched) launched()
    const [outcomes, ...turnOutcomes] = await Promise.all(pending)
    const every = [...outcomes, ...turnOutcomes.flat()]
    // the run stopped while the item's scorers ran: the item did not finish (stopped early:
    // it is recorded as not run)
    const cut = every.some((o) => o.some((x) => x.cut || (!x.ok && work.signal.aborted && x.error && x.error.name === 'AbortError')))
    if (cut && stoppedEarly && !halt.signal.aborted) return { stopped: true }
    if (every.some((o) => o.some((x) => x.cut))) return { stopped: true }
    if (aborted && every.some((o) => o.some((x) => !x.ok && x.error && x.error.name === 'AbortError'))) return { stopped: true }
    return { outcomes, turnOutcomes }
  }

  /**
   * Stage 3d, record an item: the core counts it (and may stop the run early), its record
   * gets its trials, usage and turns, it is kept, and onItemComplete hears of it.
   */
  async function recordItem({ raw, index, item, plan, r }, runs, turnPlans, { targetResult, conversation }, t0) {
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
    if (plan.mode === 'turns') r.turns = turnRecords(item, plan, turnPlans, conversation, added)
    r.durationMs = performance.now() - t0
    if (recorder) recorder.item(r)
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

  /**
   * A turns item's turns as recorded: what each sent and got, its assertions' results, and
   * their declarations (so summarizeItems and oxeval merge recount the same turnResults).
   */
  function turnRecords(item, plan, turnPlans, conversation, added) {
    return plan.turns.map((p, k) => {
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

  /** The categorized form's results as Mastra's onItemComplete gives them: `{ agent?, trajectory? }`. */
  function byCategory(results) {
    const out = {}
    for (const e of scorers) {
      if (!(e.id in results)) continue
      ;(out[e.category] ??= {})[e.id] = results[e.id]
    }
    return out
  }

  /** Stage 4, drive: the workers (or batch mode's feeder) take the items in order. */
  async function drive() {
    if (batching) {
      await batching.feed(pull, (n, launched) => {
        startedItems++
        return runItem(n.item, n.index, undefined, launched)
      }, fail, () => stop)
    } else await Promise.all(Array.from({ length: concurrency }, worker))
    // stopped early or by the budget: every item not run yet is read and recorded as not run (no judge call)
    while ((stoppedEarly || budgetStop) && !failure && !halt.signal.aborted) {
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
        await runItem(n.item, n.index, stoppedEarly ? notRun() : overBudget())
      } catch (e) {
        fail(e)
      }
    }
    // the onItemComplete calls still queued: all of them, unless the run stopped (abort,
    // or a failure meanwhile): then only within the grace after it stopped
    let c = await settle(chain, halt.signal)
    if (c.cut) c = await settle(chain, null, bounds.abortGraceMs - (performance.now() - haltedAt))
    if ('error' in c && !failure) failure = { error: c.error }
  }

  async function worker() {
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
        const refused = await budgetGate()
        await runItem(n.item, n.index, refused ?? undefined)
      } catch (e) {
        fail(e)
        return
      } finally {
        wake()
      }
    }
  }

  /** Stage 5, decide: the core's summary and outcome, with the items, warnings and batch facts. */
  function decide() {
    const result = unwrap(acc.summary(JSON.stringify({ aborted, unfinished: aborted ? startedItems - finishedItems : 0 })))
    if (aborted) result.aborted = true
    if (recorder) result.store = recorder.finish(result)
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

  try {
    await drive()
  } finally {
    if (batching) batchInfo = await batching.close().catch((e) => { if (!failure) failure = { error: e } })
    closed.abort()
    if (signal) signal.removeEventListener('abort', onUserAbort)
    // a data source left unfinished is closed (a generator's finally blocks run); not awaited
    if (!exhausted && typeof it.return === 'function') {
      Promise.resolve(invoke(() => it.return())).catch(() => {})
    }
  }
  if (failure) {
    if (recorder) recorder.finish({ aborted: true })
    throw failure.error
  }
  return decide()
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
