// Against a real judge, only with OXEVAL_LIVE=1 and OXEVAL_MODEL (+ its API key) set; skipped
// by default so `npm test` never calls a paid API.
import { describe, expect, it } from 'vitest'
import { oxeval as ox } from './helpers/setup'
const live = process.env.OXEVAL_LIVE === '1' && !!process.env.OXEVAL_MODEL

describe.skipIf(!live)('live judge (OXEVAL_LIVE=1)', () => {
  const model = process.env.OXEVAL_MODEL as string

  it('answer relevancy separates an on-topic from an off-topic answer', async () => {
    const s = ox.createAnswerRelevancyScorer({ model })
    const good = await s.run({ input: 'What is the capital of France?', output: 'The capital of France is Paris.' })
    const bad = await s.run({ input: 'What is the capital of France?', output: 'I enjoy playing tennis on weekends.' })
    expect(good.score).toBeGreaterThan(bad.score)
    expect(good.judge!.analyze.executions[0].usage.totalTokens).toBeGreaterThan(0)
  }, 60_000)

  it('factual correctness reproduces the Ragas seed example', async () => {
    const s = ox.createFactualCorrectnessScorer({ model, mode: 'recall' })
    const r = await s.run({
      output: 'The Eiffel Tower is located in Paris.',
      groundTruth: 'The Eiffel Tower is located in Paris. It has a height of 1000ft.',
    })
    expect(r.score).toBeGreaterThan(0)
    expect(r.score).toBeLessThan(1)
  }, 60_000)
})
