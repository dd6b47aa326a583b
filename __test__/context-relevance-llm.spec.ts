// Mastra's LLM context relevance (createContextRelevanceScorerLLM, id context-relevance-scorer)
// through the real addon and the scripted judge server. Decision rules:
// docs/decision-tables/context-relevance-llm.md.
import { describe, expect, it, vi } from 'vitest'
import { data, failure, isFallback, oxeval, scorerBuilder, schemaName, thrownBy, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'

const { createContextRelevanceScorerLLM, createContextRelevanceScorer, ScorerRunError } = oxeval

const server = useJudgeServer()
const make = scorerBuilder(server, createContextRelevanceScorerLLM, { tag: 'crllm' })

const isAnalyze = (req: RecordedRequest) => schemaName(req) === 'context_relevance_llm_analysis'
const isReason = (req: RecordedRequest) => req.user.includes('explain a context relevance score')

const ev = (i: number, relevanceLevel: string, wasUsed: boolean) => ({ context_index: i, contextPiece: `piece ${i}`, relevanceLevel, wasUsed, reasoning: `r${i}` })
function script(evaluations: unknown[], missingContext: string[] = [], reason = 'The score is X because of the evaluations.') {
  server.on(isAnalyze, { json: { evaluations, missingContext, overallAssessment: 'scripted' } })
  server.on(isReason, reason)
}
const Q = 'What is the capital of France?'
const baseRun = { input: Q, output: 'Paris is the capital of France.' }

describe('identity', () => {
  it("Mastra's id, name and steps; no clash with the NVIDIA scorer", () => {
    const s = make()
    expect([s.id, s.name, s.type]).toEqual(['context-relevance-scorer', 'Context Relevance (LLM)', 'agent'])
    expect(s.description).toMatch(/relevant and useful the provided context/)
    expect(s.getSteps().map((x: Any) => [x.name, x.type])).toEqual([
      ['analyze', 'prompt'],
      ['generateScore', 'function'],
      ['generateReason', 'prompt'],
    ])
    const nv = createContextRelevanceScorer({ model: 'openai/gpt-4o-mini' })
    expect(nv.id).toBe('nv-context-relevance-scorer')
    expect(nv.id).not.toBe(s.id)
  })
})

describe('scoring', () => {
  it('mean weight − unused-high penalty − missing penalty; result keys as Mastra', async () => {
    script([ev(0, 'high', true), ev(1, 'high', false), ev(2, 'medium', true), ev(3, 'none', false)], ['population'], 'The score is 0.42 because.')
    const r: Any = await make().run({ ...baseRun, context: ['a', 'b', 'c', 'd'] })
    // (1 + 1 + 0.7 + 0) / 4 = 0.675 − 0.1 − 0.15 = 0.425 → 0.43
    expect(r.score).toBe(0.43)
    expect(r.reason).toBe('The score is 0.42 because.')
    expect(Object.keys(r)).toEqual([
      'input', 'output', 'context', 'runId', 'score', 'generateScorePrompt', 'reason', 'generateReasonPrompt',
      'preprocessStepResult', 'preprocessPrompt', 'analyzeStepResult', 'analyzePrompt', 'judge',
    ])
    expect(r.preprocessStepResult).toBeUndefined()
    expect(r.analyzeStepResult.missingContext).toEqual(['population'])
    expect(r.analyzeStepResult.evaluations[1]).toEqual(ev(1, 'high', false))
    expect(Object.keys(r.judge)).toEqual(['analyze', 'generateReason'])
    expect(server.requests).toHaveLength(2)
    expect(data(server.requests[0])).toEqual({ query: Q, response: baseRun.output, context: ['a', 'b', 'c', 'd'] })
    expect(data(server.requests[1])).toMatchObject({ query: Q, score: 0.43, scale: 1, missingContext: ['population'] })
  })

  it('scale and penalties: top-level or under options, merged with the defaults', async () => {
    const evals = [ev(0, 'high', false), ev(1, 'low', true)]
    // (1 + 0.3) / 2 = 0.65, one unused high piece (−0.1), one missing item (−0.15)
    const cases: [Record<string, unknown>, number][] = [
      [{}, 0.4],
      [{ scale: 10 }, 4],
      [{ options: { scale: 10 } }, 4],
      [{ penalties: { unusedHighRelevanceContext: 0 } }, 0.5],
      [{ options: { penalties: { missingContextPerItem: 0.05 } } }, 0.5],
      [{ penalties: { maxMissingContextPenalty: 0.1 } }, 0.45],
    ]
    for (const [opts, want] of cases) {
      server.reset()
      script(evals, ['x'])
      const r = await make(opts).run({ ...baseRun, context: ['a', 'b'] })
      expect([opts, r.score]).toEqual([opts, want])
    }
  })

  it('labels as a model may write them are normalized (" High ")', async () => {
    script([{ ...ev(0, ' High ', true) }])
    const r: Any = await make().run({ ...baseRun, context: ['a'] })
    expect(r.score).toBe(1)
    expect(r.analyzeStepResult.evaluations[0].relevanceLevel).toBe('high')
  })

  it('missingContext may be left out (Mastra default [])', async () => {
    server.on(isAnalyze, { json: { evaluations: [ev(0, 'medium', true)], overallAssessment: 'ok' } })
    server.on(isReason, 'The score is 0.7 because.')
    const r: Any = await make().run({ ...baseRun, context: ['a'] })
    expect(r.score).toBe(0.7)
    expect(r.analyzeStepResult.missingContext).toEqual([])
  })

  it('an evaluation count that does not match the contexts: one fallback stating it, then accepted with a warning', async () => {
    script([ev(0, 'high', true)])
    const r: Any = await make().run({ ...baseRun, context: ['a', 'b', 'c'] })
    expect(r.score).toBe(1)
    expect(r.warnings).toEqual(['analyze: 1 evaluation for 3 context pieces'])
    const analyze = server.requests.filter(isAnalyze)
    expect(analyze).toHaveLength(2)
    expect(isFallback(analyze[1])).toBe(true)
    expect(r.judge.analyze.executions[0]).toMatchObject({ status: 'success', attemptCount: 2, modelCallCount: 2 })
  })

  it('a count fixed by the fallback is accepted without a warning', async () => {
    server.on(isAnalyze, { json: { evaluations: [ev(0, 'high', true)], overallAssessment: 'x' } }, { times: 1 })
    script([ev(0, 'high', true), ev(1, 'none', false)])
    const r: Any = await make().run({ ...baseRun, context: ['a', 'b'] })
    expect(r.score).toBe(0.5)
    expect(r.warnings).toBeUndefined()
  })
})

describe('retrieved contexts', () => {
  it('run.context wins over contextExtractor and the context option', async () => {
    script([ev(0, 'high', true)])
    const extractor = vi.fn(() => ['from extractor'])
    await make({ contextExtractor: extractor, context: ['from option'] }).run({ ...baseRun, context: ['from run'] })
    expect(extractor).not.toHaveBeenCalled()
    expect(data(server.requests[0]).context).toEqual(['from run'])
  })

  it("contextExtractor(input, output), top-level or under options (Mastra's form), wins over the option", async () => {
    for (const opts of [{ contextExtractor: () => ['x', 'y'] }, { options: { contextExtractor: () => ['x', 'y'], context: ['o'] } }]) {
      server.reset()
      script([ev(0, 'high', true), ev(1, 'high', true)])
      await make({ context: ['from option'], ...opts }).run(baseRun)
      expect(data(server.requests[0]).context).toEqual(['x', 'y'])
    }
  })

  it('the factory context option, then tool results in the output', async () => {
    script([ev(0, 'high', true)])
    await make({ options: { context: ['from option'] } }).run(baseRun)
    expect(data(server.requests[0]).context).toEqual(['from option'])
    server.reset()
    script([ev(0, 'high', true)])
    const output = [
      {
        role: 'assistant',
        content: {
          format: 2,
          parts: [
            { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 't1', toolName: 'search', args: {}, result: 'Paris is the capital.' } },
            { type: 'text', text: 'Paris.' },
          ],
        },
      },
    ]
    await make().run({ input: Q, output })
    expect(data(server.requests[0])).toEqual({ query: Q, response: 'Paris.', context: ['Paris is the capital.'] })
  })

  it('no context anywhere: a TypeError naming the sources, no judge call (Mastra would score the full scale)', async () => {
    const e = await failure(make().run(baseRun))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toMatch(/context-relevance-scorer: the retrieved contexts are missing \(the tool results in run\.output gave none\): pass run\.context/)
    const e2 = await failure(make().run({ ...baseRun, context: [] }))
    expect(e2.message).toMatch(/run\.context gave none/)
    const e3 = await failure(make({ contextExtractor: () => [] }).run(baseRun))
    expect(e3.message).toMatch(/the contextExtractor's result gave none/)
    expect(server.requests).toHaveLength(0)
  })

  it('a missing user query is a TypeError', async () => {
    const e = await failure(make().run({ output: 'x', context: ['a'] }))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toMatch(/the user query is missing/)
  })
})

describe('factory options are TypeErrors at creation', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ scale: 0 }, /options\.scale must be a number greater than 0 and at most 1000000; got 0/],
    [{ options: { scale: -1 } }, /options\.options\.scale must be a number greater than 0/],
    [{ penalties: { unusedHighRelevanceContext: 2 } }, /options\.penalties\.unusedHighRelevanceContext must be a number at least 0 and at most 1; got 2/],
    [{ options: { penalties: { maxMissingContextPenalty: 'x' } } }, /options\.options\.penalties\.maxMissingContextPenalty must be a number; got string/],
    [{ penalties: [] }, /options\.penalties must be an object; got array/],
    [{ context: [] }, /context option cannot be an empty array/],
    [{ context: [1] }, /options\.context\[0\] must be a string; got number/],
    [{ contextExtractor: 'x' }, /options\.contextExtractor must be a function/],
  ]
  it.each(cases)('%j', (opts, want) => {
    const e = thrownBy(() => createContextRelevanceScorerLLM({ model: 'openai/gpt-4o-mini', ...opts } as Any))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toMatch(want)
  })
})

describe('faults', () => {
  it('a transient 500 on analyze is retried', async () => {
    server.on(isAnalyze, { status: 500 }, { times: 1 })
    script([ev(0, 'high', true)])
    const r: Any = await make().run({ ...baseRun, context: ['a'] })
    expect(r.score).toBe(1)
    expect(r.judge.analyze.executions[0]).toMatchObject({ status: 'success', attemptCount: 1, modelCallCount: 2 })
  })

  it('a persistent 500 on analyze fails the run at analyze', async () => {
    server.on(isAnalyze, { status: 500 })
    const e = await failure(make({}, { maxRetries: 1 }).run({ ...baseRun, context: ['a'] }))
    expect(e).toBeInstanceOf(ScorerRunError)
    expect([e.failedStep, e.completedSteps, e.code]).toEqual(['analyze', [], 'OXEVAL_JUDGE_HTTP'])
    expect(e.result.judge.analyze.executions[0]).toMatchObject({ status: 'failed', modelCallCount: 2 })
  })

  it('persistent invalid output on analyze: one fallback, then OXEVAL_JUDGE_OUTPUT with the raw output', async () => {
    server.on(isAnalyze, { json: { evaluations: 'nope' } })
    const e = await failure(make().run({ ...baseRun, context: ['a'] }))
    expect([e.failedStep, e.code]).toEqual(['analyze', 'OXEVAL_JUDGE_OUTPUT'])
    expect(e.result.judge.analyze.executions[0]).toMatchObject({ status: 'failed', attemptCount: 2 })
    expect(e.result.judge.analyze.executions[0].rawOutput).toBeTruthy()
  })

  it('a persistent fault on generateReason keeps the score and the analysis', async () => {
    server.on(isAnalyze, { json: { evaluations: [ev(0, 'low', true)], missingContext: [], overallAssessment: 'x' } })
    server.on(isReason, { fault: 'reset' })
    const e = await failure(make({}, { maxRetries: 0 }).run({ ...baseRun, context: ['a'] }))
    expect([e.failedStep, e.completedSteps, e.code]).toEqual(['generateReason', ['analyze', 'generateScore'], 'OXEVAL_JUDGE_NETWORK'])
    expect(e.result.score).toBe(0.3)
    expect(e.result.analyzeStepResult.evaluations).toEqual([ev(0, 'low', true)])
  })
})
