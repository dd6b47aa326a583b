// Default reply of Mastra's context relevance (LLM): a relevance level per piece by its overlap
// with the query, `wasUsed` by its overlap with the response.
import { contentWords, overlap, pick } from './text.mjs'

export const replies = {
  context_relevance_llm_analysis(data) {
    const q = contentWords(pick(data, 'query', 'input') ?? '', 3)
    const r = contentWords(pick(data, 'response', 'output') ?? '', 3)
    const pieces = Array.isArray(data.context) ? data.context : []
    const evaluations = pieces.map((p, i) => {
      const o = overlap(p, q)
      const relevanceLevel = o >= 0.5 ? 'high' : o >= 0.25 ? 'medium' : o > 0 ? 'low' : 'none'
      return {
        context_index: i,
        contextPiece: String(p),
        relevanceLevel,
        wasUsed: overlap(p, r) >= 0.3,
        reasoning: `${Math.round(o * 100)}% of the piece's content words appear in the query.`,
      }
    })
    return {
      json: {
        evaluations,
        missingContext: [],
        overallAssessment: `${evaluations.filter((e) => e.relevanceLevel === 'high').length} of ${evaluations.length} pieces are highly relevant (word-overlap heuristic).`,
      },
    }
  },
}
