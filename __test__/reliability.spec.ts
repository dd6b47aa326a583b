import { describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { failure, oxeval, scorerBuilder, startJudgeServer, STEP, uniqueModelId, useJudgeServer, type JudgeServer } from './helpers/setup'

const { createAnswerRelevancyScorer, ScorerRunError } = oxeval

const server = useJudgeServer()

function scriptHappyPath(s: JudgeServer, delayMs = 0) {
  s.on(STEP.preprocess, { json: { statements: ['a', 'b'] }, delayMs })
  s.on(STEP.analyze, { json: { results: [{ result: 'yes', reason: 'r' }, { result: 'no', reason: 'r' }] }, delayMs })
  s.on(STEP.generateReason, { content: 'The score is 0.5 because half is relevant.', delayMs })
}
// a distinct model id per scorer keeps endpoint limiters independent between tests
const scorer = scorerBuilder(server, createAnswerRelevancyScorer)

describe('response cache', () => {
  it('memory cache: a second identical run makes zero HTTP calls and returns identical results', async () => {
    scriptHappyPath(server)
    const s = scorer({ cache: true })
    const first = await s.run({ input: 'q', output: 'cache me', runId: 'a' })
    expect(server.requests).toHaveLength(3)
    const second = await s.run({ input: 'q', output: 'cache me', runId: 'a' })
    expect(server.requests).toHaveLength(3)
    const strip = (r: typeof first) => ({ ...r, judge: undefined })
    expect(strip(second)).toEqual(strip(first))
    for (const step of ['preprocess', 'analyze', 'generateReason']) {
      const ex = second.judge![step].executions[0]
      expect(ex.cached).toBe(true)
      expect(ex.modelCallCount).toBe(0)
      expect(ex.usage.totalTokens).toBe(0)
      expect(first.judge![step].executions[0].cached).toBeUndefined()
    }
  })

  it('disk cache survives a new scorer and a new process-level memory miss', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oxeval-cache-'))
    try {
      scriptHappyPath(server)
      const id = uniqueModelId()
      const a = scorer({ model: { id, url: server.url }, cache: { dir, memory: false } })
      const r1 = await a.run({ input: 'q', output: 'disk', runId: 'd' })
      expect(server.requests).toHaveLength(3)
      const b = createAnswerRelevancyScorer({
        model: { id, url: server.url },
        modelSettings: { retryDelayMs: 1 },
        cache: { dir, memory: false },
      })
      const r2 = await b.run({ input: 'q', output: 'disk', runId: 'd' })
      expect(server.requests).toHaveLength(3)
      expect(r2.score).toBe(r1.score)
      expect(r2.reason).toBe(r1.reason)
      expect(r2.judge!.analyze.executions[0].cached).toBe(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('never caches errors', async () => {
    server.enqueue({ status: 500 }, { status: 500 })
    const s = scorer({ cache: true }, { maxRetries: 0 })
    await expect(s.run({ input: 'q', output: 'err' })).rejects.toBeInstanceOf(ScorerRunError)
    scriptHappyPath(server)
    const r = await s.run({ input: 'q', output: 'err' })
    expect(r.score).toBe(0.5)
    expect(r.judge!.preprocess.executions[0].cached).toBeUndefined()
  })

  it('rejects bad cache options at the factory', () => {
    expect(() => scorer({ cache: 'yes' })).toThrow(TypeError)
    expect(() => scorer({ cache: { dir: 5 } })).toThrow(/cache.dir/)
  })
})

describe('admission control', () => {
  it('maxConcurrency caps requests in flight to one endpoint and queues the rest', async () => {
    scriptHappyPath(server, 20)
    const s = scorer({}, { maxConcurrency: 3 })
    const runs = await Promise.all(Array.from({ length: 30 }, (_, i) => s.run({ input: 'q', output: `o${i}` })))
    expect(runs.every((r) => r.score === 0.5)).toBe(true)
    expect(server.maxInFlight).toBeLessThanOrEqual(3)
    expect(server.maxInFlight).toBeGreaterThanOrEqual(2)
    expect(server.requests).toHaveLength(90)
  })

  it('backs off on 429 with Retry-After and still scores every run', async () => {
    let n = 0
    server.on(() => n++ % 4 === 0, { status: 429, headers: { 'retry-after': '0' } })
    scriptHappyPath(server, 5)
    const s = scorer({}, { maxRetries: 5 })
    const runs = await Promise.all(Array.from({ length: 20 }, (_, i) => s.run({ input: 'q', output: `o${i}` })))
    expect(runs.every((r) => r.score === 0.5)).toBe(true)
    expect(server.requests.filter((r) => r.status === 429).length).toBeGreaterThan(0)
  })
})

describe('deadlines and truncation', () => {
  it('deadlineMs bounds the whole run, retries included', async () => {
    server.on(() => true, { fault: 'hang' })
    const t0 = Date.now()
    const err = await failure(scorer({}, { timeoutMs: 10_000, maxRetries: 5 }).run({ input: 'q', output: 'a' }, { deadlineMs: 400 }))
    const took = Date.now() - t0
    expect(err).toBeInstanceOf(ScorerRunError)
    expect(['OXEVAL_DEADLINE', 'OXEVAL_JUDGE_TIMEOUT']).toContain(err.code)
    expect(took).toBeLessThan(1500)
  })

  it("finish_reason 'length' → one retry with a larger budget", async () => {
    server.on(STEP.preprocess, { content: '{"statements": ["a", "b', finishReason: 'length' }, { times: 1 })
    scriptHappyPath(server)
    const r = await scorer({}, { maxOutputTokens: 50 }).run({ input: 'q', output: 'a' })
    expect(r.score).toBe(0.5)
    expect(r.judge!.preprocess.executions[0].attemptCount).toBe(2)
    expect(server.requests[1].body!.max_tokens).toBe(100)
  })

  it("finish_reason 'length' twice → OXEVAL_JUDGE_TRUNCATED with the raw output", async () => {
    server.on(STEP.preprocess, { content: '{"statements": ["a", "b', finishReason: 'length' })
    const err = await failure(scorer().run({ input: 'q', output: 'a' }))
    expect(err.code).toBe('OXEVAL_JUDGE_TRUNCATED')
    expect(err.message).toMatch(/truncated/)
    expect(err.result.judge.preprocess.executions[0].rawOutput).toBe('{"statements": ["a", "b')
  })
})

describe('API keys never leak', () => {
  it('scans results, judge records, errors and the scorer object for the key', async () => {
    const key = ['sk', 'proj', 'LEAKCHECK0123456789abcdefghijklmnop'].join('-') // built at runtime: no key-shaped literal in the repo
    const s = createAnswerRelevancyScorer({
      model: { id: 'openai/gpt-4o-mini', url: server.url, apiKey: key },
      modelSettings: { retryDelayMs: 1, maxRetries: 1 },
    })
    const seen: unknown[] = [s, s.judge, s.getSteps(), s.id, s.name, s.description]
    // success
    scriptHappyPath(server)
    seen.push(await s.run({ input: 'q', output: 'a' }))
    server.reset()
    // the provider echoes the key in error bodies (401, 500 twice)
    server.enqueue({ status: 401, content: `Incorrect API key provided: ${key}` })
    seen.push(await failure(s.run({ input: 'q', output: 'a' })))
    server.enqueue({ status: 500, content: `upstream failed for key ${key}` }, { status: 500, content: `again ${key}` })
    seen.push(await failure(s.run({ input: 'q', output: 'a' })))
    expect(server.requests.every((r) => r.headers.authorization === `Bearer ${key}`)).toBe(true)
    const { inspect } = await import('node:util')
    for (const v of seen) {
      const text = inspect(v, { depth: 20, showHidden: true, getters: true }) + JSON.stringify(v, (_k, x) => (x instanceof Error ? { ...x, message: x.message, stack: x.stack, cause: x.cause } : x))
      expect(text).not.toContain(key)
      expect(text).not.toContain(key.slice(8, 30))
    }
    const errors = seen.filter((v) => v instanceof ScorerRunError) as InstanceType<typeof ScorerRunError>[]
    expect(errors).toHaveLength(2)
    expect(errors[0].cause!.rawOutput).toContain('[redacted]')
  })
})

describe('review regressions', () => {
  it('the deadline also bounds time spent queueing for an endpoint slot', async () => {
    server.on(STEP.preprocess, { json: { statements: ['a'] }, delayMs: 1500 })
    server.on(STEP.analyze, { json: { results: [{ result: 'yes', reason: 'r' }] } })
    server.on(STEP.generateReason, 'The score is 1 because yes.')
    const s = scorer({}, { maxConcurrency: 1 })
    const slow = s.run({ input: 'q', output: 'slow' })
    await server.waitForRequests(1)
    const t0 = Date.now()
    const err = await failure(s.run({ input: 'q', output: 'queued' }, { deadlineMs: 200 }))
    expect(err).toBeInstanceOf(ScorerRunError)
    expect(err.code).toBe('OXEVAL_DEADLINE')
    expect(Date.now() - t0).toBeLessThan(1000)
    expect((await slow).score).toBe(1)
  })

  it('the cache never serves one endpoint’s answers to another with the same model id', async () => {
    const other = await startJudgeServer()
    try {
      scriptHappyPath(server)
      other.on(() => true, { json: { statements: ['x'] } }, { times: 1 })
      other.on(() => true, { json: { results: [{ result: 'no', reason: 'r' }] } }, { times: 1 })
      other.on(() => true, 'The score is 0 because no.')
      const id = uniqueModelId('shared')
      const a = createAnswerRelevancyScorer({ model: { id, url: server.url }, cache: true })
      const b = createAnswerRelevancyScorer({ model: { id, url: other.url }, cache: true })
      expect((await a.run({ input: 'q', output: 'same text' })).score).toBe(0.5)
      expect((await b.run({ input: 'q', output: 'same text' })).score).toBe(0)
      expect(other.requests).toHaveLength(3)
    } finally {
      await other.close()
    }
  })

  it('absurd header values and deadlines never panic', async () => {
    server.on(STEP.preprocess, { json: { statements: ['a'] }, headers: { 'retry-after': '1e20', 'retry-after-ms': '1e300', 'x-ratelimit-reset-tokens': '99999999999999999999h' } })
    server.on(STEP.analyze, { json: { results: [{ result: 'yes', reason: 'r' }] } })
    server.on(STEP.generateReason, 'The score is 1 because yes.')
    const r = await scorer().run({ input: 'q', output: 'a' }, { deadlineMs: 1e30 })
    expect(r.score).toBe(1)
  })

  it('rate-limit reset headers on a 5xx do not turn backoff into a 30 s wait', async () => {
    server.on(STEP.preprocess, { status: 503, headers: { 'x-ratelimit-reset-tokens': '6m0s', 'x-ratelimit-reset-requests': '120ms' } }, { times: 1 })
    scriptHappyPath(server)
    const t0 = Date.now()
    const r = await scorer().run({ input: 'q', output: 'a' })
    expect(r.score).toBe(0.5)
    expect(Date.now() - t0).toBeLessThan(2000)
  })
})
