// Mastra's trajectory accuracy (LLM) (createTrajectoryAccuracyScorerLLM, id
// llm-trajectory-accuracy-scorer) through the real addon and the scripted judge server.
// Decision rules: docs/decision-tables/llm-trajectory-accuracy.md.
import { describe, expect, it } from 'vitest'
import { data, oxeval, schemaName, scorerBuilder, thrownBy, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'

const { createTrajectoryAccuracyScorerLLM } = oxeval

const server = useJudgeServer()
const make = scorerBuilder(server, createTrajectoryAccuracyScorerLLM, { tag: 'tra' })

const isAnalysis = (req: RecordedRequest) => schemaName(req) === 'trajectory_accuracy_analysis'
function script(evals: [string, boolean, boolean][], extra: Record<string, unknown> = {}) {
  server.on(isAnalysis, { json: { stepEvaluations: evals.map(([stepName, wasNecessary, wasInOrder]) => ({ stepName, wasNecessary, wasInOrder, reasoning: 'r' })), overallAssessment: 'o', ...extra } })
  server.on((q) => !schemaName(q), 'One sentence.')
}
const trajectory = {
  steps: [
    { stepType: 'tool_call', name: 'search', toolArgs: { q: 'rust', n: 2 }, toolResult: { hits: ['a'] }, success: true },
    { stepType: 'agent_run', name: 'writer', children: [{ stepType: 'model_generation', name: 'draft', modelId: 'gpt-4o' }] },
  ],
  rawOutput: [{ role: 'assistant', content: 'Rust is fast.' }],
}

describe('identity', () => {
  it("Mastra's id, name, type 'trajectory', the description by option", () => {
    const s: Any = make()
    expect([s.id, s.name, s.type, s.description]).toEqual(['llm-trajectory-accuracy-scorer', 'Trajectory Accuracy (LLM)', 'trajectory', 'Evaluates the quality and appropriateness of the trajectory using LLM analysis'])
    expect(make({ expectedTrajectory: [{ name: 'search' }] }).description).toBe('Evaluates the trajectory against an expected trajectory using LLM analysis')
    expect(s.getSteps().map((x: Any) => [x.name, x.type])).toEqual([
      ['preprocess', 'function'],
      ['analyze', 'prompt'],
      ['generateScore', 'function'],
      ['generateReason', 'prompt'],
    ])
  })
})

describe('scoring', () => {
  it('a nested trajectory formatted as Mastra formats it; one perfect step scores 0.9 (Mastra)', async () => {
    script([['search', true, true]])
    const r: Any = await make().run({ input: 'About Rust?', output: trajectory })
    expect(r.score).toBe(0.9)
    expect(r.preprocessStepResult).toEqual({
      actualTrajectory: trajectory,
      actualTrajectoryFormatted: '1. [tool_call] search (args: {"q":"rust","n":2}, result: {"hits":["a"]})\n2. [agent_run] writer\n  1. [model_generation] draft (model: gpt-4o)',
      hasSteps: true,
    })
    expect(data(server.requests[0])).toEqual({ userRequest: 'About Rust?', agentResponse: 'Rust is fast.', actualTrajectory: r.preprocessStepResult.actualTrajectoryFormatted })
    expect(server.requests[0].user).toContain('no expected trajectory is given')
  })

  it('the expected trajectory: static, else the run\u2019s', async () => {
    script([['search', true, true], ['writer', false, true]], { missingSteps: ['cite'] })
    const r: Any = await make({ expectedTrajectory: { steps: [{ stepType: 'tool_call', name: 'search', durationMs: 4, metadata: { a: 1 } }, { stepType: 'tool_call', name: 'cite', toolArgs: { n: 1 } }] } }).run({ input: 'q', output: trajectory })
    // 0.6·1/2 + 0.3·2/2 − 0.1·1/3
    expect(r.score).toBe(0.57)
    expect(r.preprocessStepResult.expectedTrajectoryFormatted).toBe('1. [tool_call] search\n2. [tool_call] cite ({"toolArgs":{"n":1}})')
    expect(data(server.requests[0]).expectedTrajectory).toBe(r.preprocessStepResult.expectedTrajectoryFormatted)
    server.reset()
    script([])
    const r2: Any = await make().run({ input: 'q', output: trajectory, expectedTrajectory: { steps: [{ name: 'search' }] } } as Any)
    expect(r2.preprocessStepResult.expectedTrajectoryFormatted).toBe('1. search')
    expect(r2.score).toBe(1)
  })

  it('agent messages as output: the trajectory is extracted (extractTrajectory)', async () => {
    script([['weather', true, true]])
    const output = [{ role: 'assistant', content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { toolCallId: 'c', toolName: 'weather', state: 'result', args: { city: 'Paris' }, result: 20 } }, { type: 'text', text: 'Sunny.' }] } }]
    const r: Any = await make().run({ input: 'Weather?', output })
    expect(r.preprocessStepResult.actualTrajectoryFormatted).toBe('1. [tool_call] weather (args: {"city":"Paris"}, result: {"value":20})')
    expect(data(server.requests[0]).agentResponse).toBe('Sunny.')
  })

  it.each([
    [{ missingSteps: ['a'] }, 0],
    [{ extraSteps: ['b'] }, 0.5],
    [{}, 1],
  ])('no step evaluations with %j → %d', async (extra, want) => {
    script([], extra)
    const r: Any = await make().run({ input: 'q', output: { steps: [] } })
    expect(r.score).toBe(want)
    expect(r.preprocessStepResult.hasSteps).toBe(false)
  })

  it('bad expectedTrajectory is a TypeError at the factory', () => {
    for (const bad of [{ expectedTrajectory: 'search' }, { expectedTrajectory: { steps: 3 } }]) {
      expect(thrownBy(() => make(bad))).toBeInstanceOf(TypeError)
    }
  })
})
