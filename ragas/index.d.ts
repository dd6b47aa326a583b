// `oxeval/ragas`: Ragas 0.4.3's metrics (the same functions as oxeval's named exports).
export {
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
} from '../index'
