// Mastra's noise sensitivity (createNoiseSensitivityScorerLLM, id noise-sensitivity-scorer)
// through the real addon and the scripted judge server. Decision rules:
// docs/decision-tables/noise-sensitivity.md.
import { describe, expect, it } from 'vitest'
import { data, failure, isFallback, oxeval, scorerBuilder, schemaName, thrownBy, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'

const { createNoiseSensitivityScorerLLM, ScorerRunError } = oxeval

const server = useJudgeServer()
const BASE = { baselineResponse: 'Exercise improves heart health and mood.', noisyQuery: 'What are the benefits of exercise? Also, is chocolate a vegetable?' }
const make = (extra: Record<string, unknown> = {}, settings: Record<string, unknown> = {}) => scorerBuilder(server, createNoiseSensitivityScorerLLM, { tag: 'ns' })({ ...BASE, ...extra }, settings)

const isAnalyze = (req: RecordedRequest) => schemaName(req) === 'noise_sensitivity_analysis'
const isReason = (req: RecordedRequest) => req.user.includes('explain a noise sensitivity score')

const DIMS = ['content_accuracy', 'completeness', 'relevance', 'consistency', 'hallucination_resistance']
const dims = (levels: string[]) => levels.map((impactLevel, i) => ({ dimension: DIMS[i] ?? `d${i}`, impactLevel, specificChanges: 'c', noiseInfluence: 'n' }))
function script(levels: string[], robustnessScore: number, majorIssues: string[] = []) {
  server.on(isAnalyze, { json: { dimensions: dims(levels), overallAssessment: 'scripted', majorIssues, robustnessScore } })
  server.on(isReason, 'The score is X because the agent stayed focused.')
}
const run = { input: 'What are the benefits of exercise?', output: 'Exercise improves heart health and mood. Chocolate is not a vegetable.' }
const five = (l: string) => [l, l, l, l, l]

describe('identity', () => {
  it("Mastra's id, name and steps", () => {
    const s = make()
    expect([s.id, s.name, s.type]).toEqual(['noise-sensitivity-scorer', 'Noise Sensitivity (LLM)', 'agent'])
    expect(s.getSteps().map((x: Any) => [x.name, x.type])).toEqual([
      ['analyze', 'prompt'],
      ['generateScore', 'function'],
      ['generateReason', 'prompt'],
    ])
  })
})

describe('scoring', () => {
  it("the judge's robustness score when consistent with the impact levels; result keys as Mastra", async () => {
    script(['minimal', 'none', 'minimal', 'minimal', 'none'], 0.85)
    const r: Any = await make({ noiseType: 'distraction' }).run(run)
    expect(r.score).toBe(0.85)
    expect(r.reason).toBe('The score is X because the agent stayed focused.')
    expect(Object.keys(r)).toEqual([
      'input', 'output', 'runId', 'score', 'generateScorePrompt', 'reason', 'generateReasonPrompt',
      'preprocessStepResult', 'preprocessPrompt', 'analyzeStepResult', 'analyzePrompt', 'judge',
    ])
    expect(r.analyzeStepResult.majorIssues).toEqual([])
    expect(data(server.requests[0])).toEqual({ query: run.input, baselineResponse: BASE.baselineResponse, noisyQuery: BASE.noisyQuery, noisyResponse: run.output, noiseType: 'distraction' })
    expect(data(server.requests[1])).toMatchObject({ query: run.input, score: 0.85, majorIssues: [], overallAssessment: 'scripted' })
    expect((data(server.requests[1]) as Any).impacts[0]).toEqual({ dimension: 'content_accuracy', impactLevel: 'minimal' })
  })

  it('a robustness score far from the levels gives way to the lower; major issues cost 0.1 each (max 0.3)', async () => {
    script(five('significant'), 0.9, ['derailed'])
    expect((await make().run(run)).score).toBe(0.2)
    server.reset()
    script(five('none'), 1, ['a', 'b', 'c', 'd'])
    expect((await make().run(run)).score).toBe(0.7)
  })

  it('scoring options top-level or under options, merged with the defaults', async () => {
    const cases: [Record<string, unknown>, number][] = [
      [{}, 0.3],
      [{ scoring: { impactWeights: { significant: 0.8 } } }, 0.9],
      [{ options: { scoring: { discrepancyThreshold: 1 } } }, 0.9],
      [{ scoring: { penalties: { majorIssuePerItem: 0 } } }, 0.3],
    ]
    for (const [opts, want] of cases) {
      server.reset()
      script(five('significant'), 0.9)
      expect([opts, (await make(opts).run(run)).score]).toEqual([opts, want])
    }
  })

  it('impact levels as a model may write them are normalized', async () => {
    script(five(' None '), 1)
    const r: Any = await make().run(run)
    expect(r.score).toBe(1)
    expect(r.analyzeStepResult.dimensions[0].impactLevel).toBe('none')
  })

  it('missing dimensions: one fallback naming them, then accepted with a warning', async () => {
    script(['none', 'none'], 1)
    const r: Any = await make().run(run)
    expect(r.score).toBe(1)
    expect(r.warnings).toEqual(['analyze: dimension(s) missing: relevance, consistency, hallucination_resistance'])
    expect(server.requests.filter(isAnalyze).map(isFallback)).toEqual([false, true])
  })
})

describe('inputs', () => {
  it('baselineResponse / noisyQuery / noiseType per run win over the factory options', async () => {
    script(five('none'), 1)
    await make().run({ ...run, baselineResponse: 'run baseline', noisyQuery: 'run noisy', noiseType: 'run type' })
    expect(data(server.requests[0])).toMatchObject({ baselineResponse: 'run baseline', noisyQuery: 'run noisy', noiseType: 'run type' })
  })

  it('a factory without them works when every run brings them', async () => {
    script(five('none'), 1)
    const bare = scorerBuilder(server, createNoiseSensitivityScorerLLM, { tag: 'ns' })()
    const r = await bare.run({ ...run, ...BASE })
    expect(r.score).toBe(1)
  })

  it('missing texts are TypeErrors naming where to put them, with no judge call', async () => {
    const bare = scorerBuilder(server, createNoiseSensitivityScorerLLM, { tag: 'ns' })()
    const cases: [Any, Record<string, unknown>, RegExp][] = [
      [bare, run, /the baseline response \(the agent's answer to the clean query\) is missing: pass run\.baselineResponse or the scorer's baselineResponse option/],
      [bare, { ...run, baselineResponse: 'b' }, /the noisy query is missing: pass run\.noisyQuery/],
      [make(), { output: 'x' }, /the original query is missing/],
      [make(), { input: 'q', output: '' }, /the noisy response is missing/],
      [make(), { ...run, noisyQuery: 5 }, /run\.noisyQuery must be a string; got number/],
    ]
    for (const [s, r, want] of cases) {
      const e = await failure(s.run(r))
      expect(e).toBeInstanceOf(TypeError)
      expect(e.message).toMatch(want)
    }
    expect(server.requests).toHaveLength(0)
  })
})

describe('factory options are TypeErrors at creation', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ baselineResponse: '' }, /options\.baselineResponse must not be empty/],
    [{ options: { noisyQuery: 1 } }, /options\.options\.noisyQuery must be a string; got number/],
    [{ scoring: { impactWeights: { severe: 2 } } }, /options\.scoring\.impactWeights\.severe must be a number at least 0 and at most 1; got 2/],
    [{ options: { scoring: { penalties: { maxMajorIssuePenalty: -1 } } } }, /options\.options\.scoring\.penalties\.maxMajorIssuePenalty must be a number at least 0/],
    [{ scoring: { discrepancyThreshold: 'x' } }, /options\.scoring\.discrepancyThreshold must be a number; got string/],
    [{ scoring: [] }, /options\.scoring must be an object; got array/],
  ]
  it.each(cases)('%j', (opts, want) => {
    const e = thrownBy(() => createNoiseSensitivityScorerLLM({ model: 'openai/gpt-4o-mini', ...opts } as Any))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toMatch(want)
  })
})

describe('faults', () => {
  it('a transient hang on analyze times out and is retried', async () => {
    server.on(isAnalyze, { fault: 'hang', hangMs: 2000 }, { times: 1 })
    script(five('none'), 1)
    const r: Any = await make({}, { timeoutMs: 300 }).run(run)
    expect(r.score).toBe(1)
    expect(r.judge.analyze.executions[0]).toMatchObject({ status: 'success', modelCallCount: 2 })
  })

  it('a persistent truncated reply on analyze fails there', async () => {
    server.on(isAnalyze, { content: '{"dimensions": [', finishReason: 'length' })
    const e = await failure(make().run(run))
    expect(e).toBeInstanceOf(ScorerRunError)
    expect([e.failedStep, e.completedSteps, e.code]).toEqual(['analyze', [], 'OXEVAL_JUDGE_TRUNCATED'])
  })

  it('a persistent 502 on generateReason keeps the score and the analysis', async () => {
    server.on(isReason, { status: 502 })
    script(five('minimal'), 0.85)
    const e = await failure(make({}, { maxRetries: 0 }).run(run))
    expect([e.failedStep, e.completedSteps, e.code]).toEqual(['generateReason', ['analyze', 'generateScore'], 'OXEVAL_JUDGE_HTTP'])
    expect(e.result.score).toBe(0.85)
    expect(e.result.analyzeStepResult.robustnessScore).toBe(0.85)
  })
})
