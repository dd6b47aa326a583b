// Shared by the specs of the four Ragas scorers (factual-correctness, answer-accuracy,
// context-relevance, response-groundedness): the NVIDIA judges' routing, and the checks that
// are the same for several of those scorers.
import { describe, expect, it, vi } from 'vitest'
import { data, failure, oxeval, schemaName, thrownBy, type Any, type JudgeServer, type RecordedRequest } from './setup'

const { ScorerRunError } = oxeval

/** The model id of the Ragas specs' scorers: they assert it (scorer.judge, judge records). */
export const MODEL_ID = 'openai/gpt-4o-mini'

type ContextScorer = ReturnType<typeof oxeval.createContextRelevanceScorer> | ReturnType<typeof oxeval.createResponseGroundednessScorer>
/** A builder (scorerBuilder) of context relevance or response groundedness scorers. */
type Make = (extra?: Record<string, unknown>, settings?: Record<string, unknown>) => ContextScorer

export const rating = (r: unknown) => ({ json: { rating: r } })
export const isNv012 = (req: RecordedRequest) => schemaName(req) === 'nv_rating_0_1_2'
/** Judge 1 of context relevance and response groundedness carries DATA.context. */
export const isJudge1Ctx = (req: RecordedRequest) => isNv012(req) && 'context' in data(req)
export const isJudge2Ctx = (req: RecordedRequest) => isNv012(req) && ('passage' in data(req) || 'passages' in data(req))

/** getSteps() of an NVIDIA scorer; `analyze` matches the rating scale in its description. */
export const nvSteps = (analyze: RegExp) => [
  { name: 'analyze', type: 'prompt', description: expect.stringMatching(analyze) },
  { name: 'generateScore', type: 'function', description: expect.any(String) },
  { name: 'generateReason', type: 'function', description: expect.any(String) },
]

/** Registers '<label>: id, name, type, judge'. */
export function itHasIdentity(label: string, make: () => Any, id: string, name: string) {
  it(`${label}: id, name, type, judge`, () => {
    const s = make()
    expect(s.id).toBe(id)
    expect(s.name).toBe(name)
    expect(s.type).toBe('agent')
    expect(typeof s.description).toBe('string')
    expect(s.description.length).toBeGreaterThan(10)
    expect(s.judge).toEqual({ model: 'openai/gpt-4o-mini', instructions: expect.any(String) })
    expect(s.judge!.instructions.length).toBeGreaterThan(20)
  })
}

/** Registers '<label>: both judges in flight together, 2 requests' (judge 1 rates r1 → score `want`). */
export function itRunsBothJudgesTogether(
  server: JudgeServer,
  label: string,
  make: () => Any,
  run: Record<string, unknown>,
  schema: string,
  r1: number,
  want: number,
) {
  it(`${label}: both judges in flight together, 2 requests`, async () => {
    const seen: number[] = []
    server.on(
      (q) => schemaName(q) === schema,
      async () => {
        await server.waitForRequests(2, 2000)
        seen.push(server.requests.length)
        return rating(r1)
      },
    )
    const r = await make().run(run as Any)
    expect(r.score).toBe(want)
    expect(seen).toEqual([2, 2])
    expect(server.requests).toHaveLength(2)
    expect(server.maxInFlight).toBe(2)
  })
}

/** Registers one test per row: creating the scorer is a TypeError with OXEVAL_INVALID_OPTIONS. */
export function itRejectsOptions(rows: [string, () => unknown, RegExp][]) {
  it.each(rows)('%s', (_k, create, re) => {
    const thrown = thrownBy(create)
    expect(thrown).toBeInstanceOf(TypeError)
    expect(thrown.code).toBe('OXEVAL_INVALID_OPTIONS')
    expect(thrown.message).toMatch(re)
  })
}

/** Registers one test per row: the run is a TypeError with OXEVAL_INVALID_INPUT and no request. */
export function itRejectsRunInput(server: JudgeServer, rows: [string, () => Any, Record<string, unknown>, RegExp][]) {
  it.each(rows)('%s', async (_k, make, run, re) => {
    const err = await failure(make().run(run as Any))
    expect(err).toBeInstanceOf(TypeError)
    expect(err.code).toBe('OXEVAL_INVALID_INPUT')
    expect(err.message).toMatch(re)
    expect(server.requests).toHaveLength(0)
  })
}

/** The 0.0 result of a no-call shortcut (context relevance, response groundedness). */
export const expectShortcut = (r: Any) => {
  expect(r.score).toBe(0)
  expect(r.reason).toMatch(/^The score is 0 because .+\.$/)
  expect(r.judge).toBeUndefined()
  expect('judge' in r).toBe(false)
  expect(r.analyzeStepResult).toBeUndefined()
  expect(r.analyzePrompt).toBeUndefined()
  expect(Object.keys(r)).toContain('analyzeStepResult')
  expect(typeof r.runId).toBe('string')
}

const toolOutput = () => [
  {
    id: 'm1',
    role: 'assistant',
    content: {
      format: 2,
      toolInvocations: [
        { state: 'result', toolCallId: 'a', toolName: 'search', args: {}, result: 'legacy doc A' },
        { state: 'call', toolCallId: 'pending', toolName: 'search', args: {} },
      ],
      parts: [
        { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'b', toolName: 'search', args: {}, result: { title: 'B' } } },
        { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'c', toolName: 'search', args: {} } },
        { type: 'text', text: 'Paris is the capital of France.' },
      ],
    },
  },
]

/** Registers '<name>: retrieved contexts': where context relevance and response groundedness get their contexts. */
export function describeRetrievedContexts(server: JudgeServer, name: string, make: Make, question: string) {
  describe(`${name}: retrieved contexts`, () => {
    const baseRun = () => ({ input: question, output: 'Paris is the capital of France.' })
    /** Script both judges (rating 2 and 1 → 0.75) and return judge 1's DATA.context. */
    const script = () => {
      server.on(isJudge1Ctx, rating(2))
      server.on(isJudge2Ctx, rating(1))
    }
    const sentContext = () => {
      const j1 = server.requests.filter(isJudge1Ctx)
      const j2 = server.requests.filter(isJudge2Ctx)
      expect(j1).toHaveLength(1)
      expect(j2).toHaveLength(1)
      const d2 = data(j2[0])
      expect(d2.passage ?? d2.passages).toBe(data(j1[0]).context)
      return data(j1[0]).context
    }

    it('scores 2 and 1 → 0.75 with the step result', async () => {
      script()
      const r = await make().run({ ...baseRun(), context: ['Paris is the capital of France.'] })
      expect(r.score).toBe(0.75)
      expect(r.reason).toBe('Judge 1 rated 2/2, judge 2 rated 1/2 → 0.75.')
      expect(r.analyzeStepResult!.judges.map((j) => j.normalized)).toEqual([1, 0.5])
    })

    it('run.context wins over contextExtractor, which is then not called', async () => {
      script()
      const extractor = vi.fn(() => ['from extractor'])
      const r = await make({ contextExtractor: extractor, context: ['from option'] }).run({ ...baseRun(), context: ['from run', 'second'] })
      expect(r.score).toBe(0.75)
      expect(sentContext()).toBe('from run\nsecond')
      expect(extractor).not.toHaveBeenCalled()
      // the result echoes the run, not the facade's extractedContext
      expect(r.context).toEqual(['from run', 'second'])
      expect('extractedContext' in r).toBe(false)
    })

    it('contextExtractor(input, output) wins over the factory context', async () => {
      script()
      const extractor = vi.fn((_i: unknown, _o: unknown) => ['x', 'y'])
      const run = { ...baseRun(), output: toolOutput() }
      await make({ contextExtractor: extractor, context: ['from option'] }).run(run)
      expect(extractor).toHaveBeenCalledTimes(1)
      expect(extractor.mock.calls[0][0]).toBe(run.input)
      expect(extractor.mock.calls[0][1]).toBe(run.output)
      expect(sentContext()).toBe('x\ny')
    })

    it('contextExtractor is called when run.context is null', async () => {
      script()
      const extractor = vi.fn(() => ['extracted'])
      await make({ contextExtractor: extractor }).run({ ...baseRun(), context: null } as Any)
      expect(extractor).toHaveBeenCalledTimes(1)
      expect(sentContext()).toBe('extracted')
    })

    it('a contextExtractor returning undefined falls through to the factory context', async () => {
      script()
      const extractor = vi.fn(() => undefined)
      await make({ contextExtractor: extractor as Any, context: ['from option'] }).run(baseRun())
      expect(extractor).toHaveBeenCalledTimes(1)
      expect(sentContext()).toBe('from option')
    })

    it('an async contextExtractor works', async () => {
      script()
      const r = await make({
        contextExtractor: async () => {
          await new Promise((res) => setTimeout(res, 5))
          return ['async ctx']
        },
      }).run(baseRun())
      expect(r.score).toBe(0.75)
      expect(sentContext()).toBe('async ctx')
    })

    it('the factory context (or options.context) wins over tool results', async () => {
      script()
      await make({ context: ['from option'] }).run({ ...baseRun(), output: toolOutput() })
      expect(sentContext()).toBe('from option')
      server.requests.length = 0
      await make({ options: { context: ['nested option'] } }).run({ ...baseRun(), output: toolOutput() })
      expect(sentContext()).toBe('nested option')
    })

    it('tool results in the output messages come last (legacy toolInvocations and parts; pending and missing results skipped)', async () => {
      script()
      await make().run({ ...baseRun(), output: toolOutput() })
      // in Mastra's merge order (mergeToolInvocations, one implementation with the agent
      // scorers': issue 21): the parts, then the legacy calls no part shares
      expect(sentContext()).toBe('{"title":"B"}\nlegacy doc A')
    })

    it('the same toolCallId in toolInvocations and parts counts once (parts win)', async () => {
      script()
      const output = [
        {
          role: 'assistant',
          content: {
            format: 2,
            toolInvocations: [{ state: 'result', toolCallId: 'same', toolName: 't', args: {}, result: 'old' }],
            parts: [
              { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'same', toolName: 't', args: {}, result: 'new' } },
              { type: 'text', text: 'Paris is the capital of France.' },
            ],
          },
        },
      ]
      await make().run({ ...baseRun(), output })
      expect(sentContext()).toBe('new')
    })

    it.each([
      ['sync', () => {
        throw new Error('vector store down')
      }],
      ['async', async () => {
        throw new Error('vector store down')
      }],
    ])('a throwing contextExtractor (%s) → ScorerRunError at contextExtractor, no request', async (_k, extractor) => {
      const err = await failure(make({ contextExtractor: extractor }).run({ ...baseRun(), runId: 'ce-1' }))
      expect(err).toBeInstanceOf(ScorerRunError)
      expect(err.failedStep).toBe('contextExtractor')
      expect(err.code).toBe('OXEVAL_CONTEXT_EXTRACTOR')
      expect(err.completedSteps).toEqual([])
      expect(err.message).toContain('vector store down')
      expect(err.cause.message).toBe('vector store down')
      expect(err.result.runId).toBe('ce-1')
      expect(err.result.score).toBeUndefined()
      expect(server.requests).toHaveLength(0)
    })

    it.each([
      ['run.context []', {}, { context: [] }],
      ['run.context [] beats the factory context', { context: ['from option'] }, { context: [] }],
      ['contextExtractor returning []', { contextExtractor: () => [] }, {}],
      ['nothing anywhere', {}, {}],
    ])('empty contexts list (%s) → TypeError, no request', async (_k, opts, extra) => {
      const err = await failure(make(opts).run({ ...baseRun(), ...extra }))
      expect(err).toBeInstanceOf(TypeError)
      expect(err.code).toBe('OXEVAL_INVALID_INPUT')
      expect(err.message).toMatch(/retrieved contexts are missing/)
      expect(server.requests).toHaveLength(0)
    })

    it.each([
      [{ context: 5 }, /run.context must be an array of strings; got number/],
      [{ context: ['ok', 2] }, /run.context\[1\] must be a string; got number/],
      [{ context: 'one text' }, /run.context must be an array of strings; got string/],
    ])('run.context of the wrong type %j → TypeError, no request', async (extra, re) => {
      const err = await failure(make().run({ ...baseRun(), ...extra } as Any))
      expect(err).toBeInstanceOf(TypeError)
      expect(err.message).toMatch(re)
      expect(server.requests).toHaveLength(0)
    })

    it('a contextExtractor returning a non-array → TypeError, no request', async () => {
      const err = await failure(make({ contextExtractor: () => 'just text' }).run(baseRun()))
      expect(err).toBeInstanceOf(TypeError)
      expect(err.message).toMatch(/must be an array of strings/)
      expect(server.requests).toHaveLength(0)
    })
  })
}
