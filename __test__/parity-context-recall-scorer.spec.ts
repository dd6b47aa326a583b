// Parity with @mastra/evals 1.10.2's context recall scorer, offline: both libraries are pointed
// at ONE scripted judge that answers by the requested JSON schema with the same claims,
// verdicts and reason. Deliberate differences, asserted as such
// (docs/decision-tables/context-recall-scorer.md): a missing groundTruth is a TypeError (Mastra
// scores 0 after three calls), no analyze call without claims, the contextExtractor is called
// once per run and for any input shape.
import { describe, expect, it } from 'vitest'
import { createContextRecallScorer as mastraScorer } from '@mastra/evals/scorers/prebuilt'
import { useParity } from './helpers/parity'
import { data, oxeval, type Any } from './helpers/setup'

interface Case {
  name: string
  groundTruth: unknown
  options: Record<string, unknown>
  claims: string[]
  verdicts: string[]
  score: number
  context: string[]
}

const parity = useParity<Case>({ preprocess: 'claims', analyze: 'verdicts' }, (c, step) => {
  if (step === 'preprocess') return { json: { claims: c.claims } }
  if (step === 'analyze') return { json: { verdicts: c.verdicts.map((verdict, i) => ({ verdict, reason: `claim ${i}` })) } }
  return `The score is ${c.score} because of the scripted verdicts.`
})
const { server, stepOf } = parity

const CONTEXT = ['Albert Einstein was born on 14 March 1879 in Ulm.', 'He published special relativity in 1905.']
const TRUTH = 'Einstein was born in Ulm in 1879 and won the Nobel Prize in 1921.'
const CLAIMS = ['Einstein was born in Ulm.', 'Einstein was born in 1879.', 'Einstein won the Nobel Prize in 1921.']

const cases: Case[] = [
  { name: 'two of three claims covered', groundTruth: TRUTH, options: { context: CONTEXT }, claims: CLAIMS, verdicts: ['yes', 'yes', 'no'], score: 0.67, context: CONTEXT },
  { name: 'everything covered', groundTruth: TRUTH, options: { context: CONTEXT }, claims: CLAIMS.slice(0, 2), verdicts: ['yes', 'yes'], score: 1, context: CONTEXT },
  { name: 'nothing covered', groundTruth: TRUTH, options: { context: CONTEXT }, claims: CLAIMS, verdicts: ['no', 'no', 'no'], score: 0, context: CONTEXT },
  { name: 'labels " YES " read as yes by both; scale 10', groundTruth: TRUTH, options: { context: CONTEXT, scale: 10 }, claims: CLAIMS, verdicts: [' YES ', 'no', 'Yes'], score: 6.67, context: CONTEXT },
  { name: 'fewer verdicts than claims: both divide by the claims', groundTruth: TRUTH, options: { context: CONTEXT }, claims: CLAIMS, verdicts: ['yes'], score: 0.33, context: CONTEXT },
  { name: 'more yes verdicts than claims: both cap at 1', groundTruth: TRUTH, options: { context: CONTEXT }, claims: CLAIMS.slice(0, 2), verdicts: ['yes', 'yes', 'yes'], score: 1, context: CONTEXT },
]

function runBoth(c: Case) {
  const m = mastraScorer({ model: parity.mastraModel(), options: c.options as Any })
  const o = oxeval.createContextRecallScorer({ model: parity.oxModel(), modelSettings: { retryDelayMs: 1, maxRetries: 0 }, options: c.options as Any })
  return parity.runBoth(c, m, o, { input: 'Tell me about Einstein.', output: 'He was a physicist.', groundTruth: c.groundTruth, runId: 'parity-run' })
}

describe('context recall parity with @mastra/evals 1.10.2 (one scripted judge)', () => {
  it.each(cases)('$name', async (c) => {
    const { mr, or, mreq, oreq } = await runBoth(c)
    expect(or.score).toBe(c.score)
    expect(mr.score).toBe(c.score)
    expect(or.reason).toBe(mr.reason)
    expect(or.preprocessStepResult).toEqual(mr.preprocessStepResult)
    const norm = (r: Any) => ({ verdicts: r.verdicts.map((v: Any) => ({ ...v, verdict: v.verdict.trim().toLowerCase() })) })
    expect(or.analyzeStepResult).toEqual(norm(mr.analyzeStepResult))
    // oxeval adds `warnings` when the judge's verdict count stayed wrong (never silent)
    expect(Object.keys(or).filter((k) => k !== 'warnings')).toEqual(Object.keys(mr))
    if (c.verdicts.length !== c.claims.length) expect(or.warnings).toEqual([`analyze: ${c.verdicts.length} verdict${c.verdicts.length === 1 ? '' : 's'} for ${c.claims.length} claims`])
    else expect(or.warnings).toBeUndefined()
    expect(mreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    // oxeval's count mismatch gets one fallback attempt before the score (a deliberate difference)
    expect([...new Set(oreq.map(stepOf))]).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(data(oreq[0])).toEqual({ ground_truth: TRUTH })
    expect(mreq[0].user).toContain(TRUTH)
    expect(data(oreq[1])).toEqual({ context: c.context, claims: c.claims })
    for (const piece of [...c.context, ...c.claims]) expect(mreq[1].user).toContain(piece)
  })

  it('no claims: the same score and step results; oxeval skips the analyze call (deliberate)', async () => {
    const { mr, or, mreq, oreq } = await runBoth({ ...cases[0], claims: [], verdicts: [], score: 0 })
    expect([or.score, mr.score]).toEqual([0, 0])
    expect(or.preprocessStepResult).toEqual(mr.preprocessStepResult)
    expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
    expect(mreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['preprocess', 'generateReason'])
  })

  it('no groundTruth: Mastra scores 0 after three calls; oxeval is a TypeError before any call (deliberate)', async () => {
    parity.current = { ...cases[0], claims: [], verdicts: [], score: 0 }
    const mr: Any = await mastraScorer({ model: parity.mastraModel(), options: { context: CONTEXT } }).run({ output: 'x' } as Any)
    expect(mr.score).toBe(0)
    expect(server.requests).toHaveLength(3)
    const o = oxeval.createContextRecallScorer({ model: parity.oxModel(), context: CONTEXT })
    await expect(o.run({ output: 'x' })).rejects.toThrow(/ground truth is missing/)
    expect(server.requests).toHaveLength(3)
    parity.current = undefined
  })

  it('an object groundTruth: Mastra sends its JSON text, oxeval its stable JSON text (keys sorted) — the same for sorted keys', async () => {
    const gt = { answer: 'Ulm', year: 1879 }
    const { mr, or, mreq, oreq } = await runBoth({ ...cases[1], groundTruth: gt })
    expect(or.score).toBe(mr.score)
    expect(data(oreq[0]).ground_truth).toBe(JSON.stringify(gt))
    expect(mreq[0].user).toContain(JSON.stringify(gt))
  })
})
