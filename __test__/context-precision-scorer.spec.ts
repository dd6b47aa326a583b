// createContextPrecisionScorer through the real addon over HTTP: identity, options (both forms,
// defaults, ranges, an empty context option), context sources incl. contextExtractor, the
// missing-context TypeError, result keys, faults on one judge call, verdict-count and index
// mismatches.
import { describe, expect, it } from 'vitest'
import { data, failure, isFallback, oxeval, rejectedBecause, scorerBuilder, thrownBy, useJudgeServer, type Any } from './helpers/setup'
import { expectFailedAt, expectRecovered, script, settle, STEP_KEYS, type StepRoute } from './helpers/mastra-rag'

const { createContextPrecisionScorer, ScorerRunError } = oxeval

const server = useJudgeServer({ hangMs: 3000 })
const precision = scorerBuilder(server, createContextPrecisionScorer, { tag: 'cp' })

const CONTEXT = ['Green tea has catechins, antioxidants.', 'Tea was first grown in China.', 'Green tea has caffeine.']
const INPUT = 'What are the benefits of green tea?'
const OUTPUT = 'Its antioxidants protect the heart and its caffeine improves alertness.'
const ROUTES = (verdicts: Array<[number, string]> = [[0, 'yes'], [1, 'no'], [2, 'yes']]): Record<string, StepRoute> => ({
  analyze: { schema: 'context_precision_verdicts', reply: { json: { verdicts: verdicts.map(([context_index, verdict]) => ({ context_index, verdict, reason: `r${context_index}` })) } } },
  generateReason: { phrase: 'explain a context precision score', reply: { content: 'The score is 0.83 because two pieces are relevant.' } },
})
const ANALYZE_PHRASE = 'decide whether it is relevant for producing the output'

describe('identity', () => {
  it('id, name, type, judge and steps (no preprocess, as Mastra)', () => {
    const s = precision()
    expect([s.id, s.name, s.type]).toEqual(['context-precision-scorer', 'Context Precision Scorer', 'agent'])
    expect(s.getSteps().map((x) => [x.name, x.type])).toEqual([
      ['analyze', 'prompt'],
      ['generateScore', 'function'],
      ['generateReason', 'prompt'],
    ])
  })
})

describe('run', () => {
  it('mean average precision over the verdicts sorted by context_index; step results and keys are Mastra’s', async () => {
    script(server, ROUTES([[2, 'yes'], [0, ' Yes'], [1, 'no']]))
    const run = { input: INPUT, output: OUTPUT, context: CONTEXT, runId: 'cp-1' }
    const r: Any = await precision().run(run)
    expect(r.score).toBe(0.83)
    expect(r.preprocessStepResult).toBeUndefined()
    expect(r.analyzeStepResult).toEqual({
      verdicts: [
        { context_index: 0, verdict: 'yes', reason: 'r0' },
        { context_index: 1, verdict: 'no', reason: 'r1' },
        { context_index: 2, verdict: 'yes', reason: 'r2' },
      ],
    })
    expect(Object.keys(r)).toEqual([...Object.keys(run), ...STEP_KEYS, 'judge'])
    expect(Object.keys(r.judge)).toEqual(['analyze', 'generateReason'])
    expect(data(server.requests[0])).toEqual({ input: INPUT, output: OUTPUT, context: CONTEXT })
    expect(data(server.requests[1])).toMatchObject({ input: INPUT, output: OUTPUT, context: CONTEXT, score: 0.83, scale: 1 })
  })

  it.each([
    ['relevant first', [[0, 'yes'], [1, 'no'], [2, 'no']], 1],
    ['relevant last', [[0, 'no'], [1, 'no'], [2, 'yes']], 0.33],
    ['none relevant', [[0, 'no'], [1, 'no'], [2, 'no']], 0],
    ['all relevant', [[0, 'yes'], [1, 'yes'], [2, 'yes']], 1],
  ] as Array<[string, Array<[number, string]>, number]>)('%s', async (_k, verdicts, want) => {
    script(server, ROUTES(verdicts))
    expect((await precision().run({ input: INPUT, output: OUTPUT, context: CONTEXT })).score).toBe(want)
  })
})

describe('options', () => {
  it.each([
    ['top-level', { scale: 10 }, 8.33],
    ['under options (Mastra)', { options: { scale: 10 } }, 8.33],
    ['defaults', {}, 0.83],
  ])('scale %s', async (_k, extra, want) => {
    script(server, ROUTES())
    expect((await precision(extra).run({ input: INPUT, output: OUTPUT, context: CONTEXT })).score).toBe(want)
  })

  it.each([
    [{ scale: 0 }, 'options.scale must be a number greater than 0 and at most 1000000; got 0'],
    [{ options: { scale: 2e6 } }, 'options.options.scale must be a number greater than 0 and at most 1000000'],
    [{ context: [] }, 'options.context must not be empty when given'],
    [{ context: [1] }, 'options.context[0] must be a string; got number'],
    [{ contextExtractor: 'x' }, 'options.contextExtractor must be a function'],
  ])('%j is a TypeError at the factory', (extra, message) => {
    const e = thrownBy(() => precision(extra))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.code).toBe('OXEVAL_INVALID_OPTIONS')
    expect(e.message).toContain(message)
  })
})

describe('context', () => {
  it('run.context, then contextExtractor(input, output) (sync or async), then the option', async () => {
    script(server, ROUTES())
    const seen: Any[] = []
    const contextExtractor = async (input: unknown, output: unknown) => {
      seen.push([input, output])
      return CONTEXT
    }
    await precision({ contextExtractor, context: ['opt'] }).run({ input: INPUT, output: OUTPUT, context: ['a', 'b', 'c'] })
    expect(seen).toHaveLength(0)
    expect(data(server.requests[0]).context).toEqual(['a', 'b', 'c'])
    await precision({ options: { context: ['opt 1', 'opt 2', 'opt 3'] }, contextExtractor }).run({ input: INPUT, output: OUTPUT })
    expect(seen).toEqual([[INPUT, OUTPUT]])
    expect(data(server.requests[2]).context).toEqual(CONTEXT)
    await precision({ context: ['o1', 'o2', 'o3'] }).run({ input: INPUT, output: OUTPUT })
    expect(data(server.requests[4]).context).toEqual(['o1', 'o2', 'o3'])
  })

  it.each([
    ['no source', {}, { output: OUTPUT }, 'the tool results in run.output gave none'],
    ['an empty run.context', {}, { output: OUTPUT, context: [] }, 'run.context gave none'],
    ['a contextExtractor returning []', { contextExtractor: () => [] }, { output: OUTPUT }, "the contextExtractor's result gave none"],
  ])('%s is a TypeError naming where it looked, before any judge call', async (_k, extra, run, where) => {
    const e = await failure(precision(extra).run(run))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.code).toBe('OXEVAL_INVALID_INPUT')
    expect(e.message).toContain('context-precision-scorer: there are no retrieved context pieces to evaluate')
    expect(e.message).toContain(where)
    expect(server.requests).toHaveLength(0)
  })

  it('a throwing contextExtractor fails with OXEVAL_CONTEXT_EXTRACTOR before any judge call', async () => {
    const e = await failure(precision({ contextExtractor: () => { throw new Error('index offline') } }).run({ output: OUTPUT }))
    expect(e).toBeInstanceOf(ScorerRunError)
    expect([e.failedStep, e.code]).toEqual(['contextExtractor', 'OXEVAL_CONTEXT_EXTRACTOR'])
    expect(server.requests).toHaveLength(0)
  })
})

describe('faults on one judge call', () => {
  const s = () => precision({}, { maxRetries: 1, timeoutMs: 300 })
  const run = { input: INPUT, output: OUTPUT, context: CONTEXT }

  it.each(['analyze', 'generateReason'])('a transient 429 on %s is retried', async (step) => {
    script(server, ROUTES(), { step, reply: { status: 429, headers: { 'retry-after': '0' } }, persistent: false })
    const r: Any = await s().run(run)
    expect(r.score).toBe(0.83)
    expectRecovered(r, step)
  })

  it('a persistent 502 on analyze fails it with nothing completed', async () => {
    script(server, ROUTES(), { step: 'analyze', reply: { status: 502 }, persistent: true })
    const { error } = await settle(s().run(run))
    expectFailedAt(error, ScorerRunError, 'analyze', [], 'OXEVAL_JUDGE_HTTP')
  })

  it('a persistent truncated body on generateReason keeps the score', async () => {
    script(server, ROUTES(), { step: 'generateReason', reply: { fault: 'truncate' }, persistent: true })
    const { error } = await settle(s().run(run))
    expectFailedAt(error, ScorerRunError, 'generateReason', ['analyze', 'generateScore'], 'OXEVAL_JUDGE_NETWORK')
    expect(error.result.score).toBe(0.83)
    expect(error.result.analyzeStepResult.verdicts).toHaveLength(3)
  })
})

describe('verdict count and indices', () => {
  it('two verdicts for three pieces: fallback told, then a warning; Mastra’s formula over the verdicts given', async () => {
    script(server, ROUTES([[0, 'no'], [1, 'yes']]))
    const r: Any = await precision().run({ input: INPUT, output: OUTPUT, context: CONTEXT })
    const analyze = server.requests.filter((q) => q.user.includes(ANALYZE_PHRASE))
    expect(analyze).toHaveLength(2)
    expect(isFallback(analyze[1])).toBe(true)
    expect(rejectedBecause(analyze[1])).toContain('2 verdicts for 3 context pieces')
    expect(r.warnings).toEqual(['analyze: 2 verdicts for 3 context pieces'])
    expect(r.score).toBe(0.5)
  })

  it('1-based indices: fallback told, then a warning; the order still decides the score', async () => {
    script(server, ROUTES([[1, 'yes'], [2, 'no'], [3, 'yes']]))
    const r: Any = await precision().run({ input: INPUT, output: OUTPUT, context: CONTEXT })
    expect(r.warnings).toEqual(['analyze: context_index 3 is not one of 0..2 given once each'])
    expect(r.score).toBe(0.83)
  })
})
