// Context relevance (Ragas / NVIDIA ContextRelevance, two judges) through the real addon over HTTP.
// Shapes: docs/ragas-step-results.md; semantics: /work/shared/reference/ragas-metrics.md.
import { describe, expect, it } from 'vitest'
import { data, failure, oxeval, scorerBuilder, useJudgeServer, type Any } from './helpers/setup'
import {
  describeRetrievedContexts,
  expectShortcut,
  isJudge1Ctx,
  isJudge2Ctx,
  isNv012,
  itHasIdentity,
  itRejectsOptions,
  itRejectsRunInput,
  itRunsBothJudgesTogether,
  MODEL_ID,
  nvSteps,
  rating,
} from './helpers/ragas'

const { createContextRelevanceScorer, ScorerRunError } = oxeval

const server = useJudgeServer()
const crScorer = scorerBuilder(server, createContextRelevanceScorer, { modelId: MODEL_ID })

describe('scorer identity', () => {
  itHasIdentity('context relevance', () => crScorer(), 'nv-context-relevance-scorer', 'Context Relevance Scorer')

  it('NVIDIA steps: analyze (prompt), generateScore, generateReason (functions)', () => {
    expect(crScorer().getSteps()).toEqual(nvSteps(/0, 1 or 2/))
  })
})

describe('round trips', () => {
  itRunsBothJudgesTogether(
    server,
    'context relevance',
    () => crScorer({}, { maxRetries: 0 }),
    { input: 'Where is Paris?', output: 'x', context: ['Paris is in France.'] },
    'nv_rating_0_1_2',
    2,
    1,
  )
})

describeRetrievedContexts(server, 'context relevance', crScorer, 'What is the capital of France?')

describe('no-call 0.0 shortcuts', () => {
  it.each([
    ['blank question', { input: '   ', context: ['Paris is in France.'] }, /question is blank/],
    ['blank joined context', { input: 'Where is Paris?', context: ['  ', '', '\t'] }, /context is blank/],
    ['question equals context (trimmed)', { input: ' What is X? ', context: ['What is X?  '] }, /repeats the question/],
    ['context substring of question', { input: 'Tell me about Paris and Rome', context: ['Paris'] }, /part of the question/],
  ])('context relevance: %s', async (_k, run, why) => {
    const r = await crScorer().run({ output: 'whatever', ...run })
    expectShortcut(r)
    expect(r.reason).toMatch(why)
    expect(server.requests).toHaveLength(0)
  })

  it('context relevance: two contexts joined with \\n are not a substring of the question → judges are called', async () => {
    server.on(isNv012, rating(0))
    const r = await crScorer().run({ input: 'Tell me about Paris and Rome', output: 'x', context: ['Paris', 'Rome'] })
    expect(r.score).toBe(0)
    expect(r.judge).toBeDefined()
    expect(server.requests).toHaveLength(2)
    expect(data(server.requests.find(isJudge1Ctx)!)).toEqual({ question: 'Tell me about Paris and Rome', context: 'Paris\nRome' })
  })

  it('context relevance: judge DATA keys (question/context, question/passage)', async () => {
    server.on(isJudge1Ctx, rating(1))
    server.on(isJudge2Ctx, rating(0))
    const r = await crScorer().run({ input: 'Where is Paris?', output: 'x', context: ['a', 'b'] })
    expect(r.score).toBe(0.25)
    expect(data(server.requests.find(isJudge2Ctx)!)).toEqual({ question: 'Where is Paris?', passage: 'a\nb' })
  })
})

describe('factory options are TypeErrors at creation', () => {
  const cr = (o: Record<string, unknown>) => () => createContextRelevanceScorer({ model: 'openai/x', ...o } as Any)
  itRejectsOptions([
    ['CR maxRetries 0', cr({ maxRetries: 0 }), /maxRetries/],
    ["CR context 'text'", cr({ context: 'text' }), /options.context must be an array of strings; got string/],
    ['CR context [1,2]', cr({ context: [1, 2] }), /options.context\[0\] must be a string; got number/],
    ["CR contextExtractor 'fn'", cr({ contextExtractor: 'fn' }), /contextExtractor must be a function/],
  ])

  it('valid option combinations create scorers', () => {
    expect(cr({ context: [], contextExtractor: () => [] })().id).toBe('nv-context-relevance-scorer')
  })
})

describe('run input errors are TypeErrors with no request', () => {
  itRejectsRunInput(server, [
    ['CR empty input', () => crScorer(), { input: '', output: 'x', context: ['c'] }, /user input is missing/],
    ['CR missing input', () => crScorer(), { output: 'x', context: ['c'] }, /user input is missing/],
  ])
})

// Regressions: bugs these tests found (now fixed); each states the documented behaviour
describe('regressions', () => {
  // Was a bug: a contextExtractor failure builds its partial result from run.runId only, so a run
  // without a runId gets `result.runId === undefined`, while every other failure (and
  // index.d.ts: `result: ... & { runId: string }`) carries a generated id.
  it('a contextExtractor failure result has a string runId when the run has none', async () => {
    const err = await failure(
      crScorer({
        contextExtractor: () => {
          throw new Error('down')
        },
      }).run({ input: 'q', output: 'a' }),
    )
    expect(err).toBeInstanceOf(ScorerRunError)
    expect(typeof err.result.runId).toBe('string')
  })
})
