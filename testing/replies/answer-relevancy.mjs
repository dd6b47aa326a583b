// Default replies of Mastra's answer relevancy (statements → verdicts per statement against
// the input, by shared content words).
import { contentWords, fail, pick, splitSentences } from './text.mjs'

export const replies = {
  answer_relevancy_statements(data) {
    const text = pick(data, 'output', 'text', 'response')
    if (text === undefined) return fail('answer_relevancy_statements needs DATA.output')
    return { json: { statements: splitSentences(text) } }
  },
  answer_relevancy_verdicts(data) {
    const input = contentWords(pick(data, 'input', 'question', 'query') ?? '', 3)
    if (!Array.isArray(data.statements)) return fail('answer_relevancy_verdicts needs DATA.statements (array)')
    const results = data.statements.map((statement) => {
      const shared = [...contentWords(statement, 3)].filter((w) => input.has(w))
      const strong = shared.find((w) => w.length >= 4)
      if (strong) return { result: 'yes', reason: `The statement mentions "${strong}", which the input asks about.` }
      if (shared.length) return { result: 'unsure', reason: `The statement only shares the short word "${shared[0]}" with the input.` }
      return { result: 'no', reason: 'The statement shares no content words with the input.' }
    })
    return { json: { results } }
  },
}
