// Default reply of the classifier scorer (createClassifierScorer): the label whose meaning
// shares the most content words with the state (the first on a tie), all the probability on it.
import { overlap } from './text.mjs'

const text = (v) => (typeof v === 'string' ? v : JSON.stringify(v ?? ''))

export const replies = {
  classifier_answer(data) {
    const labels = Array.isArray(data.labels) ? data.labels : []
    const state = text(data.state)
    let best = labels[0]
    let bestScore = -1
    for (const l of labels) {
      const v = overlap(text(l.meaning ?? l.label), state)
      if (v > bestScore) {
        best = l
        bestScore = v
      }
    }
    const answer = best ? String(best.label) : ''
    return { json: { answer, probabilities: labels.map((l) => ({ label: String(l.label), probability: String(l.label) === answer ? 1 : 0 })) } }
  },
}
