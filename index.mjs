// ESM entry: re-exports the CommonJS facade.
import oxeval from './index.js'

export const { createAnswerRelevancyScorer, ScorerRunError, AbortError, Scorer } = oxeval
export default oxeval
