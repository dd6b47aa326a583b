// ESM entry: re-exports the CommonJS facade.
import oxeval from './index.js'

export const {
  createAnswerRelevancyScorer,
  createFactualCorrectnessScorer,
  createAnswerAccuracyScorer,
  createContextRelevanceScorer,
  createResponseGroundednessScorer,
  ScorerRunError,
  AbortError,
  Scorer,
} = oxeval
export default oxeval
