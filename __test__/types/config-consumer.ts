// Type-checked in `npm test`: `defineConfig` accepts the configs a user writes (an object, a
// function, an async function) and rejects a field of the wrong type or an unknown field.
import { checks, createAnswerRelevancyScorer, createScorer, createTrajectoryAccuracyScorerCode, defineConfig, type OxevalConfig } from 'oxeval'

const model = { id: 'openai/gpt-4o-mini', url: 'http://127.0.0.1:1/v1', apiKey: 'k' }
const relevancy = createAnswerRelevancyScorer({ model })
const custom = createScorer({ id: 'len', description: 'length' }).generateScore(({ run }) => Math.min(1, String(run.output).length / 20))

// accepted
export const plain: OxevalConfig = defineConfig({
  data: 'data.jsonl',
  scorers: ['answer-relevancy', relevancy, custom, { scorer: 'faithfulness', threshold: 0.7 }, { scorer: custom, threshold: { min: 0.2, max: 0.9 } }],
  gates: ['calledTool(get_weather)', checks.noToolErrors()],
  model: 'openai/gpt-4o-mini',
  target: async (input: unknown) => String(input),
  concurrency: 4,
  trials: 3,
  cache: { dir: '.cache', mode: 'record' },
  out: 'out.jsonl',
  html: 'report.html',
  junit: 'junit.xml',
  maxErrors: 2,
  minCoverage: 0.9,
  prices: { in: 0.15, out: 0.6 },
  batch: { pollMs: 1000 },
})
export const inline = defineConfig({ data: [{ input: 'q', output: 'a' }], scorers: { agent: [relevancy], trajectory: [{ scorer: createTrajectoryAccuracyScorerCode(), threshold: 0.9 }] } })
export const lazy = defineConfig(() => ({ data: 'data.jsonl', scorers: [relevancy] }))
export const later = defineConfig(async () => ({ data: 'data.jsonl', concurrency: 8 }))

// rejected: a wrong field type
// @ts-expect-error concurrency is a number
defineConfig({ data: 'data.jsonl', concurrency: 'many' })
// @ts-expect-error trials is a number
defineConfig({ data: 'data.jsonl', trials: '3' })
// @ts-expect-error a scorer is an object or a name
defineConfig({ data: 'data.jsonl', scorers: [42] })
// @ts-expect-error a threshold is a number or { min, max }
defineConfig({ data: 'data.jsonl', scorers: [{ scorer: relevancy, threshold: 'high' }] })
// @ts-expect-error the cache mode is one of the CacheMode words
defineConfig({ data: 'data.jsonl', cache: { dir: 'c', mode: 'sometimes' } })
// @ts-expect-error prices are numbers
defineConfig({ data: 'data.jsonl', prices: { in: '3' } })
// @ts-expect-error batch is a boolean or its options
defineConfig({ data: 'data.jsonl', batch: 'yes' })
// @ts-expect-error the target is a function or an Agent
defineConfig({ data: 'data.jsonl', target: 'my-agent' })
// @ts-expect-error a wrong type in a function's config
defineConfig(() => ({ data: 'data.jsonl', concurrency: 'many' }))
// @ts-expect-error a wrong type in an async function's config
defineConfig(async () => ({ data: 'data.jsonl', concurrency: 'many' }))
const variable = { data: 'data.jsonl', concurrency: 'many' }
// @ts-expect-error a wrong type in a config held in a variable
defineConfig(variable)

// rejected: an unknown field (a typo), also in a function's config
// @ts-expect-error `concurency` is not a field
defineConfig({ data: 'data.jsonl', concurency: 4 })
// @ts-expect-error `colour` is not a field
defineConfig(() => ({ data: 'data.jsonl', colour: 1 }))
// @ts-expect-error `colour` is not a field
defineConfig(async () => ({ data: 'data.jsonl', colour: 1 }))
