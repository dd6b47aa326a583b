// Every fault of the fault matrix (fault-matrix.spec.ts) on the analyze call of each of
// Mastra's agent and safety LLM scorers, once (transient) and on every request (persistent):
// the run recovers with the right attempt counts, or rejects with a ScorerRunError naming
// analyze, keeping the completed steps and the raw output.
import { describe, expect, it } from 'vitest'
import { expectFailedAtStep, expectFailedExecution, faultReply, OUTPUT, settle, TRANSPORT, type Fault } from './helpers/fault-matrix'
import { oxeval, scorerBuilder, schemaName, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'

const server = useJudgeServer({ hangMs: 5000 })

const MAX_RETRIES = 1
const REASON = 'The score is X because.'

interface Subject {
  factory: keyof typeof oxeval
  options: Record<string, unknown>
  run: Record<string, unknown>
  /** schema name → happy reply */
  replies: Record<string, unknown>
  analyze: string
  before: string[]
  score: number
}
export const subjects: Record<string, Subject> = {
  bias: {
    factory: 'createBiasScorer',
    options: {},
    run: { output: 'I think all of them are lazy. The sky is blue.' },
    replies: {
      opinions: { opinions: ['I think all of them are lazy.'] },
      bias_verdicts: { results: [{ result: 'yes', reason: 'r' }] },
    },
    analyze: 'bias_verdicts',
    before: ['preprocess'],
    score: 1,
  },
  toxicity: {
    factory: 'createToxicityScorer',
    options: {},
    run: { input: 'q', output: 'You fool. Fine.' },
    replies: { toxicity_verdicts: { verdicts: [{ verdict: 'yes', reason: 'r' }, { verdict: 'no', reason: 'r' }] } },
    analyze: 'toxicity_verdicts',
    before: [],
    score: 0.5,
  },
  'prompt alignment': {
    factory: 'createPromptAlignmentScorerLLM',
    options: {},
    run: { input: 'Write a haiku.', output: 'Rain on the roof.' },
    replies: {
      prompt_alignment_analysis: {
        intentAlignment: { score: 1, primaryIntent: 'p', isAddressed: true, reasoning: 'r' },
        requirementsFulfillment: { requirements: [], overallScore: 0.5 },
        completeness: { score: 0.5, missingElements: [], reasoning: 'r' },
        responseAppropriateness: { score: 1, formatAlignment: true, toneAlignment: true, reasoning: 'r' },
        overallAssessment: 'o',
      },
    },
    analyze: 'prompt_alignment_analysis',
    before: [],
    score: 0.75,
  },
  rubric: {
    factory: 'createRubricScorer',
    options: { criteria: 'Is short' },
    run: { input: 'q', output: 'o' },
    replies: { rubric_analysis: { criteria: [{ criterion: 'Is short', satisfied: true, required: true, reasoning: 'r' }], overallAssessment: 'ok' } },
    analyze: 'rubric_analysis',
    before: [],
    score: 1,
  },
  'multi-turn judge': {
    factory: 'createMultiTurnJudgeScorer',
    options: { criterion: 'Mentions rain.' },
    run: { output: 'Rain today.' },
    replies: { multi_turn_judgement: { satisfied: true, reasoning: 'r' } },
    analyze: 'multi_turn_judgement',
    before: [],
    score: 1,
  },
  'tool-call accuracy (LLM)': {
    factory: 'createToolCallAccuracyScorerLLM',
    options: { availableTools: [{ id: 'weather', description: 'Weather' }] },
    run: {
      input: { inputMessages: [{ role: 'user', content: 'Weather?' }] },
      output: [{ role: 'assistant', content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { toolCallId: 'c', toolName: 'weather', state: 'result', args: {}, result: 1 } }] } }],
    },
    replies: { tool_call_accuracy_analysis: { evaluations: [{ toolCalled: 'weather', wasAppropriate: true, reasoning: 'r' }] } },
    analyze: 'tool_call_accuracy_analysis',
    before: ['preprocess'],
    score: 1,
  },
  'trajectory accuracy (LLM)': {
    factory: 'createTrajectoryAccuracyScorerLLM',
    options: {},
    run: { input: 'q', output: { steps: [{ stepType: 'tool_call', name: 'search' }] } },
    replies: { trajectory_accuracy_analysis: { stepEvaluations: [{ stepName: 'search', wasNecessary: true, wasInOrder: true, reasoning: 'r' }], overallAssessment: 'o' } },
    analyze: 'trajectory_accuracy_analysis',
    before: ['preprocess'],
    score: 0.9,
  },
}

async function runWith(s: Subject, fault: Fault, persistent: boolean) {
  const isAnalyze = (q: RecordedRequest) => schemaName(q) === s.analyze
  server.on(isAnalyze, faultReply(fault, { json: s.replies[s.analyze] }), persistent ? {} : { times: 1 })
  for (const [name, reply] of Object.entries(s.replies)) server.on((q) => schemaName(q) === name, { json: reply })
  server.on((q) => !schemaName(q), REASON)
  const make = scorerBuilder(server, oxeval[s.factory] as Any, { settings: { maxRetries: MAX_RETRIES, timeoutMs: 300 } })
  return settle(() => make(s.options).run(s.run, { deadlineMs: 5000 }))
}

describe.each(Object.entries(subjects))('%s: fault on analyze', (_name, s) => {
  it.each([...TRANSPORT, ...OUTPUT])('transient %s → recovers', async (fault) => {
    const { result, error } = await runWith(s, fault, false)
    expect(error).toBeUndefined()
    expect(result.score).toBe(s.score)
    const ex = result.judge.analyze.executions[0]
    expect(ex.status).toBe('success')
    expect([ex.attemptCount, ex.modelCallCount]).toEqual(TRANSPORT.includes(fault) ? [1, 2] : [2, 2])
  })

  it.each([...TRANSPORT, ...OUTPUT])('persistent %s → fails loudly at analyze', async (fault) => {
    const { error } = await runWith(s, fault, true)
    expectFailedAtStep(error, 'analyze', s.before)
    if (s.before.length) expect(error.result.preprocessStepResult).toBeDefined()
    expectFailedExecution(error, 'analyze', fault, MAX_RETRIES)
  })
})
