'use strict'
// `oxeval/ragas`: Ragas 0.4.3's metrics in oxeval — the no-judge ones (ExactMatch,
// StringPresence, NonLLMStringSimilarity, CHRFScore, BleuScore, RougeScore,
// QuotedSpansAlignment, ToolCallAccuracy, ToolCallF1) and the four LLM metrics
// (FactualCorrectness and NVIDIA's AnswerAccuracy, ContextRelevance, ResponseGroundedness).
// The same factory objects as oxeval's named exports (each a scorer of the core's registry,
// family `ragas`); see docs/scorers-ragas.md.

const oxeval = require('../index.js')

const names = [
  'createExactMatchScorer',
  'createStringPresenceScorer',
  'createStringSimilarityScorer',
  'createChrfScorer',
  'createBleuScorer',
  'createRougeScorer',
  'createSemanticSimilarityScorer',
  'createQuotedSpansAlignmentScorer',
  'createToolCallAccuracyScorer',
  'createToolCallF1Scorer',
  'createFactualCorrectnessScorer',
  'createAnswerAccuracyScorer',
  'createContextRelevanceScorer',
  'createResponseGroundednessScorer',
]

module.exports = Object.fromEntries(names.map((n) => [n, oxeval[n]]))
