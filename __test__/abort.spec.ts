// Issue 18 §2: abort and callbacks always end. runEvals' abort resolves within a bound even
// when user code ignores the signal (a function target, an Agent's generate(), a data source
// stalled in next(), onItemComplete); function targets get the signal (target(input, ctx));
// targetTimeoutMs; every user callback (contextExtractor, getContext, onItemComplete) has a
// default bound (callbackTimeoutMs, the core's: 60 s), short here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { heuristicJudge } from '../testing/judge-server.mjs'
import { failure, oxeval, scorerBuilder, useJudgeServer, type Any } from './helpers/setup'

const { runEvals, createContextPrecisionScorer, createHallucinationScorer, ScorerRunError } = oxeval

const server = useJudgeServer({ handler: heuristicJudge })

/** The bound this spec holds runEvals to after abort() (docs/run-evals.md: at once, or within the 1 s
 * onItemComplete grace). */
const ABORT_BOUND_MS = 1500

/** `p`, or a rejection when it is still pending after `ms` (today's hang fails fast). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms)
    }),
  ])
}

const never = () => new Promise<never>(() => {})
const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms))

/** A scorer that scores 1 at once. */
const quick = { id: 'q', async run() { return { score: 1 } } }

// every unhandled rejection during this file's tests is a failure
const unhandled: unknown[] = []
const onUnhandled = (e: unknown) => unhandled.push(e)
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled)
})
afterAll(() => {
  process.off('unhandledRejection', onUnhandled)
  expect(unhandled).toEqual([])
})

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length

/** Abort `ac` once `cond()` holds (polled). */
async function abortWhen(ac: AbortController, cond: () => boolean) {
  while (!cond()) await tick(2)
  const t = performance.now()
  ac.abort(new Error('stop'))
  return t
}

describe('abort() ends the run even when user code ignores the signal', () => {
  it('a function target that never settles: resolves with the finished items, counts the unfinished, its ctx.signal fired', async () => {
    const ctxs: Any[] = []
    const data = ['a', 'b', 'c', 'd'].map((input) => ({ input, groundTruth: `g-${input}` }))
    const ac = new AbortController()
    const before = timers()
    const run = runEvals({
      data,
      scorers: [quick],
      concurrency: 2,
      signal: ac.signal,
      // targetTimeoutMs / callbackTimeoutMs set: their timers must be gone when the run resolves
      targetTimeoutMs: 60_000,
      callbackTimeoutMs: 60_000,
      target: (input: string, ctx: Any) => {
        ctxs.push(ctx)
        return input === 'a' || input === 'b' ? `answer ${input}` : never()
      },
    })
    const t = await abortWhen(ac, () => ctxs.length === 4)
    const r = await within(run, 5000, 'runEvals after abort')
    expect(performance.now() - t).toBeLessThan(ABORT_BOUND_MS)
    expect(r.aborted).toBe(true)
    expect(r.items!.map((i) => i.input)).toEqual(['a', 'b'])
    expect(r.summary.totalItems).toBe(2)
    expect(r.summary.unfinishedItems).toBe(2)
    expect(r.scores.q).toBe(1)
    // the new form: ctx = { ...item, item, signal, index }
    const c = ctxs.find((x) => x.item.input === 'c')
    expect(c.item).toBe(data[2])
    expect(c.index).toBe(2)
    expect(c.groundTruth).toBe('g-c') // code reading item fields from the 2nd argument still works
    expect(c.signal).toBeInstanceOf(AbortSignal)
    expect(c.signal.aborted).toBe(true)
    expect(c.signal.reason).toEqual(new Error('stop'))
    await tick(0)
    expect(timers()).toBeLessThanOrEqual(before)
  })

  it("an Agent whose generate() ignores abortSignal", async () => {
    const seen: Any[] = []
    const agent = {
      generate(input: string, opts: Any) {
        seen.push({ input, ...opts })
        return input === 'a' ? Promise.resolve({ text: 'fine' }) : never()
      },
    }
    const ac = new AbortController()
    const run = runEvals({ data: [{ input: 'a' }, { input: 'b' }, { input: 'c' }], scorers: [quick], concurrency: 3, signal: ac.signal, target: agent })
    const t = await abortWhen(ac, () => seen.length === 3)
    const r = await within(run, 5000, 'runEvals after abort')
    expect(performance.now() - t).toBeLessThan(ABORT_BOUND_MS)
    expect(r.aborted).toBe(true)
    expect(r.items!.map((i) => i.output)).toEqual(['fine'])
    expect(r.summary.unfinishedItems).toBe(2)
    expect(seen.map((o) => [o.input, o.abortSignal instanceof AbortSignal && o.abortSignal.aborted]).sort()).toEqual([['a', false], ['b', true], ['c', true]])
  })

  it('an async-iterable data source that stalls in next()', async () => {
    let pulled = 0
    async function* source() {
      yield { input: 'a', output: 'x' }
      pulled++
      yield { input: 'b', output: 'y' }
      pulled++
      await never() // the third next() never settles
    }
    const ac = new AbortController()
    let done = 0
    const run = runEvals({ data: source(), scorers: [quick], signal: ac.signal, onItemComplete: () => void done++ })
    const t = await abortWhen(ac, () => pulled === 2 && done === 2)
    const r = await within(run, 5000, 'runEvals after abort')
    expect(performance.now() - t).toBeLessThan(ABORT_BOUND_MS)
    expect(r.aborted).toBe(true)
    expect(r.summary.totalItems).toBe(2)
    expect(r.summary.unfinishedItems).toBe(0)
  })

  it('onItemComplete that never settles: the abort waits for it at most the 1 s grace, then nothing more is called', async () => {
    const ac = new AbortController()
    const calls: number[] = []
    const run = runEvals({
      data: Array.from({ length: 6 }, (_, i) => ({ input: `q${i}`, output: 'x' })),
      scorers: [quick],
      concurrency: 2,
      signal: ac.signal,
      onItemComplete: (r: Any) => {
        calls.push(r.index)
        return never()
      },
    })
    const t = await abortWhen(ac, () => calls.length === 1)
    const r = await within(run, 5000, 'runEvals after abort')
    const waited = performance.now() - t
    expect(waited).toBeLessThan(ABORT_BOUND_MS)
    expect(waited).toBeGreaterThanOrEqual(900) // the grace for the call in flight
    expect(r.aborted).toBe(true)
    // the items that finished are kept, even those whose onItemComplete never ran
    expect(r.items!.length).toBe(r.summary.totalItems)
    expect(r.items!.length).toBeGreaterThanOrEqual(1)
    expect(r.summary.unfinishedItems).toBe(0)
    await tick(50)
    expect(calls).toHaveLength(1)
  })

  it('an abort while a target rejects late leaves no unhandled rejection and no timer', async () => {
    const ac = new AbortController()
    let started = 0
    const before = timers()
    const run = runEvals({
      data: [{ input: 'a' }, { input: 'b' }],
      scorers: [quick],
      signal: ac.signal,
      targetTimeoutMs: 30_000,
      target: async () => {
        started++
        await tick(30)
        throw new Error('late failure after the run ended')
      },
    })
    await abortWhen(ac, () => started === 2)
    const r = await within(run, 5000, 'runEvals after abort')
    expect(r.aborted).toBe(true)
    expect(r.summary.unfinishedItems).toBe(2)
    await tick(80) // the targets reject now; nobody is listening but the rejection is handled
    expect(timers()).toBeLessThanOrEqual(before)
    expect(unhandled).toEqual([])
  })
})

describe('function targets get the signal; targetTimeoutMs', () => {
  it('target(input, ctx): ctx has item, index, signal and the item fields; the signal is not aborted on success', async () => {
    const seen: Any[] = []
    const item = { id: 'x1', input: 'a', groundTruth: 'g', requestContext: { tenant: 1 } }
    const r = await runEvals({ data: [item], scorers: [quick], target: (input: string, ctx: Any) => (seen.push(ctx), `ANSWER ${input}`) })
    expect(r.items![0].output).toBe('ANSWER a')
    expect(seen[0].item).toBe(item)
    expect(seen[0].index).toBe(0)
    expect(seen[0].signal).toBeInstanceOf(AbortSignal)
    expect(seen[0].signal.aborted).toBe(false)
    expect([seen[0].input, seen[0].groundTruth, seen[0].requestContext, seen[0].id]).toEqual(['a', 'g', { tenant: 1 }, 'x1'])
  })

  it('a target past targetTimeoutMs is a target error of its item (TimeoutError, OXEVAL_TARGET_TIMEOUT), its signal fires, the run goes on', async () => {
    const signals: Record<string, AbortSignal> = {}
    const t0 = performance.now()
    const r = await within(
      runEvals({
        data: [{ input: 'a' }, { input: 'slow' }, { input: 'c' }],
        scorers: [quick],
        targetTimeoutMs: 100,
        target: (input: string, ctx: Any) => {
          signals[input] = ctx.signal
          return input === 'slow' ? never() : `ok ${input}`
        },
      }),
      5000,
      'runEvals with a target timeout',
    )
    expect(performance.now() - t0).toBeLessThan(2000)
    expect(r.aborted).toBeUndefined()
    expect(r.summary).toMatchObject({ totalItems: 3, failedItems: 1 })
    expect(r.summary.unfinishedItems).toBeUndefined()
    expect(r.items![1].targetError).toEqual({
      name: 'TimeoutError',
      code: 'OXEVAL_TARGET_TIMEOUT',
      message: 'target did not settle within 100 ms (runEvals option targetTimeoutMs); its signal was aborted',
    })
    expect(signals.slow.aborted).toBe(true)
    expect(signals.slow.reason.name).toBe('TimeoutError')
    expect(signals.a.aborted).toBe(false)
    expect(r.coverage.q).toEqual({ scored: 2, total: 3 })
    // an Agent too: its abortSignal fires at the timeout
    let agentSignal: AbortSignal | undefined
    const a = await runEvals({ data: [{ input: 'z' }], scorers: [quick], targetTimeoutMs: 50, target: { generate: (_: unknown, o: Any) => ((agentSignal = o.abortSignal), never()) } })
    expect(a.items![0].targetError!.code).toBe('OXEVAL_TARGET_TIMEOUT')
    expect(agentSignal!.aborted).toBe(true)
  })

  it('bad bounds are TypeErrors naming the option', async () => {
    for (const [config, want] of [
      [{ targetTimeoutMs: 0 }, 'targetTimeoutMs must be a positive number of milliseconds (Infinity: no bound); got 0'],
      [{ targetTimeoutMs: NaN }, 'targetTimeoutMs must be a positive number of milliseconds (Infinity: no bound); got NaN'],
      [{ callbackTimeoutMs: '5' }, 'callbackTimeoutMs must be a positive number of milliseconds (Infinity: no bound); got the string "5"'],
      [{ callbackTimeoutMs: () => 5 }, 'callbackTimeoutMs must be a positive number of milliseconds (Infinity: no bound); got function'],
    ] as Array<[Any, string]>) {
      const e = await failure(runEvals({ data: [], scorers: [quick], ...config }))
      expect(e).toBeInstanceOf(TypeError)
      expect(e.code).toBe('OXEVAL_INVALID_OPTIONS')
      expect(e.message).toBe(`runEvals: ${want}`)
    }
    // Infinity: no bound
    expect((await runEvals({ data: [{ input: 'a', output: 'x' }], scorers: [quick], callbackTimeoutMs: Infinity, targetTimeoutMs: Infinity })).scores.q).toBe(1)
  })
})

describe('every user callback has a default bound (callbackTimeoutMs)', () => {
  const precision = scorerBuilder(server, createContextPrecisionScorer, { tag: 'abort-cp' })
  const hallucination = scorerBuilder(server, createHallucinationScorer, { tag: 'abort-hall' })

  it('a contextExtractor that never settles fails its run (OXEVAL_CONTEXT_EXTRACTOR, naming it), in runEvals and scorer.run', async () => {
    const s = precision({ contextExtractor: () => never() })
    const r = await within(
      runEvals({ data: [{ input: 'q', output: 'a', groundTruth: 'g' }], scorers: [s], callbackTimeoutMs: 80 }),
      5000,
      'runEvals with a stuck contextExtractor',
    )
    const e = r.items![0].errors[s.id]
    expect(e).toMatchObject({ name: 'ScorerRunError', code: 'OXEVAL_CONTEXT_EXTRACTOR', failedStep: 'contextExtractor' })
    expect(e.message).toMatch(/^Scorer Run Failed: step 'contextExtractor' failed: contextExtractor did not settle within 80 ms \(.*callbackTimeoutMs, default 60000 ms\)$/)
    expect(r.coverage[s.id]).toEqual({ scored: 0, total: 1 })
    // scorer.run takes the same run option
    const t0 = performance.now()
    const d = await within(failure(s.run({ input: 'q', output: 'a' }, { callbackTimeoutMs: 50 })), 5000, 'scorer.run')
    expect(performance.now() - t0).toBeLessThan(2000)
    expect(d).toBeInstanceOf(ScorerRunError)
    expect([d.code, d.failedStep, d.cause.name]).toEqual(['OXEVAL_CONTEXT_EXTRACTOR', 'contextExtractor', 'TimeoutError'])
    // a deadline that comes first is still the deadline
    const dl = await failure(s.run({ input: 'q', output: 'a' }, { deadlineMs: 40, callbackTimeoutMs: 5000 }))
    expect(dl.code).toBe('OXEVAL_DEADLINE')
    const bad = await failure(s.run({ input: 'q', output: 'a' }, { callbackTimeoutMs: -1 }))
    expect(bad).toBeInstanceOf(TypeError)
    expect(bad.message).toContain('run options.callbackTimeoutMs must be a positive number of milliseconds')
    expect(server.requests).toHaveLength(0)
  })

  it("a getContext that never settles fails its step (the core's bound: OXEVAL_CONTEXT_EXTRACTOR naming getContext)", async () => {
    const s = hallucination({ getContext: () => never() })
    const r = await within(
      runEvals({ data: [{ input: 'q', output: 'The museum opened in 1998.' }], scorers: [s], callbackTimeoutMs: 80 }),
      5000,
      'runEvals with a stuck getContext',
    )
    const e = r.items![0].errors[s.id]
    expect(e).toMatchObject({ code: 'OXEVAL_CONTEXT_EXTRACTOR', failedStep: 'analyze' })
    expect(e.message).toContain('getContext did not settle within 80 ms')
  })

  it('an onItemComplete that never settles rejects the run with an error naming it', async () => {
    const t0 = performance.now()
    const e = await within(
      failure(runEvals({ data: [{ input: 'a', output: 'x' }, { input: 'b', output: 'y' }], scorers: [quick], callbackTimeoutMs: 100, onItemComplete: () => never() })),
      5000,
      'runEvals with a stuck onItemComplete',
    )
    expect(performance.now() - t0).toBeLessThan(2000)
    expect(e.name).toBe('TimeoutError')
    expect(e.code).toBe('OXEVAL_CALLBACK_TIMEOUT')
    expect(e.message).toBe('runEvals: onItemComplete did not settle within 100 ms (runEvals option callbackTimeoutMs)')
  })
})
