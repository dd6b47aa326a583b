// ESM entry of `oxeval/mastra`: re-exports the CommonJS module (mastra.js).
import m from './mastra.js'

export const {
  createAnswerRelevancyScorer,
  createFactualCorrectnessScorer,
  createAnswerAccuracyScorer,
  createContextRelevanceScorer,
  createResponseGroundednessScorer,
  OxevalMastraScorer,
  ScorerRunError,
  AbortError,
} = m
export default m
