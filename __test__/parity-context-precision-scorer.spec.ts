// Parity with @mastra/evals 1.10.2's context precision scorer, offline: both libraries are
// pointed at ONE scripted judge that answers by the requested JSON schema with the same
// verdicts and reason. Deliberate differences, asserted as such
// (docs/decision-tables/context-precision-scorer.md): oxeval calls the contextExtractor once
// per run (Mastra again for the reason prompt) and for any input shape (Mastra only for an
// Agent's input and output), and a factory without any context is fine (run.context).
import { describe, expect, it } from 'vitest'
import { createContextPrecisionScorer as mastraScorer } from '@mastra/evals/scorers/prebuilt'
import { useParity } from './helpers/parity'
import { data, oxeval, type Any } from './helpers/setup'

interface Case {
  name: string
  input?: unknown
  output: unknown
  options: Record<string, unknown>
  /** [context_index, verdict] in the order the judge sends them. */
  verdicts: Array<[number, string]>
  score: number
  context: string[]
}

const parity = useParity<Case>({ analyze: 'verdicts' }, (c, step) => {
  if (step === 'analyze') return { json: { verdicts: c.verdicts.map(([context_index, verdict]) => ({ context_index, verdict, reason: `piece ${context_index}` })) } }
  return `The score is ${c.score} because of the scripted verdicts.`
})
const { stepOf } = parity

const CONTEXT = ['Exercise strengthens the heart.', 'A balanced diet matters.', 'Activity reduces stress.', 'Sleep needs vary.']
const msg = (role: string, text: string) => ({ id: `${role}-1`, role, createdAt: new Date('2025-01-01T00:00:00Z'), content: { format: 2, parts: [{ type: 'text', text }] } })
const agentInput = (text: string) => ({ inputMessages: [msg('user', text)], rememberedMessages: [], systemMessages: [], taggedSystemMessages: {} })

const cases: Case[] = [
  {
    name: 'relevant pieces at 0 and 2 of 4',
    input: 'What are the benefits of exercise?',
    output: 'Exercise helps the heart and reduces stress.',
    options: { context: CONTEXT },
    verdicts: [[0, 'yes'], [1, 'no'], [2, 'yes'], [3, 'no']],
    score: 0.83,
    context: CONTEXT,
  },
  {
    name: 'verdicts out of order are sorted by context_index (labels " Yes " read as yes by both)',
    input: 'What are the benefits of exercise?',
    output: 'Exercise reduces stress.',
    options: { context: CONTEXT },
    verdicts: [[3, 'no'], [2, ' Yes '], [0, 'no'], [1, 'no']],
    score: 0.33,
    context: CONTEXT,
  },
  {
    name: 'nothing relevant',
    input: 'What is the capital of France?',
    output: 'Paris.',
    options: { context: CONTEXT },
    verdicts: [[0, 'no'], [1, 'no'], [2, 'no'], [3, 'no']],
    score: 0,
    context: CONTEXT,
  },
  {
    name: 'all relevant, scale 10',
    input: 'q',
    output: 'a',
    options: { context: CONTEXT.slice(0, 2), scale: 10 },
    verdicts: [[0, 'yes'], [1, 'yes']],
    score: 10,
    context: CONTEXT.slice(0, 2),
  },
  {
    name: "an Agent's input and output with a contextExtractor (the only shape Mastra calls it for)",
    input: agentInput('Benefits of exercise?'),
    output: [msg('assistant', 'It strengthens the heart.')],
    options: { contextExtractor: () => CONTEXT.slice(0, 3) },
    verdicts: [[0, 'yes'], [1, 'no'], [2, 'no']],
    score: 1,
    context: CONTEXT.slice(0, 3),
  },
]

function runBoth(c: Case) {
  const m = mastraScorer({ model: parity.mastraModel(), options: c.options as Any })
  const o = oxeval.createContextPrecisionScorer({ model: parity.oxModel(), modelSettings: { retryDelayMs: 1 }, options: c.options as Any, contextExtractor: c.options.contextExtractor as Any })
  return parity.runBoth(c, m, o, { input: c.input, output: c.output, runId: 'parity-run' })
}

describe('context precision parity with @mastra/evals 1.10.2 (one scripted judge)', () => {
  it.each(cases)('$name', async (c) => {
    const { mr, or, mreq, oreq } = await runBoth(c)
    expect(or.score).toBe(c.score)
    expect(mr.score).toBe(c.score)
    expect(or.reason).toBe(mr.reason)
    // Mastra's score step sorts its analyze result in place; oxeval records it sorted and
    // with labels trimmed and lowercased
    const norm = (r: Any) => ({ verdicts: r.verdicts.map((v: Any) => ({ ...v, verdict: v.verdict.trim().toLowerCase() })) })
    expect(or.analyzeStepResult).toEqual(norm(mr.analyzeStepResult))
    expect(or.analyzeStepResult.verdicts.map((v: Any) => v.context_index)).toEqual(mr.analyzeStepResult.verdicts.map((v: Any) => v.context_index))
    expect(or.preprocessStepResult).toBeUndefined()
    expect(mr.preprocessStepResult).toBeUndefined()
    expect(Object.keys(or)).toEqual(Object.keys(mr))
    expect(mreq.map(stepOf)).toEqual(['analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['analyze', 'generateReason'])
    const d = data(oreq[0])
    expect(d.context).toEqual(c.context)
    for (const piece of c.context) expect(mreq[0].user).toContain(piece)
    expect(mreq[0].user).toContain(d.input as string)
    expect(mreq[0].user).toContain(d.output as string)
  })

  it('contextExtractor: Mastra calls it again for the reason prompt, oxeval once per run (deliberate)', async () => {
    const calls = { mastra: 0, oxeval: 0 }
    const c = cases[4]
    parity.current = c
    const m = mastraScorer({ model: parity.mastraModel(), options: { contextExtractor: () => (calls.mastra++, c.context) } })
    const o = oxeval.createContextPrecisionScorer({ model: parity.oxModel(), contextExtractor: () => (calls.oxeval++, c.context) })
    const mr: Any = await m.run({ input: c.input as Any, output: c.output as Any })
    const or: Any = await o.run({ input: c.input, output: c.output })
    expect(or.score).toBe(mr.score)
    expect(calls).toEqual({ mastra: 2, oxeval: 1 })
    parity.current = undefined
  })

  it('a contextExtractor with plain-string input: Mastra ignores it (no context → error), oxeval calls it (deliberate)', async () => {
    const c = { ...cases[0], options: {} }
    parity.current = c
    const m = mastraScorer({ model: parity.mastraModel(), options: { contextExtractor: () => CONTEXT } })
    await expect(m.run({ input: c.input as Any, output: c.output as Any })).rejects.toThrow()
    const o = oxeval.createContextPrecisionScorer({ model: parity.oxModel(), contextExtractor: () => CONTEXT })
    expect((await o.run({ input: c.input, output: c.output })).score).toBe(c.score)
    parity.current = undefined
  })

  it('factory checks: an empty context option throws in both; no context at the factory throws only in Mastra (deliberate: run.context)', () => {
    const model = { id: 'openai/gpt-4o-mini', url: 'http://127.0.0.1:9/v1', apiKey: 'x' }
    expect(() => mastraScorer({ model: model as Any, options: { context: [] } })).toThrow(/cannot be empty/)
    expect(() => oxeval.createContextPrecisionScorer({ model, context: [] })).toThrow(TypeError)
    expect(() => mastraScorer({ model: model as Any, options: {} })).toThrow(/Either context or contextExtractor/)
    expect(() => oxeval.createContextPrecisionScorer({ model })).not.toThrow()
  })
})
