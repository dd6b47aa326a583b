// Default reply of Mastra's noise sensitivity (LLM): Mastra's five dimensions, the impact from
// how much of the baseline the noisy answer keeps.
import { contentWords, pick } from './text.mjs'

export const replies = {
  noise_sensitivity_analysis(data) {
    // Mastra's five dimensions; the impact from how much of the baseline the noisy answer keeps
    const base = [...contentWords(pick(data, 'baselineResponse') ?? '', 3)]
    const noisy = contentWords(pick(data, 'noisyResponse', 'output') ?? '', 3)
    const kept = base.length ? base.filter((w) => noisy.has(w)).length / base.length : 1
    const impactLevel = kept >= 0.95 ? 'none' : kept >= 0.7 ? 'minimal' : kept >= 0.4 ? 'moderate' : 'significant'
    const dims = ['content_accuracy', 'completeness', 'relevance', 'consistency', 'hallucination_resistance']
    return {
      json: {
        dimensions: dims.map((dimension) => ({
          dimension,
          impactLevel,
          specificChanges: `${Math.round(kept * 100)}% of the baseline's content words are kept.`,
          noiseInfluence: 'Word-overlap heuristic of the scripted judge.',
        })),
        overallAssessment: `The noisy answer keeps ${Math.round(kept * 100)}% of the baseline's content words.`,
        majorIssues: [],
        robustnessScore: Math.round(kept * 100) / 100,
      },
    }
  },
}
