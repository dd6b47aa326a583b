// Parity with @mastra/evals 1.10.2's trajectory accuracy (LLM) on one scripted judge (see
// parity-bias.spec.ts); deliberate differences: docs/decision-tables/llm-trajectory-accuracy.md.
import { describe, expect, it } from 'vitest'
import { createTrajectoryAccuracyScorerLLM as mastraScorer } from '@mastra/evals/scorers/prebuilt'
import { expectSameResults, useParity } from './helpers/parity'
import { data, oxeval } from './helpers/setup'

interface Case {
  name: string
  expectedTrajectory?: unknown
  run: Record<string, unknown>
  evals: [string, boolean, boolean][]
  missingSteps?: string[]
  extraSteps?: string[]
  score: number
}

const parity = useParity<Case>({ analyze: 'stepEvaluations' }, (c, step) => {
  if (step === 'analyze')
    return {
      json: {
        stepEvaluations: c.evals.map(([stepName, wasNecessary, wasInOrder]) => ({ stepName, wasNecessary, wasInOrder, reasoning: 'r' })),
        ...(c.missingSteps ? { missingSteps: c.missingSteps } : {}),
        ...(c.extraSteps ? { extraSteps: c.extraSteps } : {}),
        overallAssessment: 'o',
      },
    }
  return `Score ${c.score}.`
})
const { stepOf } = parity

// createdAt as text: a Date crosses to the core as JSON, so oxeval's actualTrajectory holds its
// ISO string where Mastra's holds the Date object (asserted below)
const raw = [{ id: 'a1', role: 'assistant', createdAt: '2025-01-01T00:00:00.000Z', content: { format: 2, parts: [{ type: 'text', text: 'Here is the summary.' }] } }]
const nested = {
  steps: [
    { stepType: 'tool_call', name: 'search', toolArgs: { z: 1, a: [1, 'x'], q: 'rust' }, toolResult: { hits: [{ t: 'A' }] }, success: true, durationMs: 12 },
    {
      stepType: 'agent_run',
      name: 'writer',
      agentId: 'w',
      children: [
        { stepType: 'model_generation', name: 'draft', modelId: 'gpt-4o-mini', promptTokens: 3 },
        { stepType: 'workflow_step', name: 'polish', stepId: 'p', status: 'success', output: { ok: true } },
        { stepType: 'mcp_tool_call', name: 'lookup', toolArgs: { k: 'v' }, mcpServer: 's', success: false },
      ],
    },
    { stepType: 'tool_call', name: 'summarize', success: true },
  ],
  rawOutput: raw,
}

const cases: Case[] = [
  { name: 'task-based (no expectation): one perfect step → 0.9 (Mastra\u2019s maximum, kept)', run: { input: 'Summarize Rust.', output: nested }, evals: [['search', true, true]], score: 0.9 },
  {
    name: 'static Trajectory expectation with nesting (durationMs / metadata dropped)',
    expectedTrajectory: { steps: [{ stepType: 'tool_call', name: 'search', durationMs: 3, metadata: { m: 1 } }, { stepType: 'agent_run', name: 'writer', children: [{ stepType: 'tool_call', name: 'cite', toolArgs: { n: 1 } }] }] },
    run: { input: 'Summarize Rust.', output: nested },
    evals: [['search', true, true], ['writer', true, false], ['summarize', false, false]],
    missingSteps: ['cite'],
    extraSteps: ['summarize'],
    score: 0.48,
  },
  {
    name: 'static ExpectedStep[] with children.steps',
    expectedTrajectory: [{ name: 'search', stepType: 'tool_call', toolArgs: { q: 'rust' } }, { name: 'writer', children: { steps: [{ name: 'draft' }] } }],
    run: { input: 'Summarize Rust.', output: nested },
    evals: [['search', true, true], ['writer', true, true]],
    score: 0.9,
  },
  { name: "the run's expectedTrajectory", run: { input: 'q', output: nested, expectedTrajectory: { steps: [{ name: 'search' }, { name: 'summarize', stepType: 'tool_call' }] } }, evals: [['search', false, true]], score: 0.3 },
  { name: 'no steps, no evaluations, extra steps → 0.5', run: { input: 'q', output: { steps: [], rawOutput: raw } }, evals: [], extraSteps: ['x'], score: 0.5 },
  { name: 'no evaluations, missing steps → 0', run: { input: 'q', output: { steps: [] } }, evals: [], missingSteps: ['search'], score: 0 },
]

describe('trajectory accuracy (LLM) parity with @mastra/evals 1.10.2 (one scripted judge)', () => {
  it('a Date in the trajectory: Mastra keeps the object, oxeval its ISO string (deliberate: run data crosses as JSON)', async () => {
    const c = cases[0]
    const output = { ...nested, rawOutput: [{ ...raw[0], createdAt: new Date('2025-01-01T00:00:00Z') }] }
    const m = mastraScorer({ model: parity.mastraModel() })
    const o = oxeval.createTrajectoryAccuracyScorerLLM({ model: parity.oxModel() })
    const { mr, or } = await parity.runBoth(c, m, o, { input: 'q', output })
    expect(mr.preprocessStepResult.actualTrajectory.rawOutput[0].createdAt).toBeInstanceOf(Date)
    expect(or.preprocessStepResult.actualTrajectory.rawOutput[0].createdAt).toBe('2025-01-01T00:00:00.000Z')
    expect(or.score).toBe(mr.score)
  })

  it.each(cases)('$name', async (c) => {
    const m = mastraScorer({ model: parity.mastraModel(), expectedTrajectory: c.expectedTrajectory as never })
    const o = oxeval.createTrajectoryAccuracyScorerLLM({ model: parity.oxModel(), modelSettings: { retryDelayMs: 1 }, expectedTrajectory: c.expectedTrajectory } as never)
    expect([o.type, o.description]).toEqual([m.type, m.description])
    const { mr, or, mreq, oreq } = await parity.runBoth(c, m, o, c.run)
    expect(mr.score).toBe(c.score)
    expect(or.score).toBe(mr.score)
    expectSameResults(or, mr)
    // the formatted trajectories are Mastra's, character for character (JS key order kept)
    expect(or.preprocessStepResult.actualTrajectoryFormatted).toBe(mr.preprocessStepResult.actualTrajectoryFormatted)
    expect(or.preprocessStepResult.expectedTrajectoryFormatted).toBe(mr.preprocessStepResult.expectedTrajectoryFormatted)
    expect(mreq.map(stepOf)).toEqual(['analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['analyze', 'generateReason'])
    const sent = data(oreq[0])
    expect(sent.actualTrajectory).toBe(mr.preprocessStepResult.actualTrajectoryFormatted)
    if (mr.preprocessStepResult.actualTrajectoryFormatted) expect(mreq[0].user).toContain(mr.preprocessStepResult.actualTrajectoryFormatted)
    expect(sent.agentResponse).toBe(c.run.output && (c.run.output as { rawOutput?: unknown }).rawOutput ? 'Here is the summary.' : '')
  })
})
