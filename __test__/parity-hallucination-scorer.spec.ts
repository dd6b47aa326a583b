// Parity with @mastra/evals 1.10.2's hallucination scorer, offline: both libraries are pointed
// at ONE scripted judge that answers by the requested JSON schema with the same claims,
// verdicts and reason. Deliberate differences, asserted as such
// (docs/decision-tables/hallucination-scorer.md): labels trimmed and lowercased, no judge call
// for an empty output and no analyze call (nor analyze-step getContext call) without claims,
// no context at all is a TypeError.
import { describe, expect, it } from 'vitest'
import { createHallucinationScorer as mastraScorer } from '@mastra/evals/scorers/prebuilt'
import { expectSameResults, useParity } from './helpers/parity'
import { data, oxeval, type Any } from './helpers/setup'

interface Case {
  name: string
  input?: unknown
  output: unknown
  options?: Record<string, unknown>
  claims: string[]
  verdicts: string[]
  score: number
  mastraScore?: number
  context: string[]
}

const parity = useParity<Case>({ preprocess: 'claims', analyze: 'verdicts' }, (c, step) => {
  if (step === 'preprocess') return { json: { claims: c.claims } }
  if (step === 'analyze') return { json: { verdicts: c.verdicts.map((verdict, i) => ({ statement: c.claims[i] ?? '', verdict, reason: `verdict ${i + 1}` })) } }
  return `The score is ${c.score} because of the scripted verdicts.`
})
const { server, stepOf } = parity

const CONTEXT = ['SpaceX first landed a rocket booster in December 2015.', 'Reusable boosters cut launch costs by about 30%.']

const cases: Case[] = [
  {
    name: 'a subjective claim and a speculation are hallucinations; a paraphrase and a less precise date are not',
    input: 'Tell me about SpaceX.',
    output: 'SpaceX landed a booster in 2015. It made history. Reuse cut costs significantly. It might go to Mars soon.',
    options: { context: CONTEXT },
    claims: ['SpaceX landed a booster in 2015.', 'SpaceX made history.', 'Reusable boosters cut costs significantly.', 'SpaceX might go to Mars soon.'],
    verdicts: ['no', 'yes', 'no', 'yes'],
    score: 0.5,
    context: CONTEXT,
  },
  {
    name: 'nothing hallucinated',
    input: 'When did SpaceX first land a booster?',
    output: 'In December 2015.',
    options: { context: CONTEXT },
    claims: ['SpaceX first landed a booster in December 2015.'],
    verdicts: ['no'],
    score: 0,
    context: CONTEXT,
  },
  {
    name: 'everything hallucinated (a contradiction)',
    input: 'When did SpaceX first land a booster?',
    output: 'In 2012, cutting costs by 90%.',
    options: { context: CONTEXT },
    claims: ['SpaceX first landed a booster in 2012.', 'Reuse cut costs by 90%.'],
    verdicts: ['yes', 'yes'],
    score: 1,
    context: CONTEXT,
  },
  {
    name: 'scale 5 (options form)',
    input: 'q',
    output: 'SpaceX landed a booster in 2015. It made history. It might go to Mars.',
    options: { context: CONTEXT, scale: 5 },
    claims: ['SpaceX landed a booster in 2015.', 'SpaceX made history.', 'SpaceX might go to Mars.'],
    verdicts: ['no', 'yes', 'yes'],
    score: 3.33,
    context: CONTEXT,
  },
]

function runBoth(c: Case, oxOptions?: Record<string, unknown>) {
  const m = mastraScorer({ model: parity.mastraModel(), options: c.options as Any })
  const o = oxeval.createHallucinationScorer({ model: parity.oxModel(), modelSettings: { retryDelayMs: 1 }, options: (oxOptions ?? c.options) as Any })
  return parity.runBoth(c, m, o, { input: c.input, output: c.output, runId: 'parity-run' })
}

describe('hallucination parity with @mastra/evals 1.10.2 (one scripted judge)', () => {
  it.each(cases)('$name', async (c) => {
    const { mr, or, mreq, oreq } = await runBoth(c)
    expect(or.score).toBe(c.score)
    expect(mr.score).toBe(c.mastraScore ?? c.score)
    expectSameResults(or, mr)
    expect(mreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(mreq[0].user).toContain(data(oreq[0]).output as string)
    expect(data(oreq[1])).toEqual({ context: c.context, claims: c.claims })
    for (const piece of [...c.context, ...c.claims]) expect(mreq[1].user).toContain(piece)
  })

  it('getContext: called by both at analyze and generateReason with the same results, step and score', async () => {
    const c = cases[0]
    const seen: Record<string, Any[]> = { mastra: [], oxeval: [] }
    const getContext = (who: string) => async (p: Any) => {
      seen[who].push({ step: p.step, score: p.score, results: structuredClone(p.results), runId: p.run.runId, output: p.run.output })
      return CONTEXT
    }
    const { mr, or } = await runBoth({ ...c, options: { getContext: getContext('mastra') } }, { getContext: getContext('oxeval') })
    expect(or.score).toBe(mr.score)
    expect(seen.oxeval.map((x) => x.step)).toEqual(seen.mastra.map((x) => x.step))
    expect(seen.oxeval.map((x) => x.step)).toEqual(['analyze', 'generateReason'])
    expect(seen.oxeval).toEqual(seen.mastra)
  })

  it('labels as a model may write them ("YES"): oxeval counts them, Mastra compares exactly (deliberate)', async () => {
    const { mr, or } = await runBoth({ ...cases[2], verdicts: ['YES', ' yes'] })
    expect([or.score, mr.score]).toEqual([1, 0])
    expect(or.analyzeStepResult.verdicts.map((v: Any) => v.verdict)).toEqual(['yes', 'yes'])
  })

  it('no claims: the same score and step results; oxeval skips the analyze call (deliberate)', async () => {
    const { mr, or, mreq, oreq } = await runBoth({ ...cases[0], output: 'Hi!', claims: [], verdicts: [], score: 0 })
    expect([or.score, mr.score]).toEqual([0, 0])
    expect(or.preprocessStepResult).toEqual(mr.preprocessStepResult)
    expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
    expect(mreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['preprocess', 'generateReason'])
  })

  it('empty output: score 0 in both; oxeval makes no judge call (deliberate)', async () => {
    const { mr, or, mreq, oreq } = await runBoth({ ...cases[0], output: '', claims: [], verdicts: [], score: 0 })
    expect([or.score, mr.score]).toEqual([0, 0])
    expect(or.preprocessStepResult).toEqual(mr.preprocessStepResult)
    expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
    expect([mreq.length, oreq.length]).toEqual([3, 0])
  })

  it('no context anywhere: Mastra judges against [] (every claim unsupported → 1); oxeval is a TypeError before any call (deliberate)', async () => {
    const c = { ...cases[0], options: undefined, verdicts: ['yes', 'yes', 'yes', 'yes'], score: 1 }
    parity.current = c
    const mr: Any = await mastraScorer({ model: parity.mastraModel() }).run({ output: c.output as Any })
    expect(mr.score).toBe(1)
    const n = server.requests.length
    const o = oxeval.createHallucinationScorer({ model: parity.oxModel() })
    await expect(o.run({ output: c.output })).rejects.toThrow(TypeError)
    expect(server.requests.length).toBe(n)
    parity.current = undefined
  })
})
