// Parity with @mastra/evals 1.10.2's prompt alignment scorer on one scripted judge (see
// parity-bias.spec.ts); deliberate differences: docs/decision-tables/prompt-alignment.md.
import { describe, expect, it } from 'vitest'
import { createPromptAlignmentScorerLLM as mastraScorer } from '@mastra/evals/scorers/prebuilt'
import { expectSameResults, useParity } from './helpers/parity'
import { data, failure, oxeval } from './helpers/setup'

interface Case {
  name: string
  options?: Record<string, unknown>
  input: unknown
  output: unknown
  dims: [number, number, number, number]
  score: number
  /** What oxeval sends on the DATA line. */
  sent: Record<string, unknown>
}

const analysis = ([i, r, c, a]: number[]) => ({
  intentAlignment: { score: i, primaryIntent: 'p', isAddressed: true, reasoning: 'r' },
  requirementsFulfillment: { requirements: [{ requirement: 'x', isFulfilled: false, reasoning: 'r' }], overallScore: r },
  completeness: { score: c, missingElements: ['m'], reasoning: 'r' },
  responseAppropriateness: { score: a, formatAlignment: true, toneAlignment: true, reasoning: 'r' },
  overallAssessment: 'o',
})
const parity = useParity<Case>({ analyze: 'intentAlignment' }, (c, step) => {
  if (step === 'analyze') return { json: analysis(c.dims) }
  return `The score is ${c.score} because of the scripted analysis.`
})
const { stepOf } = parity

const msg = (role: string, text: string, id: string) => ({ id, role, createdAt: new Date('2025-01-01T00:00:00Z'), content: { format: 2, parts: [{ type: 'text', text }] } })
const agentInput = {
  inputMessages: [msg('system', 'Inline system.', 's0'), msg('user', 'Book the cheaper one.', 'u2')],
  rememberedMessages: [msg('user', 'Two hotels?', 'u1'), msg('assistant', 'Astra (90) or Bora (70).', 'a1')],
  systemMessages: [{ role: 'system', content: 'Be brief.' }, { role: 'system', content: [{ type: 'text', text: 'Use' }, { type: 'text', text: 'euros.' }] }],
  taggedSystemMessages: { memory: [{ role: 'system', content: 'Likes quiet.' }] },
}
const SYSTEM = 'Be brief.\n\nUse euros.\n\nInline system.\n\nLikes quiet.'
const agentOutput = [msg('assistant', 'Booked Bora for 70 euros.', 'a2')]

const cases: Case[] = [
  { name: "both (default): the catalogue's observed 0.59", input: agentInput, output: agentOutput, dims: [0.85, 0.55, 0.35, 0.15], score: 0.59, sent: { userPrompt: 'Book the cheaper one.', systemPrompt: SYSTEM, agentResponse: 'Booked Bora for 70 euros.' } },
  { name: 'user mode, strings', options: { evaluationMode: 'user' }, input: 'Write a haiku.', output: 'Rain falls.', dims: [1, 0.5, 0.5, 1], score: 0.75, sent: { userPrompt: 'Write a haiku.', agentResponse: 'Rain falls.' } },
  { name: 'system mode: tagged and inline system messages combined', options: { evaluationMode: 'system' }, input: agentInput, output: agentOutput, dims: [0.85, 0.55, 0.35, 0.15], score: 0.57, sent: { systemPrompt: SYSTEM, agentResponse: 'Booked Bora for 70 euros.' } },
  { name: 'scale 10', options: { scale: 10 }, input: 'q', output: 'o', dims: [0.3, 0.6, 0.9, 0.2], score: 5.0, sent: { userPrompt: 'q', systemPrompt: '', agentResponse: 'o' } },
  {
    name: 'remembered history (maxMessages 1)',
    options: { includeConversationHistory: { maxMessages: 1 } },
    input: agentInput,
    output: agentOutput,
    dims: [1, 1, 1, 1],
    score: 1,
    sent: { conversationHistory: 'assistant: Astra (90) or Bora (70).', userPrompt: 'Book the cheaper one.', systemPrompt: SYSTEM, agentResponse: 'Booked Bora for 70 euros.' },
  },
]

describe('prompt alignment parity with @mastra/evals 1.10.2 (one scripted judge)', () => {
  it.each(cases)('$name', async (c) => {
    const m = mastraScorer({ model: parity.mastraModel(), options: c.options as never })
    const o = oxeval.createPromptAlignmentScorerLLM({ model: parity.oxModel(), modelSettings: { retryDelayMs: 1 }, options: c.options } as never)
    const { mr, or, mreq, oreq } = await parity.runBoth(c, m, o, { input: c.input, output: c.output })
    expect(mr.score).toBe(c.score)
    expect(or.score).toBe(mr.score)
    expectSameResults(or, mr)
    expect([or.type, m.type]).toEqual([undefined, undefined])
    expect(mreq.map(stepOf)).toEqual(['analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['analyze', 'generateReason'])
    expect(data(oreq[0])).toEqual(c.sent)
    for (const v of Object.values(c.sent)) if (v) expect(mreq[0].user).toContain(v)
  })

  it.each([
    ['user mode without a user prompt', { evaluationMode: 'user' }, { input: { inputMessages: [] }, output: 'o' }, 'User prompt is required for user prompt alignment scoring'],
    ['system mode without a system prompt', { evaluationMode: 'system' }, { input: 'q', output: 'o' }, 'System prompt is required for system prompt alignment scoring'],
    ['both mode without either prompt', {}, { input: { inputMessages: [] }, output: 'o' }, 'A user or system prompt is required for combined alignment scoring'],
    ['a run without a response', {}, { input: 'q', output: [] }, 'Agent response is required for prompt alignment scoring'],
    ['a run with an empty response', { evaluationMode: 'system' }, { input: agentInput, output: '' }, 'Agent response is required for prompt alignment scoring'],
  ] as const)('%s: both fail the run at analyze with Mastra\'s message, before any judge call', async (_name, options, run, message) => {
    const m = mastraScorer({ model: parity.mastraModel(), options: options as never })
    const o = oxeval.createPromptAlignmentScorerLLM({ model: parity.oxModel(), options })
    parity.current = cases[1]
    const me = await failure(m.run(run as never))
    const oe = await failure(o.run(run))
    parity.current = undefined
    expect([me.constructor.name, me.failedStep ?? me.step]).toEqual(['ScorerRunError', 'analyze'])
    expect(String(me.message)).toContain(message)
    expect([oe.name, oe.failedStep]).toEqual(['ScorerRunError', 'analyze'])
    expect(oe.message).toContain(message)
    expect(parity.server.requests).toHaveLength(0)
  })
})
