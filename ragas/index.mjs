// `oxeval/ragas`, ESM: re-exports the CommonJS entry.
import m from './index.js'

export const {
  createExactMatchScorer,
  createStringPresenceScorer,
  createStringSimilarityScorer,
  createChrfScorer,
  createBleuScorer,
  createRougeScorer,
  createSemanticSimilarityScorer,
  createQuotedSpansAlignmentScorer,
  createToolCallAccuracyScorer,
  createToolCallF1Scorer,
  createFactualCorrectnessScorer,
  createAnswerAccuracyScorer,
  createContextRelevanceScorer,
  createResponseGroundednessScorer,
} = m
export default m
