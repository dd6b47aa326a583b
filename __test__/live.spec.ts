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

// One native provider each, behind its own switch (and its provider's key in the environment):
//   OXEVAL_LIVE_ANTHROPIC=1  ANTHROPIC_API_KEY                      [OXEVAL_ANTHROPIC_MODEL, default anthropic/claude-haiku-4-5]
//   OXEVAL_LIVE_GOOGLE=1     GOOGLE_GENERATIVE_AI_API_KEY           [OXEVAL_GOOGLE_MODEL, default google/gemini-2.5-flash]
//   OXEVAL_LIVE_AZURE=1      AZURE_API_KEY, AZURE_RESOURCE_NAME or AZURE_BASE_URL, OXEVAL_AZURE_MODEL ('azure/<deployment>')
//   OXEVAL_LIVE_OPENAI_REASONING=1  OPENAI_API_KEY                  [OXEVAL_REASONING_MODEL, default openai/o4-mini]
const NATIVE = [
  ['Anthropic', process.env.OXEVAL_LIVE_ANTHROPIC === '1', process.env.OXEVAL_ANTHROPIC_MODEL ?? 'anthropic/claude-haiku-4-5'],
  ['Google', process.env.OXEVAL_LIVE_GOOGLE === '1', process.env.OXEVAL_GOOGLE_MODEL ?? 'google/gemini-2.5-flash'],
  ['Azure OpenAI', process.env.OXEVAL_LIVE_AZURE === '1' && !!process.env.OXEVAL_AZURE_MODEL, process.env.OXEVAL_AZURE_MODEL ?? ''],
  ['an OpenAI reasoning model', process.env.OXEVAL_LIVE_OPENAI_REASONING === '1', process.env.OXEVAL_REASONING_MODEL ?? 'openai/o4-mini'],
] as const

for (const [name, enabled, model] of NATIVE) {
  describe.skipIf(!enabled)(`live ${name} (${model || 'not configured'})`, () => {
    it('answer relevancy: structured steps and a reason', async () => {
      const s = ox.createAnswerRelevancyScorer({ model })
      const good = await s.run({ input: 'What is the capital of France?', output: 'The capital of France is Paris.' })
      const bad = await s.run({ input: 'What is the capital of France?', output: 'I enjoy playing tennis on weekends.' })
      expect(good.score).toBeGreaterThan(bad.score)
      expect(good.reason).toBeTruthy()
      const ex = good.judge!.preprocess.executions[0]
      expect(ex.status).toBe('success')
      // no call wasted on a 400 (an Azure deployment's name may hide a reasoning model: one self-heal)
      expect(ex.modelCallCount).toBeLessThanOrEqual(name === 'Azure OpenAI' ? 2 : 1)
      expect(ex.usage.totalTokens).toBeGreaterThan(0)
    }, 120_000)

    it('answer accuracy: both judges rate', async () => {
      const s = ox.createAnswerAccuracyScorer({ model })
      const r = await s.run({ input: 'Who wrote Hamlet?', output: 'Shakespeare.', groundTruth: 'William Shakespeare wrote Hamlet.' })
      expect(r.score).toBeGreaterThan(0.5)
    }, 120_000)
  })
}
