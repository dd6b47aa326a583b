// Default replies of Mastra's summarization: the summary's sentences aligned with the source,
// one question per source sentence, answered when the summary covers it.
import { contentWords, overlap, pick, splitSentences } from './text.mjs'

export const replies = {
  summarization_source_judgement(data) {
    const src = contentWords(pick(data, 'source') ?? '', 3)
    const alignment = splitSentences(pick(data, 'summary', 'output') ?? '').map((claim) => {
      const o = overlap(claim, src)
      return { claim, supported: o > 0.5, reason: `${Math.round(o * 100)}% of the claim's content words are in the source.` }
    })
    const max = Number(data.maxQuestions) || 10
    const questions = splitSentences(pick(data, 'source') ?? '')
      .slice(0, max)
      .map((sentence) => `Does the summary say that ${sentence.replace(/[.!?]+$/, '').replace(/^./, (c) => c.toLowerCase())}?`)
    return { json: { alignment, questions } }
  },
  summarization_coverage(data) {
    const sum = contentWords(pick(data, 'summary', 'output') ?? '', 3)
    const qs = Array.isArray(data.questions) ? data.questions.map(String) : []
    const coverage = qs.map((question) => {
      const o = overlap(question.replace(/^Does the summary say that /, ''), sum)
      return { question, answered: o >= 0.5, reason: `${Math.round(o * 100)}% of the question's content words are in the summary.` }
    })
    return { json: { coverage } }
  },
}
