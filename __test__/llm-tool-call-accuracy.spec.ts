// Mastra's tool-call accuracy (LLM) (createToolCallAccuracyScorerLLM, id
// llm-tool-call-accuracy-scorer) through the real addon and the scripted judge server.
// Decision rules: docs/decision-tables/llm-tool-call-accuracy.md.
import { describe, expect, it } from 'vitest'
import { data, failure, oxeval, schemaName, scorerBuilder, thrownBy, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'

const { createToolCallAccuracyScorerLLM, ScorerRunError } = oxeval

const server = useJudgeServer()
const make = scorerBuilder(server, createToolCallAccuracyScorerLLM, { tag: 'tca' })
const TOOLS = [
  { id: 'weather', description: 'Get the weather for a city', execute: async () => ({}) },
  { id: 'calendar', description: 'Read the calendar' },
]

const isAnalysis = (req: RecordedRequest) => schemaName(req) === 'tool_call_accuracy_analysis'
function script(evaluations: [string, boolean][], missingTools?: string[]) {
  server.on(isAnalysis, { json: { evaluations: evaluations.map(([toolCalled, wasAppropriate]) => ({ toolCalled, wasAppropriate, reasoning: 'r' })), ...(missingTools ? { missingTools } : {}) } })
  server.on((q) => !schemaName(q), 'One sentence.')
}
const msg = (role: string, parts: unknown[], id: string) => ({ id, role, createdAt: new Date(), content: { format: 2, parts } })
const call = (toolCallId: string, toolName: string, state: string) => ({ type: 'tool-invocation', toolInvocation: { toolCallId, toolName, state, args: { city: 'Paris' }, result: { t: 20 } } })
const input = { inputMessages: [msg('user', [{ type: 'text', text: 'Weather in Paris?' }], 'u1')], rememberedMessages: [], systemMessages: [], taggedSystemMessages: {} }

describe('identity', () => {
  it("Mastra's id, name, type and steps (preprocess is a function)", () => {
    const s: Any = make({ availableTools: TOOLS })
    expect([s.id, s.name, s.type]).toEqual(['llm-tool-call-accuracy-scorer', 'Tool Call Accuracy (LLM)', 'agent'])
    expect(s.getSteps().map((x: Any) => [x.name, x.type])).toEqual([
      ['preprocess', 'function'],
      ['analyze', 'prompt'],
      ['generateScore', 'function'],
      ['generateReason', 'prompt'],
    ])
  })
})

describe('scoring', () => {
  it('tool calls in every state: only result/call/output-error count; share appropriate; keys as Mastra', async () => {
    script([['weather', true], ['calendar', false]])
    const output = [
      msg('assistant', [call('c1', 'weather', 'result'), call('c2', 'calendar', 'output-error'), call('c3', 'draft', 'partial-call'), call('c4', 'pay', 'approval-requested')], 'a1'),
      msg('assistant', [{ type: 'text', text: 'It is 20 °C.' }], 'a2'),
    ]
    const r: Any = await make({ availableTools: TOOLS }).run({ input, output })
    expect(r.score).toBe(0.5)
    expect(r.preprocessStepResult).toEqual({
      actualTools: ['weather', 'calendar'],
      hasToolCalls: true,
      toolCallInfos: [
        { toolName: 'weather', toolCallId: 'c1', messageIndex: 0, invocationIndex: 0 },
        { toolName: 'calendar', toolCallId: 'c2', messageIndex: 0, invocationIndex: 1 },
      ],
    })
    expect(r.preprocessPrompt).toBeUndefined()
    const [an, reason] = server.requests
    expect(data(an)).toEqual({
      userRequest: 'Weather in Paris?',
      agentResponse: 'It is 20 °C.',
      toolsCalled: ['weather', 'calendar'],
      availableTools: [{ id: 'weather', description: 'Get the weather for a city' }, { id: 'calendar', description: 'Read the calendar' }],
    })
    expect(data(reason)).toEqual({ userRequest: 'Weather in Paris?', score: 0.5, evaluations: r.analyzeStepResult.evaluations, missingTools: [] })
  })

  it.each([
    [[], ['weather'], 0],
    [[], [], 1],
    [[], undefined, 1],
    [[['weather', true], ['weather', true], ['calendar', false]], undefined, 0.67],
  ] as const)('evaluations %j, missing %j → %d (no scale)', async (evals, missing, want) => {
    script(evals as Any, missing as Any)
    const r: Any = await make({ availableTools: TOOLS }).run({ input, output: [msg('assistant', [{ type: 'text', text: 'Hm.' }], 'a')] })
    expect(r.score).toBe(want)
  })

  it("empty input or output messages: Mastra's preprocess error, no judge call", async () => {
    for (const run of [{ input: { inputMessages: [] }, output: [msg('assistant', [], 'a')] }, { input, output: [] }]) {
      const e = await failure(make({ availableTools: TOOLS }).run(run))
      expect(e).toBeInstanceOf(ScorerRunError)
      expect(e.message).toContain('Input and output messages cannot be null or empty')
    }
    expect(server.requests).toHaveLength(0)
  })

  it('availableTools is required: a TypeError at the factory', () => {
    for (const bad of [{}, { availableTools: 'weather' }, { availableTools: [{ name: 'x' }] }]) {
      expect(thrownBy(() => make(bad))).toBeInstanceOf(TypeError)
    }
  })
})
