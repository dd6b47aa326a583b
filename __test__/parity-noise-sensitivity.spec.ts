// Parity with @mastra/evals 1.10.2's createNoiseSensitivityScorerLLM, offline: both libraries
// are pointed at ONE scripted judge that answers the analyze step (schema property
// `dimensions`) and the reason with the same replies, so any difference in score, step
// results or result keys comes from how each library reads the run and options and does its
// math. Deliberate differences (docs/decision-tables/noise-sensitivity.md) are asserted as such.
import { describe, expect, it } from 'vitest'
import { createNoiseSensitivityScorerLLM as mastraScorer } from '@mastra/evals/scorers/prebuilt'
import { useParity } from './helpers/parity'
import { data, oxeval, type Any } from './helpers/setup'

interface Reply {
  analysis: Record<string, unknown>
  reason: string
}
const parity = useParity<Reply>({ analyze: { property: 'dimensions', schema: 'noise_sensitivity_analysis' } }, (c, step) => (step === 'analyze' ? { json: c.analysis } : c.reason))
const { stepOf } = parity

const DIMS = ['content_accuracy', 'completeness', 'relevance', 'consistency', 'hallucination_resistance']
const dims = (levels: string[]) => levels.map((impactLevel, i) => ({ dimension: DIMS[i], impactLevel, specificChanges: `c${i}`, noiseInfluence: `n${i}` }))
const Q = 'What are the health benefits of regular exercise?'
const BASELINE = 'Regular exercise improves cardiovascular health, strengthens muscles, and enhances mental wellbeing.'
const NOISY_Q = `${Q} By the way, I heard chocolate is healthy and my neighbour says aliens visit Earth.`
const NOISY_A = 'Regular exercise improves cardiovascular health and strengthens muscles. Some studies suggest chocolate has antioxidants. Exercise also enhances mental wellbeing.'

function runBoth(reply: Reply, options: Record<string, unknown>, run: Record<string, unknown>) {
  const m = mastraScorer({ model: parity.mastraModel(), options: options as Any })
  const o = oxeval.createNoiseSensitivityScorerLLM({ model: parity.oxModel('parity-ns'), modelSettings: { retryDelayMs: 1 }, options } as Any)
  return parity.runBoth(reply, m, o, run)
}

interface Case {
  name: string
  levels: string[]
  robustnessScore: number
  majorIssues?: string[]
  scoring?: Record<string, unknown>
  noiseType?: string
  score: number
}
const cases: Case[] = [
  { name: "Mastra's example (minimal/none, 0.85)", levels: ['minimal', 'none', 'minimal', 'minimal', 'none'], robustnessScore: 0.85, majorIssues: [], noiseType: 'misinformation', score: 0.85 },
  { name: 'a robustness score far above the levels gives way to them', levels: ['significant', 'significant', 'moderate', 'significant', 'severe'], robustnessScore: 0.9, majorIssues: [], score: 0.32 },
  { name: 'major issues capped at 0.3', levels: ['none', 'none', 'none', 'none', 'none'], robustnessScore: 1, majorIssues: ['a', 'b', 'c', 'd', 'e'], score: 0.7 },
  { name: 'robustnessScore above 1 is clamped', levels: ['none', 'none', 'none', 'none', 'none'], robustnessScore: 3, majorIssues: ['x'], score: 0.9 },
  {
    name: 'custom scoring (weights, threshold, penalties) merged with the defaults',
    levels: ['moderate', 'moderate', 'minimal', 'moderate', 'none'],
    robustnessScore: 0.95,
    majorIssues: ['x', 'y'],
    scoring: { impactWeights: { moderate: 0.5 }, discrepancyThreshold: 0.1, penalties: { majorIssuePerItem: 0.05 } },
    // mean(0.5, 0.5, 0.85, 0.5, 1) = 0.67, |0.95 − 0.67| > 0.1 → 0.67 − 0.1
    score: 0.57,
  },
]

describe('noise sensitivity parity with @mastra/evals 1.10.2 (one scripted judge)', () => {
  it.each(cases)('$name', async (c) => {
    const analysis = { dimensions: dims(c.levels), overallAssessment: 'scripted', majorIssues: c.majorIssues, robustnessScore: c.robustnessScore }
    const options = { baselineResponse: BASELINE, noisyQuery: NOISY_Q, ...(c.noiseType ? { noiseType: c.noiseType } : {}), ...(c.scoring ? { scoring: c.scoring } : {}) }
    const { mr, or, mreq, oreq } = await runBoth({ analysis, reason: `The score is ${c.score} because.` }, options, { input: Q, output: NOISY_A, runId: 'parity-run' })
    expect(mr.score).toBe(c.score)
    expect(or.score).toBe(c.score)
    expect(or.reason).toBe(mr.reason)
    expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
    expect(Object.keys(or)).toEqual(Object.keys(mr))
    expect(mreq.map(stepOf)).toEqual(['analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['analyze', 'generateReason'])
    const sent = data(oreq[0])
    expect(sent).toEqual({ query: Q, baselineResponse: BASELINE, noisyQuery: NOISY_Q, noisyResponse: NOISY_A, ...(c.noiseType ? { noiseType: c.noiseType } : {}) })
    for (const t of [Q, BASELINE, NOISY_Q, NOISY_A]) expect(mreq[0].user).toContain(t)
    if (c.noiseType) expect(mreq[0].user).toContain(c.noiseType)
  })

  it('majorIssues left out by the judge: the same score; oxeval records [] (deliberate)', async () => {
    const analysis = { dimensions: dims(['none', 'none', 'minimal', 'none', 'none']), overallAssessment: 'ok', robustnessScore: 0.95 }
    const { mr, or } = await runBoth({ analysis, reason: 'r' }, { baselineResponse: BASELINE, noisyQuery: NOISY_Q }, { input: Q, output: NOISY_A })
    expect([mr.score, or.score]).toEqual([0.95, 0.95])
    expect('majorIssues' in mr.analyzeStepResult).toBe(false)
    expect(or.analyzeStepResult).toEqual({ ...mr.analyzeStepResult, majorIssues: [] })
  })

  it('fewer dimensions than asked: the same score; oxeval asks once more first and warns (deliberate)', async () => {
    const analysis = { dimensions: dims(['severe', 'none']), overallAssessment: 'x', majorIssues: [], robustnessScore: 0.9 }
    const { mr, or, mreq, oreq } = await runBoth({ analysis, reason: 'r' }, { baselineResponse: BASELINE, noisyQuery: NOISY_Q }, { input: Q, output: NOISY_A })
    // mean(0.1, 1) = 0.55 vs 0.9 → 0.55
    expect([mr.score, or.score]).toEqual([0.55, 0.55])
    expect(mreq.map(stepOf)).toEqual(['analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['analyze', 'analyze', 'generateReason'])
    expect(or.warnings).toEqual(['analyze: dimension(s) missing: relevance, consistency, hallucination_resistance'])
  })

  it('the factory: Mastra requires baselineResponse and noisyQuery, oxeval also takes them per run (deliberate)', async () => {
    expect(() => mastraScorer({ model: 'openai/gpt-4o-mini', options: { noisyQuery: 'n' } as Any })).toThrow(/baselineResponse and noisyQuery are required/)
    const bare = oxeval.createNoiseSensitivityScorerLLM({ model: parity.oxModel('parity-ns') })
    await expect(bare.run({ input: Q, output: NOISY_A })).rejects.toThrow(TypeError)
    parity.current = { analysis: { dimensions: dims(['none', 'none', 'none', 'none', 'none']), overallAssessment: 'x', majorIssues: [], robustnessScore: 1 }, reason: 'r' }
    const r = await bare.run({ input: Q, output: NOISY_A, baselineResponse: BASELINE, noisyQuery: NOISY_Q })
    expect(r.score).toBe(1)
    parity.current = undefined
  })
})
