// Default replies of Mastra's claim/verdict RAG scorers: faithfulness, hallucination, context
// recall (claims → verdicts against the context) and context precision (a verdict per piece).
import { contentWords, joined, overlap, pick, splitSentences } from './text.mjs'

const outputClaims = (data) => ({ json: { claims: splitSentences(pick(data, 'output', 'text') ?? '') } })

/** Supported when most of the claim's content words are in the context (faithfulness: `unsure` in between). */
function supportVerdicts(data, faith) {
  const ctx = contentWords(joined(data.context), 3)
  const claims = Array.isArray(data.claims) ? data.claims : []
  const verdicts = claims.map((c) => {
    const o = overlap(c, ctx)
    const verdict = o > 0.5 ? 'yes' : faith && o > 0.2 ? 'unsure' : 'no'
    const reason = `${Math.round(o * 100)}% of the claim's content words appear in the context.`
    // faithfulness repeats each claim in its verdict (its prompt asks for it, as Mastra's does)
    return faith ? { claim: String(c), verdict, reason } : { verdict, reason }
  })
  return { json: { verdicts } }
}

export const replies = {
  faithfulness_claims: outputClaims,
  hallucination_claims: outputClaims,
  context_recall_claims: (data) => ({ json: { claims: splitSentences(pick(data, 'ground_truth', 'groundTruth', 'reference') ?? '') } }),
  faithfulness_verdicts: (data) => supportVerdicts(data, true),
  context_recall_verdicts: (data) => supportVerdicts(data, false),
  hallucination_verdicts(data) {
    const ctx = contentWords(joined(data.context), 3)
    const claims = Array.isArray(data.claims) ? data.claims : []
    const verdicts = claims.map((c) => {
      const o = overlap(c, ctx)
      return { statement: String(c), verdict: o > 0.5 ? 'no' : 'yes', reason: `${Math.round(o * 100)}% of the claim's content words appear in the context.` }
    })
    return { json: { verdicts } }
  },
  context_precision_verdicts(data) {
    const out = contentWords(`${pick(data, 'output') ?? ''} ${pick(data, 'input') ?? ''}`, 3)
    const pieces = Array.isArray(data.context) ? data.context : []
    const verdicts = pieces.map((p, i) => {
      const o = overlap(p, out)
      return { context_index: i, verdict: o >= 0.3 ? 'yes' : 'no', reason: `${Math.round(o * 100)}% of the piece's content words appear in the question or answer.` }
    })
    return { json: { verdicts } }
  },
}
