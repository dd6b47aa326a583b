// runEvals over real scorers and the local judge server: concurrency, coverage accounting,
// trials statistics, onItemComplete order, target forms, thresholds/gates/verdict, abort,
// keepItems, and summarizeItems giving the same numbers.
import { describe, expect, it } from 'vitest'
import { heuristicJudge } from '../testing/judge-server.mjs'
import { failure, oxeval, scorerBuilder, thrownBy, useJudgeServer, type Any } from './helpers/setup'

const { runEvals, summarizeItems, createAnswerRelevancyScorer, createFactualCorrectnessScorer } = oxeval

const server = useJudgeServer({ handler: heuristicJudge })
const relevancy = () => scorerBuilder(server, createAnswerRelevancyScorer)()
const factual = () => scorerBuilder(server, createFactualCorrectnessScorer)()

const qa = [
  { input: 'What is the capital of France?', output: 'The capital of France is Paris.', groundTruth: 'Paris is the capital of France.' },
  { input: 'How many legs does a spider have?', output: 'A spider has eight legs.', groundTruth: 'Spiders have eight legs.' },
  { input: 'Who wrote Hamlet?', output: 'I like turtles. The weather is nice.', groundTruth: 'Shakespeare wrote Hamlet.' },
  { input: 'What is 2 + 2?', output: '2 + 2 is 4.', groundTruth: 'Four.' },
]

/** A duck-typed scorer: scores from a table by item input, records overlap, may fail. */
function tableScorer(id: string, scores: Record<string, number | Error>, delayMs = 0) {
  const state = { active: 0, maxActive: 0, calls: 0 }
  const scorer = {
    id,
    state,
    async run(run: Any) {
      state.calls++
      state.active++
      state.maxActive = Math.max(state.maxActive, state.active)
      try {
        if (delayMs) await new Promise((r) => setTimeout(r, delayMs))
        const s = scores[String(run.input)]
        if (s instanceof Error) throw s
        if (s === undefined) throw new Error(`no score for ${String(run.input)}`)
        return { score: s, reason: `table says ${s}` }
      } finally {
        state.active--
      }
    },
  }
  return scorer
}

describe('runEvals over real scorers', () => {
  it("returns Mastra's shape plus items, coverage, errors, usage and stats", async () => {
    const ar = relevancy()
    const fc = factual()
    const r = await runEvals({ data: qa, scorers: [ar, { scorer: fc, threshold: 0.1 }] })
    expect(Object.keys(r.scores)).toEqual([ar.id, fc.id])
    expect(r.summary).toEqual({ totalItems: 4, failedItems: 0, erroredItems: 0 })
    expect(r.items).toHaveLength(4)
    expect(r.items!.map((i) => i.index)).toEqual([0, 1, 2, 3])
    // every mean is the plain mean of the item scores
    for (const id of [ar.id, fc.id]) {
      const xs = r.items!.map((i) => i.results[id].score)
      expect(r.scores[id]).toBeCloseTo(xs.reduce((a, b) => a + b, 0) / xs.length, 12)
      expect(r.coverage[id]).toEqual({ scored: 4, total: 4 })
      expect(r.errors[id]).toBe(0)
      expect(r.usage[id].calls).toBeGreaterThan(0)
      expect(r.usage[id].totalTokens).toBeGreaterThan(0)
      expect(r.stats[id].n).toBe(4)
    }
    // the relevant answers beat the off-topic one
    expect(r.items![0].results[ar.id].score).toBeGreaterThan(r.items![2].results[ar.id].score)
    expect(r.items![0].results[ar.id].reason).toEqual(expect.any(String))
    expect(r.thresholdResults).toEqual([{ id: fc.id, passed: r.scores[fc.id]! >= 0.1, averageScore: r.scores[fc.id], threshold: 0.1 }])
    expect(r.verdict).toBe(r.scores[fc.id]! >= 0.1 ? 'passed' : 'scored')
    expect(r.durationMs).toBeGreaterThan(0)
    // usage equals the judge records' sum
    const calls = r.items!.reduce((n, i) => n + Object.values(i.results[ar.id].judge ?? {}).reduce((m, s) => m + s.executions.reduce((k, e) => k + e.modelCallCount, 0), 0), 0)
    expect(r.usage[ar.id].calls).toBe(calls)
  })

  it('runs items concurrently against a latency judge (items overlap in time)', async () => {
    const ar = scorerBuilder(server, createAnswerRelevancyScorer)()
    const data = Array.from({ length: 8 }, (_, i) => ({ input: `Question ${i}?`, output: `Answer ${i} is short.` }))
    server.on(() => true, (req: Any) => ({ ...heuristicJudge(req), delayMs: 60 }))
    const t0 = performance.now()
    const r = await runEvals({ data, scorers: [ar], concurrency: 8 })
    const wall = performance.now() - t0
    expect(r.coverage[ar.id]).toEqual({ scored: 8, total: 8 })
    // 8 items × 3 sequential judge calls × 60 ms = 1440 ms if items ran one at a time
    expect(server.maxInFlight).toBeGreaterThanOrEqual(6)
    expect(wall).toBeLessThan(1000)
  })

  it('concurrency bounds the items in flight', async () => {
    const s = tableScorer('t', Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`q${i}`, i / 10])), 20)
    await runEvals({ data: Array.from({ length: 10 }, (_, i) => ({ input: `q${i}`, output: 'x' })), scorers: [s], concurrency: 3 })
    expect(s.state.maxActive).toBe(3)
    const one = tableScorer('t', { a: 1, b: 1, c: 1 }, 10)
    await runEvals({ data: ['a', 'b', 'c'].map((input) => ({ input, output: 'x' })), scorers: [one], concurrency: 1 })
    expect(one.state.maxActive).toBe(1)
  })
})

describe('coverage accounting: an error is excluded and counted, never a 0 or NaN', () => {
  it('a failing scorer run', async () => {
    const s = tableScorer('t', { a: 1, b: new Error('judge exploded'), c: 0.5 })
    const r = await runEvals({ data: ['a', 'b', 'c'].map((input) => ({ input, output: 'x' })), scorers: [s] })
    expect(r.scores.t).toBe(0.75)
    expect(r.errors.t).toBe(1)
    expect(r.coverage.t).toEqual({ scored: 2, total: 3 })
    expect(r.summary).toEqual({ totalItems: 3, failedItems: 1, erroredItems: 1 })
    expect(r.items![1].errors.t).toMatchObject({ name: 'Error', message: 'judge exploded' })
    expect(r.items![1].results.t).toBeUndefined()
    // an unscored item fails the run unless maxErrors allows it
    expect(r.outcome).toMatchObject({ status: 'failed', passed: false })
    expect(r.outcome.reasons.map((x: Any) => x.kind)).toEqual(['errors'])
    expect(r.outcome.reasons[0].message).toContain('1 of 3 items were not scored (allowed: 0')
    expect(r.outcome.reasons[0].message).toContain('item 1, t: OXEVAL_SCORER_FAILED: judge exploded')
    const allowed = await runEvals({ data: ['a', 'b', 'c'].map((input) => ({ input, output: 'x' })), scorers: [tableScorer('t', { a: 1, b: new Error('judge exploded'), c: 0.5 })], maxErrors: 1 })
    expect(allowed.outcome).toMatchObject({ status: 'passed', passed: true, reasons: [] })
    expect(allowed.verdict).toBeUndefined()
  })

  it("a real scorer's judge failure keeps its code and failed step, and its partial usage counts", async () => {
    const ar = scorerBuilder(server, createAnswerRelevancyScorer)({}, { retries: 0 })
    server.on((req: Any) => req.user.includes('Doomed question'), { status: 400, content: 'bad request' })
    const r = await runEvals({
      data: [
        { input: 'Doomed question?', output: 'Doomed answer.' },
        { input: 'What is the capital of France?', output: 'Paris.' },
      ],
      scorers: [ar],
    })
    expect(r.errors[ar.id]).toBe(1)
    expect(r.coverage[ar.id]).toEqual({ scored: 1, total: 2 })
    expect(r.items![0].errors[ar.id]).toMatchObject({ name: 'ScorerRunError', code: 'OXEVAL_JUDGE_HTTP', failedStep: 'analyze' })
    expect(Number.isFinite(r.scores[ar.id])).toBe(true)
    // item 0: preprocess (1) + the failed analyze (1) — a failed run's partial usage counts
    expect(r.usage[ar.id].calls).toBe(2 + Object.values(r.items![1].results[ar.id].judge!).reduce((m, s) => m + s.executions.reduce((k, e) => k + e.modelCallCount, 0), 0))
  })

  it('a scorer with no scored item has a null mean and fails its threshold', async () => {
    const s = tableScorer('t', { a: new Error('x') })
    const r = await runEvals({ data: [{ input: 'a', output: 'x' }], scorers: [{ scorer: s, threshold: 0 }] })
    expect(r.scores.t).toBeNull()
    expect(r.stats.t.mean).toBeNull()
    expect(r.thresholdResults![0]).toMatchObject({ passed: false, averageScore: null })
    // nothing scored is never "scored" (let alone passed): the run failed
    expect(r.verdict).toBe('failed')
    expect(r.outcome.reasons.map((x: Any) => x.kind)).toEqual(['errors', 'nothing-scored', 'threshold'])
  })

  it('an item without output and without a target is an item error', async () => {
    const s = tableScorer('t', { a: 1, b: 1 })
    const r = await runEvals({ data: [{ input: 'a', output: 'x' }, { input: 'b' }, 7 as Any], scorers: [s] })
    expect(r.items![1].targetError).toMatchObject({ name: 'TypeError', code: 'OXEVAL_INVALID_INPUT' })
    expect(r.items![1].targetError!.message).toContain('has no output')
    expect(r.items![2].targetError!.message).toContain('must be an object')
    expect(r.coverage.t).toEqual({ scored: 1, total: 3 })
    expect(r.summary.failedItems).toBe(2)
    expect(s.state.calls).toBe(1)
  })
})

describe('trials', () => {
  it('per item and per scorer statistics over trials', async () => {
    let n = 0
    const seq = [0.2, 0.4, 0.6, 1, 1, 1]
    const s = {
      id: 'noisy',
      async run(run: Any) {
        const i = run.input === 'a' ? n++ : 3 + (n++ % 3)
        return { score: seq[i % 6] }
      },
    }
    const r = await runEvals({ data: [{ input: 'a', output: 'x' }], scorers: [s], trials: 3, concurrency: 1 })
    const t = r.items![0].trials!.noisy
    expect(t.scores).toHaveLength(3)
    expect([...t.scores].sort()).toEqual([0.2, 0.4, 0.6])
    expect(t.mean).toBeCloseTo(0.4, 12)
    expect(t.std).toBeCloseTo(0.2, 12)
    // the bounded interval: Wilson's at the effective n* = n·p(1−p)/v = 3 · 0.24 / (0.08/3) = 27
    const z = 1.959963984540054
    const [p, ne] = [0.4, 27]
    const centre = (p + (z * z) / (2 * ne)) / (1 + (z * z) / ne)
    const half = (z / (1 + (z * z) / ne)) * Math.sqrt((p * (1 - p)) / ne + (z * z) / (4 * ne * ne))
    expect(t.ci95![0]).toBeCloseTo(centre - half, 9)
    expect(t.ci95![1]).toBeCloseTo(centre + half, 9)
    expect(t.ci95![0]).toBeGreaterThanOrEqual(0)
    expect(r.trials).toBe(3)
    expect(r.scores.noisy).toBeCloseTo(0.4, 12)
  })

  it('a failed trial is excluded from the item mean and counted', async () => {
    let k = 0
    const s = { id: 'flaky', async run() { if (k++ === 1) throw new Error('flake'); return { score: 1 } } }
    const r = await runEvals({ data: [{ input: 'a', output: 'x' }], scorers: [s], trials: 3, concurrency: 1 })
    expect(r.items![0].trials!.flaky.scores.filter((x) => x === null)).toHaveLength(1)
    expect(r.scores.flaky).toBe(1)
    expect(r.errors.flaky).toBe(1)
    expect(r.coverage.flaky).toEqual({ scored: 1, total: 1 })
  })

  it('trials must be an integer in range', async () => {
    const s = tableScorer('t', {})
    for (const trials of [0, 1.5, 1001, 'x']) {
      const e = await failure(runEvals({ data: [], scorers: [s], trials: trials as Any }))
      expect(e).toBeInstanceOf(TypeError)
      expect(e.message).toContain('trials')
    }
  })
})

describe('onItemComplete', () => {
  it('is called once per item in completion order, with Mastra fields', async () => {
    const delays: Record<string, number> = { a: 80, b: 10, c: 40 }
    const s = { id: 's', async run(run: Any) { await new Promise((r) => setTimeout(r, delays[run.input])); return { score: 1 } } }
    const seen: Any[] = []
    await runEvals({ data: ['a', 'b', 'c'].map((input) => ({ input, output: 'x' })), scorers: [s], onItemComplete: (r) => { seen.push(r) } })
    expect(seen.map((r) => r.index)).toEqual([1, 2, 0])
    expect(seen[0].item).toEqual({ input: 'b', output: 'x' })
    expect(seen[0].scorerResults.s.score).toBe(1)
    expect(seen[0].results.s.score).toBe(1)
  })

  it('async callbacks are awaited one after another (never overlapping)', async () => {
    let active = 0
    let maxActive = 0
    const s = tableScorer('t', { a: 1, b: 1, c: 1, d: 1 })
    await runEvals({
      data: ['a', 'b', 'c', 'd'].map((input) => ({ input, output: 'x' })),
      scorers: [s],
      onItemComplete: async () => {
        active++
        maxActive = Math.max(maxActive, active)
        await new Promise((r) => setTimeout(r, 15))
        active--
      },
    })
    expect(maxActive).toBe(1)
  })

  it('keepItems: false streams items and keeps only aggregates', async () => {
    const s = tableScorer('t', { a: 1, b: 0 })
    const seen: number[] = []
    const r = await runEvals({ data: [{ input: 'a', output: 'x' }, { input: 'b', output: 'y' }], scorers: [s], keepItems: false, onItemComplete: (x) => { seen.push(x.index) } })
    expect(r.items).toBeUndefined()
    expect(seen.sort()).toEqual([0, 1])
    expect(r.scores.t).toBe(0.5)
  })

  it("a throwing callback rejects runEvals with the callback's error", async () => {
    const s = tableScorer('t', { a: 1 })
    const e = await failure(runEvals({ data: [{ input: 'a', output: 'x' }], scorers: [s], onItemComplete: () => { throw new Error('my callback') } }))
    expect(e.message).toBe('my callback')
  })
})

describe('targets', () => {
  it('an async function target produces the output', async () => {
    const seen: Any[] = []
    const s = { id: 's', async run(run: Any) { seen.push(run); return { score: run.output === 'ANSWER a' ? 1 : 0 } } }
    const r = await runEvals({ data: [{ input: 'a', groundTruth: 'g', requestContext: { tenant: 1 } }], scorers: [s], target: async (input: string) => `ANSWER ${input}` })
    expect(r.scores.s).toBe(1)
    expect(seen[0]).toEqual({ input: 'a', output: 'ANSWER a', groundTruth: 'g', requestContext: { tenant: 1 } })
    // the item's other fields reach the run (a scorer may read them); its id does not
    await runEvals({ data: [{ id: 'x1', input: 'b', output: 'o', source: 'the source text' }], scorers: [s] })
    expect(seen[1]).toEqual({ input: 'b', output: 'o', source: 'the source text' })
    expect(r.items![0].output).toBe('ANSWER a')
  })

  it("an Agent-style generate() target: its response messages are scored", async () => {
    const ar = relevancy()
    const calls: Any[] = []
    const agent = {
      async generate(input: string, opts: Any) {
        calls.push({ input, opts })
        return { text: 'Paris is the capital of France.', response: { messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Paris is the capital of France.' }] }] } }
      },
    }
    const r = await runEvals({ data: [{ input: 'What is the capital of France?', requestContext: { a: 1 } }], scorers: [ar], target: agent })
    expect(calls[0].opts.requestContext).toEqual({ a: 1 })
    expect(r.items![0].output).toEqual([{ role: 'assistant', content: [{ type: 'text', text: 'Paris is the capital of France.' }] }])
    expect(r.coverage[ar.id].scored).toBe(1)
    expect(r.items![0].results[ar.id].preprocessStepResult).toMatchObject({ statements: expect.arrayContaining([expect.stringContaining('Paris')]) })
  })

  it('a target failure is an item error, counted, not a crash', async () => {
    const s = tableScorer('t', { a: 1, b: 1 })
    const r = await runEvals({
      data: [{ input: 'a' }, { input: 'b' }],
      scorers: [s],
      target: async (input: string) => {
        if (input === 'b') throw new RangeError('agent down')
        return 'ok'
      },
    })
    expect(r.items![1].targetError).toEqual({ name: 'RangeError', message: 'agent down' })
    expect(r.coverage.t).toEqual({ scored: 1, total: 2 })
    expect(r.summary.failedItems).toBe(1)
    expect(s.state.calls).toBe(1)
  })
})

describe('thresholds, gates and verdict (Mastra rules)', () => {
  const gate = (id: string, scores: Record<string, number>) => tableScorer(id, scores)
  it.each([
    [{ a: 1, b: 1 }, 0.5, 'passed'],
    [{ a: 1, b: 1 }, 0.9, 'scored'],
    [{ a: 1, b: 0 }, 0.5, 'failed'],
  ] as const)('gate %j, threshold %s → %s', async (gateScores, threshold, verdict) => {
    const s = tableScorer('s', { a: 0.8, b: 0.6 })
    const r = await runEvals({ data: [{ input: 'a', output: 'x' }, { input: 'b', output: 'y' }], scorers: [{ scorer: s, threshold }], gates: [gate('g', gateScores)] })
    expect(r.verdict).toBe(verdict)
    expect(r.gateResults).toEqual([{ id: 'g', passed: gateScores.b === 1, score: (gateScores.a + gateScores.b) / 2 }])
    expect(r.scores).toEqual({ s: 0.7 })
  })

  it('range thresholds', async () => {
    const s = tableScorer('s', { a: 0.3 })
    const r = await runEvals({ data: [{ input: 'a', output: 'x' }], scorers: [{ scorer: s, threshold: { min: 0.2, max: 0.4 } }] })
    expect(r.thresholdResults![0]).toEqual({ id: 's', passed: true, averageScore: 0.3, threshold: { min: 0.2, max: 0.4 } })
  })

  it('bad configurations are TypeErrors naming the problem', async () => {
    const s = tableScorer('s', {})
    const cases: Array<[Any, string]> = [
      [undefined, 'one options object'],
      [{ data: [], scorers: [] }, 'at least one scorer'],
      [{ data: 5, scorers: [s] }, 'data must be an array'],
      [{ data: 'abc', scorers: [s] }, 'data must be an array'],
      [{ data: [], scorers: [{}] }, 'scorers[0] must be a scorer'],
      [{ data: [], scorers: [{ scorer: s }] }, 'no threshold'],
      [{ data: [], scorers: [{ scorer: s, threshold: 2 }] }, 'threshold of scorer "s"'],
      [{ data: [], scorers: [{ scorer: s, threshold: { min: 0.6, max: 0.5 } }] }, 'min (0.6) above max (0.5)'],
      [{ data: [], scorers: [s, s] }, 'share the id "s"'],
      [{ data: [], scorers: [s], concurrency: 0 }, 'concurrency'],
      [{ data: [], scorers: [s], target: 'agent' }, 'target must be'],
      [{ data: [], scorers: [s], signal: {} }, 'signal must be an AbortSignal'],
      [{ data: [], scorers: [s], keepItems: 1 }, 'keepItems'],
    ]
    for (const [config, want] of cases) {
      const e = await failure(runEvals(config))
      expect(e, want).toBeInstanceOf(TypeError)
      expect(e.message).toContain(want)
      expect(e.code).toBe('OXEVAL_INVALID_OPTIONS')
    }
  })
})

describe('data sources, abort, and summarizeItems', () => {
  it('accepts iterables and async iterables', async () => {
    const s = tableScorer('t', { a: 1, b: 0 })
    function* gen() {
      yield { input: 'a', output: 'x' }
      yield { input: 'b', output: 'x' }
    }
    async function* agen() {
      yield { input: 'a', output: 'x' }
      yield { input: 'b', output: 'x' }
    }
    expect((await runEvals({ data: gen(), scorers: [s] })).scores.t).toBe(0.5)
    expect((await runEvals({ data: agen(), scorers: [s] })).scores.t).toBe(0.5)
  })

  it('abort stops starting items and resolves with what finished', async () => {
    const ar = scorerBuilder(server, createAnswerRelevancyScorer)()
    server.on(() => true, (req: Any) => ({ ...heuristicJudge(req), delayMs: 40 }))
    const ac = new AbortController()
    const data = Array.from({ length: 40 }, (_, i) => ({ input: `Question ${i}?`, output: `Answer ${i}.` }))
    let done = 0
    const p = runEvals({ data, scorers: [ar], concurrency: 2, signal: ac.signal, onItemComplete: () => { if (++done === 3) ac.abort() } })
    const r = await p
    expect(r.aborted).toBe(true)
    expect(r.summary.totalItems).toBeGreaterThanOrEqual(3)
    expect(r.summary.totalItems).toBeLessThan(40)
    expect(r.errors[ar.id]).toBe(0) // aborted runs are not counted as scorer errors
    expect(r.items!.length).toBe(r.summary.totalItems)
  })

  it('a signal with many runs in flight raises no listener-limit warning; itemId names items', async () => {
    const warnings: string[] = []
    const onWarning = (w: Error) => warnings.push(w.name)
    process.on('warning', onWarning)
    const seen: string[] = []
    // like oxeval's own run(): a listener on the signal while the run is in flight
    const slow = (id: string) => ({
      id,
      async run(_r: Any, o: Any) {
        seen.push(o.itemId)
        const onAbort = () => {}
        o.signal.addEventListener('abort', onAbort)
        await new Promise((r) => setTimeout(r, 5))
        o.signal.removeEventListener('abort', onAbort)
        return { score: 1 }
      },
    })
    const ac = new AbortController()
    try {
      await runEvals({
        data: Array.from({ length: 12 }, (_, i) => ({ input: `q${i}`, output: 'x', ...(i === 0 ? { id: 'first' } : {}) })),
        scorers: [slow('a'), slow('b'), slow('c'), slow('d')],
        concurrency: 12,
        signal: ac.signal,
      })
      await new Promise((r) => setImmediate(r))
    } finally {
      process.off('warning', onWarning)
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning')
    expect(seen).toContain('first')
    expect(seen).toContain('#11')
    const custom: string[] = []
    await runEvals({ data: [{ input: 'a', output: 'x' }], scorers: [{ id: 's', async run(_r: Any, o: Any) { custom.push(o.itemId); return { score: 1 } } }], itemId: (_item, i) => `row-${i + 100}` })
    expect(custom).toEqual(['row-100'])
  })

  it('summarizeItems over the items gives the same numbers (also split and reordered)', async () => {
    const ar = relevancy()
    const s = tableScorer('t', { [qa[0].input]: 1, [qa[1].input]: new Error('x'), [qa[2].input]: 0.25, [qa[3].input]: 0.5 })
    const r = await runEvals({ data: qa, scorers: [{ scorer: ar, threshold: 0.3 }, s], trials: 2 })
    const cfg = { scorers: [{ id: ar.id, threshold: 0.3 }, 't'], trials: 2 }
    const all = summarizeItems({ items: r.items!, ...cfg })
    const { items, durationMs, ...rest } = r
    void durationMs
    expect(all).toEqual(rest)
    const shuffled = [r.items![2], r.items![0], r.items![3], r.items![1]]
    expect(summarizeItems({ items: JSON.parse(JSON.stringify(shuffled)), ...cfg })).toEqual(rest)
    expect(items).toHaveLength(4)
    const e = thrownBy(() => summarizeItems({ items: [r.items![0], r.items![0]], ...cfg }))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toContain('appears twice')
  })

  it('the scorers of one item share its JSON; a scorer started after user code that changes the run reads the changed run', async () => {
    const { includes, excludes, createScorer } = oxeval
    // createScorer's prepareRun is user code that runs as the scorer starts: here it changes
    // the run in place (unusual, but Mastra hands every scorer the same object)
    const mutating = createScorer({
      id: 'mutates',
      description: 'appends to the output',
      prepareRun: (run: Any) => {
        run.output = `${run.output} Berlin`
        return run
      },
    }).generateScore(() => 1)
    const data = [{ input: 'q', output: 'Paris' }]
    const r = await runEvals({ data, scorers: [excludes('Berlin'), mutating, includes('Berlin')], keepItems: true })
    const res = r.items![0].results
    // started before the change: no Berlin yet; started after it: Berlin is there
    expect(res['check-excludes'].score).toBe(1)
    expect(res['check-excludes'].preprocessStepResult.output).toBe('paris')
    expect(res['check-includes'].score).toBe(1)
    expect(res['check-includes'].preprocessStepResult.output).toBe('paris berlin')
  })
})

