// Mastra's answer similarity (createAnswerSimilarityScorer, id answer-similarity-scorer)
// through the real addon and the scripted judge server. Decision rules:
// docs/decision-tables/answer-similarity.md.
import { describe, expect, it } from 'vitest'
import { data, failure, isFallback, oxeval, scorerBuilder, schemaName, thrownBy, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'

const { createAnswerSimilarityScorer, ScorerRunError } = oxeval

const server = useJudgeServer()
const make = scorerBuilder(server, createAnswerSimilarityScorer, { tag: 'as' })

const isUnits = (req: RecordedRequest) => schemaName(req) === 'answer_similarity_units'
const isAnalyze = (req: RecordedRequest) => schemaName(req) === 'answer_similarity_analysis'
const isReason = (req: RecordedRequest) => req.user.includes('explain an answer similarity score')

const m = (g: string, o: string | null, matchType: string) => ({ groundTruthUnit: g, outputUnit: o, matchType, explanation: `${matchType} match` })
function script(gt: string[], matches: unknown[], extraInOutput: string[] = [], contradictions: unknown[] = []) {
  server.on(isUnits, { json: { outputUnits: ['o1', 'o2'], groundTruthUnits: gt } })
  server.on(isAnalyze, { json: { matches, extraInOutput, contradictions } })
  server.on(isReason, 'The score is X/1 because.')
}
const run = { output: 'Paris is the capital of France.', groundTruth: 'The capital of France is Paris, on the Seine.' }

describe('identity', () => {
  it("Mastra's id, name and steps", () => {
    const s = make()
    expect([s.id, s.name, s.type]).toEqual(['answer-similarity-scorer', 'Answer Similarity Scorer', 'agent'])
    expect(s.getSteps().map((x: Any) => [x.name, x.type])).toEqual([
      ['preprocess', 'prompt'],
      ['analyze', 'prompt'],
      ['generateScore', 'function'],
      ['generateReason', 'prompt'],
    ])
  })
})

describe('scoring', () => {
  it('weighted matches; result keys as Mastra; both texts in one preprocess call, units only in analyze', async () => {
    script(['capital is Paris', 'on the Seine'], [m('capital is Paris', 'o1', 'semantic'), m('on the Seine', null, 'missing')])
    const r: Any = await make().run(run)
    // (0.8 − 0.15) / 2.4 = 0.2708 → 0.27
    expect(r.score).toBe(0.27)
    expect(r.reason).toBe('The score is X/1 because.')
    expect(Object.keys(r)).toEqual([
      'output', 'groundTruth', 'runId', 'score', 'generateScorePrompt', 'reason', 'generateReasonPrompt',
      'preprocessStepResult', 'preprocessPrompt', 'analyzeStepResult', 'analyzePrompt', 'judge',
    ])
    expect(r.preprocessStepResult).toEqual({ outputUnits: ['o1', 'o2'], groundTruthUnits: ['capital is Paris', 'on the Seine'] })
    expect(r.analyzeStepResult.matches[1].outputUnit).toBeNull()
    expect(server.requests.map((q) => (isUnits(q) ? 'units' : isAnalyze(q) ? 'analyze' : 'reason'))).toEqual(['units', 'analyze', 'reason'])
    expect(data(server.requests[0])).toEqual({ output: run.output, groundTruth: run.groundTruth })
    expect(data(server.requests[1])).toEqual({ outputUnits: ['o1', 'o2'], groundTruthUnits: ['capital is Paris', 'on the Seine'] })
    expect(data(server.requests[2])).toMatchObject({ score: 0.27, scale: 1, analysis: r.analyzeStepResult })
  })

  it('options top-level or under options, merged with the defaults', async () => {
    const matches = [m('a', 'o1', 'exact'), m('b', 'o2', 'partial')]
    // defaults: (1.2 + 0.4) / 2.4 = 0.667, − 0.05 for one extra unit
    const cases: [Record<string, unknown>, number][] = [
      [{}, 0.62],
      [{ scale: 10 }, 6.17],
      [{ options: { scale: 10 } }, 6.17],
      [{ options: { exactMatchBonus: 0 } }, 0.65], // (1 + 0.4) / 2 − 0.05
      [{ semanticThreshold: 0.6 }, 0.58], // (1.2 + 0.3) / 2.4 − 0.05 = 0.575, half up
      [{ extraInfoPenalty: 0 }, 0.67],
    ]
    for (const [opts, want] of cases) {
      server.reset()
      script(['a', 'b'], matches, ['extra'])
      const r = await make(opts).run(run)
      expect([opts, r.score]).toEqual([opts, want])
    }
  })

  it('a contradiction costs contradictionPenalty (1 by default)', async () => {
    script(['a', 'b'], [m('a', 'o1', 'exact'), m('b', null, 'missing')], [], [{ outputUnit: 'o2', groundTruthUnit: 'b', explanation: 'wrong' }])
    expect((await make().run(run)).score).toBe(0)
    server.reset()
    script(['a', 'b'], [m('a', 'o1', 'exact'), m('b', null, 'missing')], [], [{ outputUnit: 'o2', groundTruthUnit: 'b', explanation: 'wrong' }])
    // (1.2 − 0.15) / 2.4 = 0.4375 − 0.2
    expect((await make({ contradictionPenalty: 0.2 }).run(run)).score).toBe(0.24)
  })

  it('match types as a model may write them (" Exact ") are normalized', async () => {
    script(['a'], [m('a', 'o1', ' Exact ')])
    const r: Any = await make().run(run)
    expect(r.score).toBe(1)
    expect(r.analyzeStepResult.matches[0].matchType).toBe('exact')
  })

  it('a match count that differs from the ground-truth units: one fallback, then a warning', async () => {
    script(['a', 'b', 'c'], [m('a', 'o1', 'exact')])
    const r: Any = await make().run(run)
    expect(r.score).toBe(1)
    expect(r.warnings).toEqual(['analyze: 1 match for 3 ground-truth units'])
    const analyze = server.requests.filter(isAnalyze)
    expect(analyze.map(isFallback)).toEqual([false, true])
  })

  it('no ground-truth units: score 0 without the analyze call', async () => {
    script([], [])
    const r: Any = await make().run(run)
    expect(r.score).toBe(0)
    expect(r.analyzeStepResult).toEqual({ matches: [], extraInOutput: [], contradictions: [] })
    expect(server.requests.filter(isAnalyze)).toHaveLength(0)
  })
})

describe('ground truth', () => {
  it('required by default: a TypeError without one, no judge call', async () => {
    for (const r of [{ output: 'x' }, { output: 'x', groundTruth: '' }, { output: 'x', groundTruth: null }]) {
      const e = await failure(make().run(r))
      expect(e).toBeInstanceOf(TypeError)
      expect(e.message).toMatch(/answer-similarity-scorer requires run\.groundTruth/)
    }
    expect(server.requests).toHaveLength(0)
  })

  it('requireGroundTruth: false → 0 without a judge call', async () => {
    for (const opts of [{ requireGroundTruth: false }, { options: { requireGroundTruth: false } }]) {
      const r: Any = await make(opts).run({ output: 'x' })
      expect(r.score).toBe(0)
      expect(r.reason).toMatch(/no ground truth/)
      expect(r.judge).toBeUndefined()
      expect(r.preprocessStepResult).toEqual({ outputUnits: [], groundTruthUnits: [] })
    }
    expect(server.requests).toHaveLength(0)
  })

  it('a message ground truth reads its text', async () => {
    script(['a'], [m('a', 'o1', 'exact')])
    await make().run({ output: 'x', groundTruth: { role: 'assistant', content: 'Paris.' } })
    expect(data(server.requests[0]).groundTruth).toBe('Paris.')
  })
})

describe('factory options are TypeErrors at creation', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ scale: 0 }, /options\.scale must be a number greater than 0 and at most 1000000; got 0/],
    [{ semanticThreshold: 2 }, /options\.semanticThreshold must be a number at least 0 and at most 1; got 2/],
    [{ options: { missingPenalty: -0.1 } }, /options\.options\.missingPenalty must be a number at least 0 and at most 1/],
    [{ requireGroundTruth: 1 }, /options\.requireGroundTruth must be a boolean; got number/],
    [{ options: { exactMatchBonus: 'x' } }, /options\.options\.exactMatchBonus must be a number; got string/],
  ]
  it.each(cases)('%j', (opts, want) => {
    const e = thrownBy(() => createAnswerSimilarityScorer({ model: 'openai/gpt-4o-mini', ...opts } as Any))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toMatch(want)
  })
})

describe('faults', () => {
  it('a transient 503 on preprocess is retried', async () => {
    server.on(isUnits, { status: 503 }, { times: 1 })
    script(['a'], [m('a', 'o1', 'exact')])
    const r: Any = await make().run(run)
    expect(r.score).toBe(1)
    expect(r.judge.preprocess.executions[0]).toMatchObject({ status: 'success', attemptCount: 1, modelCallCount: 2 })
  })

  it('persistent invalid output on analyze fails at analyze and keeps the preprocess result', async () => {
    server.on(isAnalyze, { content: 'not JSON at all' })
    script(['a'], [])
    const e = await failure(make().run(run))
    expect(e).toBeInstanceOf(ScorerRunError)
    expect([e.failedStep, e.completedSteps, e.code]).toEqual(['analyze', ['preprocess'], 'OXEVAL_JUDGE_OUTPUT'])
    expect(e.result.preprocessStepResult).toEqual({ outputUnits: ['o1', 'o2'], groundTruthUnits: ['a'] })
    expect(e.result.judge.analyze.executions[0].rawOutput).toBe('not JSON at all')
  })

  it('a persistent 500 on generateReason keeps the score', async () => {
    server.on(isReason, { status: 500 })
    script(['a'], [m('a', 'o1', 'semantic')])
    const e = await failure(make({}, { maxRetries: 1 }).run(run))
    expect([e.failedStep, e.completedSteps, e.code]).toEqual(['generateReason', ['preprocess', 'analyze', 'generateScore'], 'OXEVAL_JUDGE_HTTP'])
    expect(e.result.score).toBe(0.67)
    expect(e.result.judge.generateReason.executions[0].modelCallCount).toBe(2)
  })
})
