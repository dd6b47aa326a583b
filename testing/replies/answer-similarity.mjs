// Default replies of Mastra's answer similarity: the texts' sentences as units, each ground-truth
// unit matched to its most overlapping output unit.
import { contentWords, overlap, pick, splitSentences } from './text.mjs'

export const replies = {
  answer_similarity_units(data) {
    return { json: { outputUnits: splitSentences(pick(data, 'output') ?? ''), groundTruthUnits: splitSentences(pick(data, 'groundTruth', 'ground_truth') ?? '') } }
  },
  answer_similarity_analysis(data) {
    const outs = Array.isArray(data.outputUnits) ? data.outputUnits.map(String) : []
    const gts = Array.isArray(data.groundTruthUnits) ? data.groundTruthUnits.map(String) : []
    const norm = (t) => [...contentWords(t, 1)].sort().join(' ')
    const used = new Set()
    const matches = gts.map((g) => {
      let best = null
      let bestO = 0
      for (const o of outs) {
        const v = overlap(g, o)
        if (v > bestO) {
          bestO = v
          best = o
        }
      }
      if (best !== null) used.add(best)
      const matchType = best !== null && norm(best) === norm(g) ? 'exact' : bestO >= 0.7 ? 'semantic' : bestO >= 0.3 ? 'partial' : 'missing'
      return {
        groundTruthUnit: g,
        outputUnit: matchType === 'missing' ? null : best,
        matchType,
        explanation: `${Math.round(bestO * 100)}% of the unit's content words are in the output.`,
      }
    })
    return { json: { matches, extraInOutput: outs.filter((o) => !used.has(o)), contradictions: [] } }
  },
}
