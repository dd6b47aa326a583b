// Mastra's prompt alignment (createPromptAlignmentScorerLLM, id prompt-alignment-scorer)
// through the real addon and the scripted judge server. Decision rules:
// docs/decision-tables/prompt-alignment.md.
import { describe, expect, it } from 'vitest'
import { data, failure, oxeval, schemaName, scorerBuilder, thrownBy, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'

const { createPromptAlignmentScorerLLM } = oxeval

const server = useJudgeServer()
const make = scorerBuilder(server, createPromptAlignmentScorerLLM, { tag: 'pa' })

const isAnalysis = (req: RecordedRequest) => schemaName(req) === 'prompt_alignment_analysis'
const analysis = (i: number, r: number, c: number, a: number) => ({
  intentAlignment: { score: i, primaryIntent: 'p', isAddressed: true, reasoning: 'r' },
  requirementsFulfillment: { requirements: [{ requirement: 'x', isFulfilled: true, reasoning: 'r' }], overallScore: r },
  completeness: { score: c, missingElements: [], reasoning: 'r' },
  responseAppropriateness: { score: a, formatAlignment: true, toneAlignment: false, reasoning: 'r' },
  overallAssessment: 'o',
})
function script(a: unknown) {
  server.on(isAnalysis, { json: a })
  server.on((q) => !schemaName(q), 'The score is X because of the analysis.')
}
const msg = (role: string, text: string, id: string) => ({ id, role, createdAt: new Date(), content: { format: 2, parts: [{ type: 'text', text }] } })
const agentRun = {
  input: {
    inputMessages: [msg('user', 'The second one, please.', 'u2')],
    rememberedMessages: [msg('user', 'Suggest two hotels.', 'u1'), msg('assistant', 'Hotel Astra or Hotel Bora.', 'a1')],
    systemMessages: [{ role: 'system', content: 'Answer in one sentence.' }],
    taggedSystemMessages: { memory: [{ role: 'system', content: 'The user likes quiet places.' }] },
  },
  output: [msg('assistant', 'Hotel Bora is booked for you.', 'a2')],
}

describe('identity', () => {
  it("Mastra's id, name, no type, steps", () => {
    const s: Any = make()
    expect([s.id, s.name, s.type]).toEqual(['prompt-alignment-scorer', 'Prompt Alignment (LLM)', undefined])
    expect(s.getSteps().map((x: Any) => [x.name, x.type])).toEqual([
      ['analyze', 'prompt'],
      ['generateScore', 'function'],
      ['generateReason', 'prompt'],
    ])
  })
})

describe('scoring', () => {
  it('both mode (default): the user prompt and the combined system prompt; keys as Mastra', async () => {
    script(analysis(0.85, 0.55, 0.35, 0.15))
    const r: Any = await make().run(agentRun)
    expect(r.score).toBe(0.59)
    expect(Object.keys(r)).toEqual([
      'input', 'output', 'runId', 'score', 'generateScorePrompt', 'reason', 'generateReasonPrompt',
      'preprocessStepResult', 'preprocessPrompt', 'analyzeStepResult', 'analyzePrompt', 'judge',
    ])
    expect(r.analyzeStepResult).toEqual(analysis(0.85, 0.55, 0.35, 0.15))
    const [an, reason] = server.requests
    expect(data(an)).toEqual({
      userPrompt: 'The second one, please.',
      systemPrompt: 'Answer in one sentence.\n\nThe user likes quiet places.',
      agentResponse: 'Hotel Bora is booked for you.',
    })
    expect(data(reason)).toMatchObject({ evaluationMode: 'both', score: 0.59, scale: 1, analysis: analysis(0.85, 0.55, 0.35, 0.15) })
  })

  it.each([
    [{ evaluationMode: 'user' }, 0.59, ['userPrompt', 'agentResponse']],
    [{ evaluationMode: 'system' }, 0.57, ['systemPrompt', 'agentResponse']],
    [{ options: { evaluationMode: 'both', scale: 10 } }, 5.9, ['userPrompt', 'systemPrompt', 'agentResponse']],
  ] as const)('%j → %d', async (opts, want, keys) => {
    script(analysis(0.85, 0.55, 0.35, 0.15))
    const r: Any = await make(opts).run(agentRun)
    expect(r.score).toBe(want)
    expect(Object.keys(data(server.requests[0]))).toEqual(keys)
  })

  it('includeConversationHistory: the remembered turns, for context only', async () => {
    script(analysis(1, 1, 1, 1))
    await make({ includeConversationHistory: true }).run(agentRun)
    expect(data(server.requests[0]).conversationHistory).toBe('user: Suggest two hotels.\nassistant: Hotel Astra or Hotel Bora.')
    expect(server.requests[0].user).toContain('earlier turns earn no credit')
    server.reset()
    script(analysis(1, 1, 1, 1))
    await make({ options: { includeConversationHistory: { maxMessages: 1 } } }).run(agentRun)
    expect(data(server.requests[0]).conversationHistory).toBe('assistant: Hotel Astra or Hotel Bora.')
  })

  it("a judge sub-score outside 0..1 is used as given (Mastra's) with a warning", async () => {
    script(analysis(1.5, 1, 1, 1))
    const r: Any = await make({ evaluationMode: 'user' }).run(agentRun)
    expect(r.score).toBe(1.2)
    expect(r.warnings).toEqual(['analyze: intentAlignment.score 1.5 outside 0..1 (used as given, as Mastra does)'])
  })

  it.each([
    [{ evaluationMode: 'user' }, { input: { systemMessages: [{ role: 'system', content: 's' }] }, output: 'o' }, 'User prompt is required for user prompt alignment scoring'],
    [{ evaluationMode: 'system' }, { input: 'q', output: 'o' }, 'System prompt is required for system prompt alignment scoring'],
    [{}, { input: {}, output: 'o' }, 'A user or system prompt is required for combined alignment scoring'],
    [{}, { input: 'q', output: '' }, 'Agent response is required for prompt alignment scoring'],
  ] as const)("%j without a needed text → Mastra's failure at analyze, no judge call", async (opts, run, message) => {
    const e = await failure(make(opts).run(run))
    expect(e.name).toBe('ScorerRunError')
    expect(e.failedStep).toBe('analyze')
    expect(e.message).toContain(message)
    expect(server.requests).toHaveLength(0)
  })

  it('bad options are TypeErrors at the factory', () => {
    for (const bad of [{ evaluationMode: 'all' }, { includeConversationHistory: 'yes' }, { includeConversationHistory: { maxMessages: 0 } }, { scale: -1 }]) {
      expect(thrownBy(() => make(bad))).toBeInstanceOf(TypeError)
    }
  })
})
