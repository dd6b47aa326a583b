// `oxeval/mastra`, ESM: built over the ESM build of @mastra/core, so `instanceof` holds
// against the classes an ESM application imports. See mastra-core.js.
import { MastraScorer, ScorerRunError as MastraScorerRunError } from '@mastra/core/evals'
import { MastraError } from '@mastra/core/error'
import core from './mastra-core.js'

const m = core.build({ MastraScorer, ScorerRunError: MastraScorerRunError, MastraError })

export const {
  createAnswerRelevancyScorer,
  createFactualCorrectnessScorer,
  createAnswerAccuracyScorer,
  createContextRelevanceScorer,
  createResponseGroundednessScorer,
  createContextRelevanceScorerLLM,
  createAnswerSimilarityScorer,
  createSummarizationScorer,
  createNoiseSensitivityScorerLLM,
  OxevalMastraScorer,
  ScorerRunError,
  AbortError,
} = m
export default m
