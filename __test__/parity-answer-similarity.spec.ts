// Parity with @mastra/evals 1.10.2's createAnswerSimilarityScorer, offline: both libraries are
// pointed at ONE scripted judge that answers preprocess (schema property `outputUnits`),
// analyze (`matches`) and the reason with the same replies, so any difference in score, step
// results or result keys comes from how each library reads the run and options and does its
// math. Deliberate differences (docs/decision-tables/answer-similarity.md) are asserted as such.
import { describe, expect, it } from 'vitest'
import { createAnswerSimilarityScorer as mastraScorer } from '@mastra/evals/scorers/prebuilt'
import { expectSameResults, useParity } from './helpers/parity'
import { data, failure, oxeval, type Any } from './helpers/setup'

interface Reply {
  units: { outputUnits: string[]; groundTruthUnits: string[] }
  analysis: { matches: unknown[]; extraInOutput: string[]; contradictions: unknown[] }
  reason: string
}
const parity = useParity<Reply>({ preprocess: { property: 'outputUnits', schema: 'answer_similarity_units' }, analyze: { property: 'matches', schema: 'answer_similarity_analysis' } }, (c, step) => {
  if (step === 'preprocess') return { json: c.units }
  if (step === 'analyze') return { json: c.analysis }
  return c.reason
})
const { server, stepOf } = parity

const m = (g: string, o: string | null, matchType: string) => ({ groundTruthUnit: g, outputUnit: o, matchType, explanation: `${matchType}` })
const contra = (o: string, g: string) => ({ outputUnit: o, groundTruthUnit: g, explanation: 'contradicts' })

function runBoth(reply: Reply, options: Record<string, unknown> | undefined, run: Record<string, unknown>) {
  const m = mastraScorer({ model: parity.mastraModel(), ...(options ? { options } : {}) } as Any)
  const o = oxeval.createAnswerSimilarityScorer({ model: parity.oxModel('parity-as'), modelSettings: { retryDelayMs: 1 }, ...(options ? { options } : {}) } as Any)
  return parity.runBoth(reply, m, o, run)
}

const OUT = 'Paris is the capital of France. It has 3 million people.'
const GT = 'Paris is the capital of France. It lies on the Seine. About 2 million people live there.'
const GTU = ['Paris is the capital of France', 'Paris lies on the Seine', 'about 2 million people live in Paris']
const OU = ['Paris is the capital of France', 'Paris has 3 million people']

interface Case {
  name: string
  analysis: Reply['analysis']
  options?: Record<string, unknown>
  score: number
}
const cases: Case[] = [
  {
    name: 'exact, missing and a contradiction (default penalty 1 → 0)',
    analysis: { matches: [m(GTU[0], OU[0], 'exact'), m(GTU[1], null, 'missing'), m(GTU[2], null, 'missing')], extraInOutput: [], contradictions: [contra(OU[1], GTU[2])] },
    score: 0,
  },
  {
    name: 'exact, semantic, partial',
    analysis: { matches: [m(GTU[0], OU[0], 'exact'), m(GTU[1], OU[0], 'semantic'), m(GTU[2], OU[1], 'partial')], extraInOutput: [], contradictions: [] },
    // (1.2 + 0.8 + 0.4) / 3.6
    score: 0.67,
  },
  {
    name: 'extra information capped at 0.2',
    analysis: { matches: [m(GTU[0], OU[0], 'exact'), m(GTU[1], OU[0], 'exact'), m(GTU[2], OU[1], 'exact')], extraInOutput: ['a', 'b', 'c', 'd', 'e'], contradictions: [] },
    score: 0.8,
  },
  {
    name: 'options (scale 10, contradictionPenalty 0.1, semanticThreshold 0.6) merged with the defaults',
    analysis: { matches: [m(GTU[0], OU[0], 'exact'), m(GTU[1], OU[0], 'semantic'), m(GTU[2], null, 'missing')], extraInOutput: ['x'], contradictions: [contra(OU[1], GTU[2])] },
    options: { scale: 10, contradictionPenalty: 0.1, semanticThreshold: 0.6 },
    // (1.2 + 0.6 − 0.15) / 3.6 = 0.4583 − 0.1 − 0.05 = 0.3083 → × 10
    score: 3.08,
  },
  {
    name: 'only missing units: clamped to 0',
    analysis: { matches: [m(GTU[0], null, 'missing')], extraInOutput: [], contradictions: [] },
    score: 0,
  },
]

describe('answer similarity parity with @mastra/evals 1.10.2 (one scripted judge)', () => {
  it.each(cases)('$name', async (c) => {
    const reply: Reply = { units: { outputUnits: OU, groundTruthUnits: c.analysis.matches.length === 1 ? [GTU[0]] : GTU }, analysis: c.analysis, reason: `The score is ${c.score}/1 because.` }
    const { mr, or, mreq, oreq } = await runBoth(reply, c.options, { output: OUT, groundTruth: GT, runId: 'parity-run' })
    expect(mr.score).toBe(c.score)
    expect(or.score).toBe(c.score)
    expectSameResults(or, mr)
    expect(mreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(data(oreq[0])).toEqual({ output: OUT, groundTruth: GT })
    expect(mreq[0].user).toContain(OUT)
    expect(mreq[0].user).toContain(GT)
    // the analyze step sees the units only, in both
    expect(data(oreq[1])).toEqual(reply.units)
    expect(mreq[1].user).not.toContain(GT)
    for (const u of reply.units.groundTruthUnits) expect(mreq[1].user).toContain(u)
  })

  it('no ground-truth units: both score 0; oxeval skips the analyze call (deliberate)', async () => {
    const reply: Reply = { units: { outputUnits: OU, groundTruthUnits: [] }, analysis: { matches: [], extraInOutput: [], contradictions: [] }, reason: 'The score is 0/1 because.' }
    const { mr, or, mreq, oreq } = await runBoth(reply, undefined, { output: OUT, groundTruth: GT })
    expect([mr.score, or.score]).toEqual([0, 0])
    expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
    expect(mreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['preprocess', 'generateReason'])
  })

  it('no ground truth: Mastra fails the run at preprocess, oxeval rejects with a TypeError before any call (deliberate)', async () => {
    const reply: Reply = { units: { outputUnits: [], groundTruthUnits: [] }, analysis: { matches: [], extraInOutput: [], contradictions: [] }, reason: 'x' }
    parity.current = reply
    const me = await failure(mastraScorer({ model: parity.mastraModel() }).run({ output: OUT } as Any))
    expect(String(me.message)).toMatch(/requires ground truth/)
    const n = server.requests.length
    const oe = await failure(oxeval.createAnswerSimilarityScorer({ model: parity.oxModel('parity-as') }).run({ output: OUT }))
    expect(oe).toBeInstanceOf(TypeError)
    expect(server.requests.length).toBe(n)
    parity.current = undefined
  })

  it('requireGroundTruth: false without a ground truth: both score 0; Mastra asks the judge three times, oxeval not at all (deliberate)', async () => {
    const reply: Reply = { units: { outputUnits: [], groundTruthUnits: [] }, analysis: { matches: [], extraInOutput: [], contradictions: [] }, reason: 'No ground truth.' }
    const { mr, or, mreq, oreq } = await runBoth(reply, { requireGroundTruth: false }, { output: OUT })
    expect([mr.score, or.score]).toEqual([0, 0])
    expect(or.preprocessStepResult).toEqual(mr.preprocessStepResult)
    expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
    expect(mreq).toHaveLength(3)
    expect(oreq).toHaveLength(0)
    expect(Object.keys(or)).toEqual(Object.keys(mr).filter((k) => k !== 'judge'))
  })
})
