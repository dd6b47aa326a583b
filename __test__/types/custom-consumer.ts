// Type-checked in `npm test` (with consumer.ts): custom scorers typed from their steps.
import { createScorer, notScorable, runEvals, type CustomScorerResult } from 'oxeval'
import { z } from 'zod'
import { jsonSchema } from 'ai'

const model = { id: 'openai/gpt-4o-mini', url: 'http://127.0.0.1:1/v1' }

export async function custom(): Promise<number> {
  const scorer = createScorer({ id: 'tone', description: 'polite answers', judge: { model, instructions: 'You rate tone.' } })
    .preprocess(({ run }) => ({ words: new Set(String(run.output).split(' ')), runId: run.runId }))
    .analyze({
      description: 'rate politeness',
      outputSchema: z.object({ polite: z.boolean(), why: z.string() }),
      createPrompt: ({ results }) => `Words: ${[...results.preprocessStepResult.words].join(' ')}`,
    })
    .generateScore(({ results }) => (results.analyzeStepResult.polite ? 1 : results.preprocessStepResult.words.size > 0 ? 0 : notScorable('empty')))
    .generateReason(({ score, results }) => `${score}: ${results.analyzeStepResult.why}`)
  const r = await scorer.run({ input: 'q', output: 'thank you' })
  const polite: boolean = r.analyzeStepResult.polite
  const reason: string = r.reason
  const size: number = r.preprocessStepResult.words.size
  if (r.notScorable) console.log(r.notScorable.step)
  else console.log(r.score.toFixed(2))
  // @ts-expect-error the analyze schema has no `rude` key
  console.log(r.analyzeStepResult.rude)
  // @ts-expect-error a function generateScore returns a number
  createScorer({ id: 'x', description: 'd' }).generateScore(() => 'high')
  // @ts-expect-error createPrompt returns a string
  createScorer({ id: 'x', description: 'd' }).generateScore({ description: 's', createPrompt: () => 3 })
  const ai = createScorer({ id: 'ai', description: 'd', judge: { model, instructions: 'i' } }).preprocess({
    description: 'p',
    outputSchema: jsonSchema<{ n: number }>({ type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }),
    createPrompt: () => 'count',
  })
  const n = (await ai.generateScore(({ results }) => results.preprocessStepResult.n).run({ output: 'x' })).preprocessStepResult.n
  const evals = await runEvals({ data: [{ input: 'q', output: 'a' }], scorers: [scorer] })
  const typed: CustomScorerResult<{ output: string }, { generateScoreStepResult: number }> = { output: 'a' } as never
  console.log(polite, reason, size, n, evals.scores, typed)
  return 1
}
