// Type-checked with consumer.ts (tsc --strict): the Mastra RAG scorers as a user writes them.
import {
  createContextPrecisionScorer,
  createContextRecallScorer,
  createFaithfulnessScorer,
  createHallucinationScorer,
  type ContextPrecisionResult,
  type FaithfulnessAnalysis,
  type HallucinationResult,
} from 'oxeval'

const model = 'openai/gpt-4o-mini'

export async function ragA(): Promise<void> {
  const f = createFaithfulnessScorer({ model, scale: 10, context: ['c'] })
  const fr = await f.run({ input: 'q', output: 'a', context: ['per item'] })
  const label: 'yes' | 'no' | 'unsure' = fr.analyzeStepResult.verdicts[0].verdict
  const claims: string[] = fr.preprocessStepResult.claims
  const h = createHallucinationScorer({
    model,
    options: {
      getContext: async ({ run, results, step, score }) => [String(run.runId), JSON.stringify(results), step, String(score ?? '')],
    },
  })
  const hr: HallucinationResult = await h.run({ output: 'a' })
  const statement: string = hr.analyzeStepResult.verdicts[0].statement
  const p = createContextPrecisionScorer({ model, contextExtractor: (input) => [String(input)] })
  const pr: ContextPrecisionResult = await p.run({ input: 'q', output: 'a' })
  const index: number = pr.analyzeStepResult.verdicts[0].context_index
  const none: undefined = pr.preprocessStepResult
  const r = createContextRecallScorer({ model, options: { context: ['c'], scale: 2 } })
  const rr = await r.run({ output: 'a', groundTruth: 'g' })
  console.log(label, claims, statement, index, none, rr.score)
}

export async function ragANegative(): Promise<void> {
  // @ts-expect-error getContext must be a function
  createHallucinationScorer({ model, getContext: ['c'] })
  // @ts-expect-error getContext belongs to hallucination only
  createFaithfulnessScorer({ model, getContext: () => ['c'] })
  // @ts-expect-error contextExtractor is not a faithfulness option
  createFaithfulnessScorer({ model, contextExtractor: () => ['c'] })
  // @ts-expect-error a step that does not exist
  createHallucinationScorer({ model, getContext: ({ step }) => (step === 'preprocess' ? [] : []) })
  const f = createFaithfulnessScorer({ model })
  const r = await f.run({ output: 'a' })
  // @ts-expect-error a verdict literal that does not exist
  const v: FaithfulnessAnalysis['verdicts'][number]['verdict'] = 'maybe'
  console.log(r, v)
}
