// Response groundedness (Ragas / NVIDIA ResponseGroundedness, two judges) through the real addon over HTTP.
// Shapes: docs/ragas-step-results.md; semantics: /work/shared/reference/ragas-metrics.md.
import { describe, expect, it } from 'vitest'
import { data, oxeval, scorerBuilder, useJudgeServer, type Any } from './helpers/setup'
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

const { createResponseGroundednessScorer, ScorerRunError, AbortError } = oxeval

const server = useJudgeServer()
const rgScorer = scorerBuilder(server, createResponseGroundednessScorer, { modelId: MODEL_ID })

describe('scorer identity', () => {
  itHasIdentity('response groundedness', () => rgScorer(), 'response-groundedness-scorer', 'Response Groundedness Scorer')

  it('NVIDIA steps: analyze (prompt), generateScore, generateReason (functions)', () => {
    expect(rgScorer().getSteps()).toEqual(nvSteps(/0, 1 or 2/))
  })
})

describe('round trips', () => {
  itRunsBothJudgesTogether(
    server,
    'response groundedness',
    () => rgScorer({}, { maxRetries: 0 }),
    { output: 'Paris is in France.', context: ['France contains Paris.'] },
    'nv_rating_0_1_2',
    2,
    1,
  )
})

describeRetrievedContexts(server, 'response groundedness', rgScorer, 'Tell me something.')

describe('no-call 0.0 shortcuts', () => {
  it.each([
    ['blank response', { output: '   ', context: ['Paris is in France.'] }, /response is blank/],
    ['blank context', { output: 'Paris is in France.', context: [' ', '\n'] }, /context is blank/],
  ])('response groundedness: %s', async (_k, run, why) => {
    const r = await rgScorer().run(run)
    expectShortcut(r)
    expect(r.reason).toMatch(why)
    expect(server.requests).toHaveLength(0)
  })

  it('response groundedness: judge DATA keys (response/context, reply/passages)', async () => {
    server.on(isJudge1Ctx, rating(2))
    server.on(isJudge2Ctx, rating(2))
    const r = await rgScorer().run({ output: 'Paris is in France.', context: ['a', 'b'] })
    expect(r.score).toBe(1)
    expect(data(server.requests.find(isJudge1Ctx)!)).toEqual({ response: 'Paris is in France.', context: 'a\nb' })
    expect(data(server.requests.find(isJudge2Ctx)!)).toEqual({ reply: 'Paris is in France.', passages: 'a\nb' })
  })
})

describe('factory options are TypeErrors at creation', () => {
  const rg = (o: Record<string, unknown>) => () => createResponseGroundednessScorer({ model: 'openai/x', ...o } as Any)
  itRejectsOptions([
    ['RG maxRetries 2.5', rg({ maxRetries: 2.5 }), /maxRetries/],
    ["RG context 'text'", rg({ context: 'text' }), /options.context must be an array of strings/],
    ['RG context [1,2] (nested)', rg({ options: { context: [1, 2] } }), /options.options.context\[0\] must be a string/],
    ["RG contextExtractor 'fn'", rg({ contextExtractor: 'fn' }), /contextExtractor must be a function/],
  ])

  it('valid option combinations create scorers', () => {
    expect(rg({ options: { context: ['a'], maxRetries: 9 } })().id).toBe('response-groundedness-scorer')
  })
})

describe('run input errors are TypeErrors with no request', () => {
  itRejectsRunInput(server, [
    ['RG empty output', () => rgScorer(), { output: '', context: ['c'] }, /response is missing/],
  ])
})

// Regressions: bugs these tests found (now fixed); each states the documented behaviour
describe('regressions', () => {
  // Was a bug: the facade runs contextExtractor (lib/scorer.js, Scorer.run → #prepare) before it wires
  // the AbortSignal to the native CancelHandle, and the listener is added after the signal has
  // already fired, so an abort during extraction is lost: the run goes on, calls both judges
  // and resolves with a score. index.d.ts: "signal: Cancels the run ... the promise rejects
  // with an AbortError".
  it('an abort while contextExtractor runs rejects with AbortError and makes no request', async () => {
    server.on(isNv012, rating(2))
    const ac = new AbortController()
    const s = rgScorer({
      contextExtractor: async () => {
        ac.abort()
        await new Promise((res) => setTimeout(res, 5))
        return ['Paris is in France.']
      },
    })
    const outcome = await s.run({ output: 'Paris is in France.' }, { signal: ac.signal }).then(
      (r) => ({ resolved: r.score }),
      (e) => e,
    )
    expect(server.requests).toHaveLength(0)
    expect(outcome).toBeInstanceOf(AbortError)
  })

  // Was a bug: same root cause: deadlineMs ("Overall deadline for the whole run") only starts when
  // the native run starts, so time spent in contextExtractor is not counted: a run with
  // deadlineMs 30 whose extractor takes 150 ms resolves with a score after ~150 ms.
  it('deadlineMs also bounds the time spent in contextExtractor', async () => {
    server.on(isNv012, rating(2))
    const s = rgScorer({
      contextExtractor: async () => {
        await new Promise((res) => setTimeout(res, 150))
        return ['Paris is in France.']
      },
    })
    const outcome = await s.run({ output: 'Paris is in France.' }, { deadlineMs: 30 }).then(
      (r) => ({ resolved: r.score }),
      (e) => e,
    )
    expect(outcome).toBeInstanceOf(ScorerRunError)
    expect(outcome.code).toBe('OXEVAL_DEADLINE')
  })
})
