// Judge models supplied as JS values: AI SDK LanguageModel objects (specification v2 and v3:
// the `ai` package's mock model and @ai-sdk/openai pointed at the local judge), plain async
// functions, and Mastra-style dynamic functions returning a model. The engine's retries,
// fallback, limits and cache apply as for HTTP providers.
import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { heuristicJudge } from '../testing/judge-server.mjs'
import { failure, oxeval, useJudgeServer, type Any } from './helpers/setup'

const require = createRequire(import.meta.url)
const { MockLanguageModelV3 } = require('ai/test')
const { createOpenAI } = require('@ai-sdk/openai')
const { createOpenAI: createOpenAIv2 } = require('@ai-sdk/openai-v2')
const { createAnswerRelevancyScorer, createAnswerAccuracyScorer, ScorerRunError } = oxeval

const server = useJudgeServer({ handler: heuristicJudge })

/** The reply a step expects, by the schema name oxeval sends (or text for the reason). */
function answerFor(schemaName: string | undefined): string {
  if (schemaName === 'answer_relevancy_statements') return JSON.stringify({ statements: ['Paris is the capital.', 'I like croissants.'] })
  if (schemaName === 'answer_relevancy_verdicts')
    return JSON.stringify({ results: [{ result: 'yes', reason: 'answers' }, { result: 'no', reason: 'off topic' }] })
  if (schemaName) return JSON.stringify({ rating: 4 })
  return 'The score is 0.5 because one statement answers the question.'
}

const run = { input: 'What is the capital of France?', output: 'Paris is the capital. I like croissants.' }

describe('AI SDK LanguageModel objects', () => {
  it('v3 (MockLanguageModelV3): structured steps pass responseFormat json with the schema; usage and finishReason are recorded', async () => {
    const calls: Any[] = []
    const model = new MockLanguageModelV3({
      provider: 'mock-provider',
      modelId: 'mock-judge',
      doGenerate: async (options: Any) => {
        calls.push(options)
        return {
          content: [{ type: 'text', text: answerFor(options.responseFormat?.name) }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: { inputTokens: { total: 11, noCache: 11 }, outputTokens: { total: 5, text: 5, reasoning: 2 } },
          warnings: [],
        }
      },
    })
    const s = createAnswerRelevancyScorer({ model })
    expect(s.judge!.model).toBe('mock-provider/mock-judge')
    const r = await s.run(run)
    expect(r.score).toBe(0.5)
    expect(calls).toHaveLength(3)
    expect(calls[0].responseFormat.type).toBe('json')
    expect(calls[0].responseFormat.schema.properties.statements.type).toBe('array')
    expect(calls[0].prompt[0].role).toBe('system')
    expect(calls[0].prompt[1].content[0].text).toContain('DATA:')
    expect(calls[2].responseFormat).toBeUndefined() // the reason is text
    expect(calls[0].abortSignal).toBeInstanceOf(AbortSignal)
    const ex = r.judge!.preprocess.executions[0]
    expect(ex.judgeModelId).toBe('mock-judge')
    expect(ex.judgeProvider).toBe('mock-provider')
    expect(ex.finishReason).toBe('stop')
    expect(ex.usage).toEqual({ inputTokens: 11, outputTokens: 5, totalTokens: 16, reasoningTokens: 2 })
  })

  it('v2 objects (a hand-made model) work the same', async () => {
    const model = {
      specificationVersion: 'v2',
      provider: 'handmade',
      modelId: 'v2-judge',
      supportedUrls: {},
      doGenerate: async (options: Any) => ({
        content: [{ type: 'reasoning', text: 'thinking' }, { type: 'text', text: answerFor(options.responseFormat?.name) }],
        finishReason: 'stop',
        usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
        warnings: [],
      }),
      doStream: async () => {
        throw new Error('not used')
      },
    }
    const r = await createAnswerRelevancyScorer({ model } as Any).run(run)
    expect(r.score).toBe(0.5)
    expect(r.judge!.analyze.executions[0].usage.totalTokens).toBe(5)
    expect(r.judge!.analyze.executions[0].reasoning).toBe('thinking')
  })

  it.each([
    ['@ai-sdk/openai (v3)', () => createOpenAI({ baseURL: server.url, apiKey: ['test', 'key', 'v3'].join('-') }).chat('gpt-4o-mini')],
    ['@ai-sdk/openai v2', () => createOpenAIv2({ baseURL: server.url, apiKey: ['test', 'key', 'v2'].join('-') }).chat('gpt-4o-mini')],
  ])('%s pointed at the local judge scores over real HTTP', async (_label, make) => {
    const model = make()
    const r = await createAnswerRelevancyScorer({ model } as Any).run(run)
    expect(typeof r.score).toBe('number')
    expect(r.judge!.preprocess.executions[0].judgeProvider).toBe('openai.chat')
    expect(server.requests.length).toBeGreaterThanOrEqual(3)
    // the AI SDK sent the step's schema as OpenAI structured output
    expect(server.requests.some((q) => (q.body?.response_format as Any)?.type === 'json_schema')).toBe(true)
  })

  it('a thrown error becomes a ScorerRunError (OXEVAL_JUDGE_MODEL) with it as cause; isRetryable errors are retried', async () => {
    let n = 0
    const boom = new MockLanguageModelV3({
      doGenerate: async () => {
        n++
        throw Object.assign(new Error('quota exceeded for project'), { name: 'AI_QuotaError' })
      },
    })
    const e = await failure(createAnswerRelevancyScorer({ model: boom, modelSettings: { retryDelayMs: 1 } }).run(run))
    expect(e).toBeInstanceOf(ScorerRunError)
    expect(e.code).toBe('OXEVAL_JUDGE_MODEL')
    expect(e.failedStep).toBe('preprocess')
    expect(e.cause.name).toBe('AI_QuotaError')
    expect(e.cause.message).toContain('quota exceeded for project')
    expect(n).toBe(1) // not retryable: one call
    let m = 0
    const flaky = new MockLanguageModelV3({
      doGenerate: async (options: Any) => {
        if (++m === 1) throw Object.assign(new Error('overloaded'), { isRetryable: true })
        return { content: [{ type: 'text', text: answerFor(options.responseFormat?.name) }], finishReason: { unified: 'stop' }, usage: {}, warnings: [] }
      },
    })
    const r = await createAnswerRelevancyScorer({ model: flaky, modelSettings: { retryDelayMs: 1 } }).run(run)
    expect(r.score).toBe(0.5)
    expect(r.judge!.preprocess.executions[0].modelCallCount).toBe(2)
  })

  it('an error with an HTTP status is treated as that status (429 retried, 401 not)', async () => {
    let n = 0
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        n++
        throw Object.assign(new Error('bad key'), { name: 'AI_APICallError', statusCode: 401 })
      },
    })
    const e = await failure(createAnswerRelevancyScorer({ model, modelSettings: { retryDelayMs: 1 } }).run(run))
    expect(e.code).toBe('OXEVAL_JUDGE_HTTP')
    expect(n).toBe(1)
  })

  it('a promise that never settles is bounded by the call timeout', async () => {
    const model = new MockLanguageModelV3({ doGenerate: () => new Promise(() => {}) })
    const t0 = Date.now()
    const e = await failure(createAnswerRelevancyScorer({ model, modelSettings: { timeoutMs: 200, maxRetries: 0 } }).run(run))
    expect(e.code).toBe('OXEVAL_JUDGE_TIMEOUT')
    expect(Date.now() - t0).toBeLessThan(3000)
  })

  it('format errors get the engine fallback; the cache applies (a second identical run makes no call)', async () => {
    let n = 0
    const model = new MockLanguageModelV3({
      doGenerate: async (options: Any) => {
        n++
        const text = n === 1 ? 'not json at all' : answerFor(options.responseFormat?.name ?? findSchema(options))
        return { content: [{ type: 'text', text }], finishReason: { unified: 'stop' }, usage: {}, warnings: [] }
      },
    })
    // the fallback carries the schema in the system message, not as responseFormat
    function findSchema(options: Any): string | undefined {
      return /Output schema name: (\S+)/.exec(options.prompt[0].content)?.[1]
    }
    const s = createAnswerRelevancyScorer({ model, cache: true })
    const r = await s.run({ ...run, runId: 'cache-me' })
    expect(r.judge!.preprocess.executions[0].attemptCount).toBe(2)
    expect(n).toBe(4) // the rejected first answer, the fallback, analyze, the reason
    // the fallback's validated answer is stored under the fallback request and under the
    // first request too: the next run answers everything from the cache, without the fallback
    const before = n
    const again = await s.run({ ...run, runId: 'cache-me' })
    expect(n).toBe(before)
    expect(again.score).toBe(r.score)
    expect(again.judge!.preprocess.executions[0]).toMatchObject({ cached: true, attemptCount: 1 })
    expect(again.judge!.analyze.executions[0].cached).toBe(true)
    expect(again.judge!.generateReason.executions[0].cached).toBe(true)
  })

  it('an unsupported specification version is a TypeError at the factory', () => {
    let err: Any
    try {
      createAnswerRelevancyScorer({ model: { specificationVersion: 'v1', doGenerate: async () => ({}) } } as Any)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(TypeError)
    expect(err.code).toBe('OXEVAL_INVALID_OPTIONS')
    expect(err.message).toContain('specification v2 and v3')
  })
})

describe('functions', () => {
  it('a plain async function ({ system, prompt, schema, signal }) => string | { text, usage }', async () => {
    const seen: Any[] = []
    const judge = async (req: Any) => {
      seen.push(req)
      const text = answerFor(req.schemaName)
      return req.schemaName ? text : { text, usage: { inputTokens: 7, outputTokens: 3 } }
    }
    const r = await createAnswerRelevancyScorer({ model: judge } as Any).run(run)
    expect(r.score).toBe(0.5)
    expect(seen[0].system).toContain('answer relevancy')
    expect(seen[0].schema.properties.statements).toBeDefined()
    expect(seen[0].signal).toBeInstanceOf(AbortSignal)
    expect(r.judge!.generateReason.executions[0].usage).toEqual({ inputTokens: 7, outputTokens: 3, totalTokens: 10 })
    expect(r.judge!.preprocess.executions[0].judgeProvider).toBe('function')
  })

  it("Mastra's dynamic model: a function returning a language model answers through it", async () => {
    const inner = new MockLanguageModelV3({
      modelId: 'picked-at-run-time',
      doGenerate: async (options: Any) => ({ content: [{ type: 'text', text: JSON.stringify({ rating: 4 }) }], finishReason: { unified: 'stop' }, usage: {}, warnings: [] }),
    })
    const r = await createAnswerAccuracyScorer({ model: () => inner } as Any).run({ input: 'q', output: 'a', groundTruth: 'a' })
    expect(r.score).toBe(1)
  })

  it("a function gets the run's own requestContext object (Mastra's dynamic model reads it)", async () => {
    const seen: unknown[] = []
    const requestContext = new Map([['tier', 'premium']])
    const pick = ({ requestContext: rc }: Any) => {
      seen.push(rc)
      return new MockLanguageModelV3({
        modelId: `judge-for-${rc?.get('tier')}`,
        doGenerate: async () => ({ content: [{ type: 'text', text: JSON.stringify({ rating: 4 }) }], finishReason: { unified: 'stop' }, usage: {}, warnings: [] }),
      })
    }
    const s = createAnswerAccuracyScorer({ model: pick } as Any)
    const r = await s.run({ input: 'q', output: 'a', groundTruth: 'a', requestContext })
    expect(r.score).toBe(1)
    expect(seen).toHaveLength(2)
    for (const rc of seen) expect(rc).toBe(requestContext) // the same object, not a JSON copy
    const without = await s.run({ input: 'q', output: 'a', groundTruth: 'a' })
    expect(without.score).toBe(1)
    expect(seen[2]).toBeUndefined()
  })

  it('a function returning something else, or throwing synchronously, fails the run with a typed error', async () => {
    const bad = await failure(createAnswerRelevancyScorer({ model: () => 42 } as Any).run(run))
    expect(bad.code).toBe('OXEVAL_JUDGE_MODEL')
    expect(bad.message).toContain('returned number')
    const sync = await failure(
      createAnswerRelevancyScorer({
        model: () => {
          throw new RangeError('sync boom')
        },
      } as Any).run(run),
    )
    expect(sync.code).toBe('OXEVAL_JUDGE_MODEL')
    expect(sync.cause.name).toBe('RangeError')
  })

  it('a scorer holding a JS model never keeps Node from exiting', () => {
    const script = `
      const { createAnswerRelevancyScorer } = require(${JSON.stringify(require.resolve('../index.js'))})
      globalThis.keep = createAnswerRelevancyScorer({ model: async () => 'x' })
      console.log('created')`
    const t0 = Date.now()
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20000 })
    expect(r.stdout).toContain('created')
    expect(r.status).toBe(0)
    expect(Date.now() - t0).toBeLessThan(15000)
  })
})
