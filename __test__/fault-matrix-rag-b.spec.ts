// Every fault of the fault matrix (fault-matrix.spec.ts) on the analyze call of each of the four
// Mastra RAG/quality scorers, once (transient) and on every request (persistent): the run
// recovers with the right attempt counts, or rejects with a ScorerRunError naming analyze,
// keeping the completed steps and the raw output.
import { describe, expect, it } from 'vitest'
import { expectFailedAtStep, expectFailedExecution, faultReply, OUTPUT, settle, TRANSPORT, type Fault } from './helpers/fault-matrix'
import { oxeval, scorerBuilder, schemaName, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'

const server = useJudgeServer({ hangMs: 5000 })

const MAX_RETRIES = 1
const DIMS = ['content_accuracy', 'completeness', 'relevance', 'consistency', 'hallucination_resistance']
const REASON = 'The score is X because.'

interface Subject {
  factory: keyof typeof oxeval
  options: Record<string, unknown>
  run: Record<string, unknown>
  /** schema name → happy reply; the analyze step's schema is `analyze` */
  replies: Record<string, unknown>
  analyze: string
  before: string[]
  score: number
}
const subjects: Record<string, Subject> = {
  'context relevance (LLM)': {
    factory: 'createContextRelevanceScorerLLM',
    options: { context: ['a', 'b'] },
    run: { input: 'q?', output: 'o' },
    replies: {
      context_relevance_llm_analysis: {
        evaluations: [0, 1].map((i) => ({ context_index: i, contextPiece: 'x', relevanceLevel: i ? 'none' : 'high', wasUsed: !i, reasoning: 'r' })),
        missingContext: [],
        overallAssessment: 'ok',
      },
    },
    analyze: 'context_relevance_llm_analysis',
    before: [],
    score: 0.5,
  },
  'answer similarity': {
    factory: 'createAnswerSimilarityScorer',
    options: {},
    run: { output: 'o', groundTruth: 'g' },
    replies: {
      answer_similarity_units: { outputUnits: ['o'], groundTruthUnits: ['g'] },
      answer_similarity_analysis: { matches: [{ groundTruthUnit: 'g', outputUnit: 'o', matchType: 'exact', explanation: 'e' }], extraInOutput: [], contradictions: [] },
    },
    analyze: 'answer_similarity_analysis',
    before: ['preprocess'],
    score: 1,
  },
  summarization: {
    factory: 'createSummarizationScorer',
    options: {},
    run: { input: 'source', output: 'summary' },
    replies: {
      summarization_source_judgement: { alignment: [{ claim: 'c', supported: true, reason: 'r' }], questions: ['q1?', 'q2?'] },
      summarization_coverage: { coverage: [{ question: 'q1?', answered: true, reason: 'r' }, { question: 'q2?', answered: false, reason: 'r' }] },
    },
    analyze: 'summarization_coverage',
    before: ['preprocess'],
    score: 0.5,
  },
  'noise sensitivity (LLM)': {
    factory: 'createNoiseSensitivityScorerLLM',
    options: { baselineResponse: 'b', noisyQuery: 'nq' },
    run: { input: 'q', output: 'o' },
    replies: {
      noise_sensitivity_analysis: {
        dimensions: DIMS.map((dimension) => ({ dimension, impactLevel: 'none', specificChanges: '', noiseInfluence: '' })),
        overallAssessment: 'ok',
        majorIssues: [],
        robustnessScore: 1,
      },
    },
    analyze: 'noise_sensitivity_analysis',
    before: [],
    score: 1,
  },
}

async function runWith(s: Subject, fault: Fault, persistent: boolean) {
  const isAnalyze = (q: RecordedRequest) => schemaName(q) === s.analyze
  server.on(isAnalyze, faultReply(fault, { json: s.replies[s.analyze] }), persistent ? {} : { times: 1 })
  for (const [name, reply] of Object.entries(s.replies)) server.on((q) => schemaName(q) === name, { json: reply })
  server.on((q) => !schemaName(q), REASON)
  const make = scorerBuilder(server, oxeval[s.factory] as Any, { settings: { maxRetries: MAX_RETRIES, timeoutMs: 300 } })
  // no deadline assertion here (as before): the run's own deadlineMs bounds it
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
