// oxeval/mastra for the four Mastra RAG/quality scorers of this branch (context relevance LLM,
// answer similarity, summarization, noise sensitivity): real MastraScorer instances whose run
// is oxeval's pipeline, with the run fields oxeval reads (context, source, baselineResponse,
// noisyQuery) passed through, and failures as Mastra's errors.
import { describe, expect, it } from 'vitest'
import { MastraScorer } from '@mastra/core/evals'
import * as esm from '../mastra/index.mjs'
import { failure, oxeval, schemaName, uniqueModelId, useJudgeServer, type Any } from './helpers/setup'

const server = useJudgeServer()
const model = () => ({ id: uniqueModelId('mastra-rag'), url: server.url })
const settings = { retryDelayMs: 1, maxRetries: 0 }

const DIMS = ['content_accuracy', 'completeness', 'relevance', 'consistency', 'hallucination_resistance']
/** Answers every step of the four scorers by its schema name; a reason for free-text calls. */
function scriptAll() {
  server.on((q) => schemaName(q) === 'context_relevance_llm_analysis', {
    json: { evaluations: [{ context_index: 0, contextPiece: 'Paris is the capital of France.', relevanceLevel: 'high', wasUsed: true, reasoning: 'r' }], missingContext: [], overallAssessment: 'ok' },
  })
  server.on((q) => schemaName(q) === 'answer_similarity_units', { json: { outputUnits: ['Paris is the capital'], groundTruthUnits: ['Paris is the capital'] } })
  server.on((q) => schemaName(q) === 'answer_similarity_analysis', {
    json: { matches: [{ groundTruthUnit: 'Paris is the capital', outputUnit: 'Paris is the capital', matchType: 'exact', explanation: 'same' }], extraInOutput: [], contradictions: [] },
  })
  server.on((q) => schemaName(q) === 'summarization_source_judgement', { json: { alignment: [{ claim: 'c', supported: true, reason: 'r' }], questions: ['q?'] } })
  server.on((q) => schemaName(q) === 'summarization_coverage', { json: { coverage: [{ question: 'q?', answered: true, reason: 'r' }] } })
  server.on((q) => schemaName(q) === 'noise_sensitivity_analysis', {
    json: { dimensions: DIMS.map((dimension) => ({ dimension, impactLevel: 'none', specificChanges: '', noiseInfluence: '' })), overallAssessment: 'ok', majorIssues: [], robustnessScore: 1 },
  })
  server.on((q) => !schemaName(q), 'The score is 1 because everything matched.')
}

const Q = 'What is the capital of France?'
const A = 'Paris is the capital of France.'
const cases: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
  ['createContextRelevanceScorerLLM', {}, { input: Q, output: A, context: ['Paris is the capital of France.'] }, 'context-relevance-scorer'],
  ['createAnswerSimilarityScorer', {}, { input: Q, output: A, groundTruth: 'Paris is the capital.' }, 'answer-similarity-scorer'],
  ['createSummarizationScorer', {}, { input: 'Summarize.', output: A, source: 'Paris is the capital of France and its largest city.' }, 'summarization-scorer'],
  ['createNoiseSensitivityScorerLLM', {}, { input: Q, output: A, baselineResponse: A, noisyQuery: `${Q} Also, cats.` }, 'noise-sensitivity-scorer'],
]

describe('oxeval/mastra: the RAG/quality scorers', () => {
  it.each(cases)('%s is a MastraScorer whose run is oxeval’s (run fields pass through)', async (factory, opts, run, id) => {
    scriptAll()
    const s = (esm as Any)[factory]({ model: model(), modelSettings: settings, ...opts })
    expect(s).toBeInstanceOf(MastraScorer)
    expect(s.id).toBe(id)
    const r: Any = await s.run(run)
    const plain: Any = await (oxeval as Any)[factory]({ model: model(), modelSettings: settings, ...opts }).run(run)
    expect(r.score).toBe(1)
    expect(r.score).toBe(plain.score)
    expect(r.reason).toBe(plain.reason)
    expect(r.analyzeStepResult).toEqual(plain.analyzeStepResult)
  })

  it('a missing run field is a Mastra error carrying the TypeError', async () => {
    const s = (esm as Any).createNoiseSensitivityScorerLLM({ model: model(), modelSettings: settings })
    const e = await failure(s.run({ input: Q, output: A }))
    expect(String(e.message)).toMatch(/baseline response .* is missing/)
    expect(server.requests).toHaveLength(0)
  })
})
