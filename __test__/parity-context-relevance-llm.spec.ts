// Parity with @mastra/evals 1.10.2's createContextRelevanceScorerLLM, offline: both libraries
// are pointed at ONE scripted judge that answers the analyze step (recognized by the
// `evaluations` property of the requested JSON schema) and the reason step with the same
// replies, so any difference in score, step results or result keys comes from how each
// library reads the run, the options and does its math. Deliberate differences (see
// docs/decision-tables/context-relevance-llm.md) are asserted as such.
import { describe, expect, it } from 'vitest'
import { createContextRelevanceScorerLLM as mastraScorer } from '@mastra/evals/scorers/prebuilt'
import { useParity } from './helpers/parity'
import { data, oxeval, type Any } from './helpers/setup'

interface Reply {
  evaluations: unknown[]
  missingContext?: string[]
  reason: string
}
const parity = useParity<Reply>({ analyze: { property: 'evaluations', schema: 'context_relevance_llm_analysis' } }, (c, step) => {
  if (step === 'analyze') {
    const json: Any = { evaluations: c.evaluations, overallAssessment: 'scripted assessment' }
    if (c.missingContext) json.missingContext = c.missingContext
    return { json }
  }
  return c.reason
})
const { server, stepOf } = parity

const ev = (i: number, piece: string, relevanceLevel: string, wasUsed: boolean) => ({ context_index: i, contextPiece: piece, relevanceLevel, wasUsed, reasoning: `because ${i}` })
const Q = 'What are the benefits of exercise?'
const A = 'Exercise improves heart health and mood.'
const CTX = ['Exercise strengthens the heart.', 'A balanced diet matters.', 'Physical activity reduces stress.']

function runBoth(reply: Reply, options: Record<string, unknown>, run: Record<string, unknown>) {
  const m = mastraScorer({ model: parity.mastraModel(), options: options as Any })
  const o = oxeval.createContextRelevanceScorerLLM({ model: parity.oxModel('parity-cr'), modelSettings: { retryDelayMs: 1 }, options } as Any)
  return parity.runBoth(reply, m, o, run)
}

interface Case {
  name: string
  reply: Reply
  options?: Record<string, unknown>
  score: number
}

const cases: Case[] = [
  {
    name: "Mastra's example: two high pieces used, one irrelevant",
    reply: { evaluations: [ev(0, CTX[0], 'high', true), ev(1, CTX[1], 'none', false), ev(2, CTX[2], 'high', true)], missingContext: [], reason: 'The score is 0.67 because two of three pieces are relevant and used.' },
    score: 0.67,
  },
  {
    name: 'an unused high piece and one missing item',
    reply: { evaluations: [ev(0, CTX[0], 'high', false), ev(1, CTX[1], 'low', false), ev(2, CTX[2], 'medium', true)], missingContext: ['sleep benefits'], reason: 'The score is 0.42 because.' },
    // (1 + 0.3 + 0.7) / 3 = 0.667 − 0.1 − 0.15 = 0.4167
    score: 0.42,
  },
  {
    name: 'missing context capped at 0.5, floored at 0',
    reply: { evaluations: [ev(0, CTX[0], 'low', false), ev(1, CTX[1], 'none', false), ev(2, CTX[2], 'medium', false)], missingContext: ['a', 'b', 'c', 'd', 'e'], reason: 'The score is 0 because.' },
    score: 0,
  },
  {
    name: 'scale 10 and custom penalties (merged with the defaults)',
    reply: { evaluations: [ev(0, CTX[0], 'high', false), ev(1, CTX[1], 'high', false), ev(2, CTX[2], 'medium', true)], missingContext: ['x', 'y'], reason: 'The score is 6.3 because.' },
    options: { scale: 10, penalties: { unusedHighRelevanceContext: 0.05 } },
    // (1 + 1 + 0.7) / 3 = 0.9 − 2 × 0.05 − 2 × 0.15 = 0.5 → × 10
    score: 5,
  },
  {
    name: 'missingContext left out by the judge (schema default [])',
    reply: { evaluations: [ev(0, CTX[0], 'medium', true), ev(1, CTX[1], 'medium', true), ev(2, CTX[2], 'high', true)], reason: 'The score is 0.8 because.' },
    score: 0.8,
  },
]

describe('context relevance (LLM) parity with @mastra/evals 1.10.2 (one scripted judge)', () => {
  it.each(cases)('$name', async (c) => {
    const { mr, or, mreq, oreq } = await runBoth(c.reply, { context: CTX, ...c.options }, { input: Q, output: A, runId: 'parity-run' })
    expect(mr.score).toBe(c.score)
    expect(or.score).toBe(c.score)
    expect(or.reason).toBe(mr.reason)
    // deliberate: oxeval's analyzeStepResult always has missingContext ([] when the judge left it out)
    expect(or.analyzeStepResult).toEqual({ ...mr.analyzeStepResult, missingContext: mr.analyzeStepResult.missingContext ?? [] })
    if (c.reply.missingContext) expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
    else expect('missingContext' in mr.analyzeStepResult).toBe(false)
    expect(or.preprocessStepResult).toEqual(mr.preprocessStepResult)
    expect(Object.keys(or)).toEqual(Object.keys(mr))
    expect(or.runId).toBe(mr.runId)
    expect(mreq.map(stepOf)).toEqual(['analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['analyze', 'generateReason'])
    // both send the same texts
    expect(data(oreq[0])).toEqual({ query: Q, response: A, context: CTX })
    for (const t of [Q, A, ...CTX]) expect(mreq[0].user).toContain(t)
  })

  it('agent-shaped run with a contextExtractor: both call it and read the same texts', async () => {
    const msg = (role: string, text: string) => ({ id: `${role}-1`, role, createdAt: new Date('2025-01-01T00:00:00Z'), content: { format: 2, parts: [{ type: 'text', text }] } })
    const run = {
      input: { inputMessages: [msg('user', Q)], rememberedMessages: [], systemMessages: [], taggedSystemMessages: {} },
      output: [msg('assistant', A)],
    }
    const seen: unknown[][] = []
    const contextExtractor = (input: unknown, output: unknown) => {
      seen.push([input, output])
      return CTX.slice(0, 2)
    }
    const reply = { evaluations: [ev(0, CTX[0], 'high', true), ev(1, CTX[1], 'low', false)], missingContext: [], reason: 'The score is 0.65 because.' }
    const { mr, or, oreq, mreq } = await runBoth(reply, { contextExtractor }, run)
    expect(mr.score).toBe(0.65)
    expect(or.score).toBe(0.65)
    expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
    // Mastra calls the extractor in each of its three steps, oxeval once per run (deliberate)
    expect(seen).toHaveLength(4)
    for (const [input, output] of seen) expect([input, output]).toEqual([run.input, run.output])
    expect(data(oreq[0])).toEqual({ query: Q, response: A, context: CTX.slice(0, 2) })
    expect(mreq[0].user).toContain(CTX[1])
  })

  it('no evaluations at all: 0 with missing context, else the scale; oxeval asks once more (fallback) and scales (deliberate)', async () => {
    for (const [missingContext, scale, mastraScore, oxScore] of [
      [['x'], 1, 0, 0],
      [[], 1, 1, 1],
      [[], 10, 1, 10],
    ] as const) {
      const reply = { evaluations: [], missingContext: [...missingContext], reason: 'The score is n because.' }
      const { mr, or, mreq, oreq } = await runBoth(reply, { context: CTX, scale }, { input: Q, output: A })
      expect(mr.score).toBe(mastraScore)
      expect(or.score).toBe(oxScore)
      expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
      expect(mreq.map(stepOf)).toEqual(['analyze', 'generateReason'])
      // the missed expectation (one evaluation per piece) gets one fallback, then a warning
      expect(oreq.map(stepOf)).toEqual(['analyze', 'analyze', 'generateReason'])
      expect(or.warnings).toEqual(['analyze: 0 evaluations for 3 context pieces'])
    }
  })

  it('no context at all: Mastra scores the full scale, oxeval rejects with a TypeError (deliberate)', async () => {
    const reply = { evaluations: [], missingContext: [], reason: 'No context.' }
    parity.current = reply
    const m = mastraScorer({ model: parity.mastraModel(), options: { contextExtractor: () => [] } as Any })
    const msg = (role: string, text: string) => ({ id: `${role}-1`, role, createdAt: new Date(), content: { format: 2, parts: [{ type: 'text', text }] } })
    const run = { input: { inputMessages: [msg('user', Q)], rememberedMessages: [], systemMessages: [], taggedSystemMessages: {} }, output: [msg('assistant', A)] }
    const mr: Any = await m.run(run as Any)
    expect(mr.score).toBe(1)
    const o = oxeval.createContextRelevanceScorerLLM({ model: parity.oxModel('parity-cr'), options: { contextExtractor: () => [] } } as Any)
    const n = server.requests.length
    await expect(o.run(run)).rejects.toThrow(TypeError)
    expect(server.requests.length).toBe(n)
    parity.current = undefined
    // Mastra's factory demands a context source; oxeval's accepts per-run contexts instead
    expect(() => mastraScorer({ model: 'openai/gpt-4o-mini', options: {} as Any })).toThrow(/context or contextExtractor is required/)
    expect(() => oxeval.createContextRelevanceScorerLLM({ model: 'openai/gpt-4o-mini' })).not.toThrow()
    // both reject an empty context option at the factory
    expect(() => mastraScorer({ model: 'openai/gpt-4o-mini', options: { context: [] } as Any })).toThrow()
    expect(() => oxeval.createContextRelevanceScorerLLM({ model: 'openai/gpt-4o-mini', context: [] })).toThrow(TypeError)
  })
})
