// Default replies of Ragas' factual correctness (claims of a text → 0/1 verdicts against the
// premise, by shared content words).
import { contentWords, fail, pick, splitSentences } from './text.mjs'

export const replies = {
  factual_correctness_claims(data) {
    const text = pick(data, 'text', 'output', 'response')
    if (text === undefined) return fail('factual_correctness_claims needs DATA.text')
    return { json: { claims: splitSentences(text) } }
  },
  factual_correctness_verdicts(data) {
    const premise = contentWords(pick(data, 'premise', 'context', 'reference') ?? '', 3)
    if (!Array.isArray(data.statements)) return fail('factual_correctness_verdicts needs DATA.statements (array)')
    const statements = data.statements.map((statement) => {
      const words = [...contentWords(statement, 3)]
      const found = words.filter((w) => premise.has(w)).length
      const verdict = words.length > 0 && found / words.length > 0.5 ? 1 : 0
      const reason = `${found} of ${words.length} content words of the statement appear in the premise.`
      return { statement: String(statement), reason, verdict }
    })
    return { json: { statements } }
  },
}
