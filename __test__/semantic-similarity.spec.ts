// Ragas 0.4.3's SemanticSimilarity (createSemanticSimilarityScorer, oxeval/ragas) on the
// embeddings road: parity with ragas itself to 1e-9 on the committed fixture (ragas's OpenAI
// embeddings against the scripted judge's /v1/embeddings: scripts/ragas-semantic-fixture.mjs),
// the coalescing of the texts in flight into shared requests (measured on a 1 000-item
// runEvals), the providers (OpenAI, Azure OpenAI, Gemini, JS embedders), vector checks, faults,
// the cache, redaction, abort.
import { describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { failure, oxeval, uniqueModelId, useJudgeServer, type Any } from './helpers/setup'
import { jsonl, runCli, tempDir } from './helpers/cli'

const require = createRequire(import.meta.url)
const ragas = require('../ragas/index.js') as Any
const FIXTURE = join(__dirname, 'fixtures', 'ragas-semantic-similarity.jsonl')
const server = useJudgeServer()

const embedder = (extra: Record<string, unknown> = {}) => ({ id: uniqueModelId('embed'), url: server.url, apiKey: 'sk-test-secret-123', ...extra })
const scorer = (options: Record<string, unknown> = {}) =>
  ragas.createSemanticSimilarityScorer({ embedder: embedder(), modelSettings: { retryDelayMs: 1 }, ...options })
const texts = () => server.embeddingRequests.flatMap((r) => r.texts ?? [])

describe('parity with ragas 0.4.3 (committed fixture)', () => {
  it('scores every case as ragas does, to 1e-9', async () => {
    const cases = readFileSync(FIXTURE, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(cases.length).toBeGreaterThanOrEqual(200)
    const scorers = new Map<string, Any>()
    const got = await Promise.all(
      cases.map((c) => {
        const key = String(c.threshold)
        if (!scorers.has(key)) scorers.set(key, scorer(c.threshold === undefined ? {} : { threshold: c.threshold }))
        return scorers.get(key).run({ output: c.response, groundTruth: c.reference })
      }),
    )
    let worst = 0
    const bad: string[] = []
    cases.forEach((c, i) => {
      expect(c.ragas.error).toBeUndefined()
      const d = Math.abs(got[i].score - c.ragas.score)
      worst = Math.max(worst, d)
      if (!(d <= 1e-9)) bad.push(`#${i} ${JSON.stringify(c).slice(0, 120)}: oxeval ${got[i].score}`)
    })
    expect(bad).toEqual([])
    expect(worst).toBeLessThanOrEqual(1e-9)
    // Ragas embeds an empty text as ' '; the scripted judge (as OpenAI) refuses an empty input
    expect(texts()).not.toContain('')
  })

  it('the result: Mastra shape, the texts, the dimension and the similarity', async () => {
    const s = scorer({ threshold: 0.5 })
    const r = await s.run({ output: 'The cat sat', groundTruth: 'The cat sat' })
    expect(r.score).toBe(1)
    expect(r.preprocessStepResult).toEqual({ response: 'The cat sat', reference: 'The cat sat' })
    expect(r.analyzeStepResult.dimensions).toBe(16)
    expect(r.analyzeStepResult.similarity).toBeCloseTo(1, 12)
    expect(r.judge.embed.executions[0]).toMatchObject({ status: 'success', judgeProvider: 'embeddings' })
    expect(s.id).toBe('ragas-semantic-similarity')
  })
})

describe('coalescing', () => {
  it('1 000 items at the default concurrency share requests: ≥ 8 texts per request, each text once', async () => {
    const data = Array.from({ length: 1000 }, (_, i) => ({ input: `q${i}`, groundTruth: `reference number ${i}`, output: `response number ${i}` }))
    const r = await oxeval.runEvals({ data, scorers: [scorer()], target: async (input: string) => data[Number(input.slice(1))].output } as Any)
    const id = 'ragas-semantic-similarity'
    expect(r.errors[id]).toBe(0)
    const reqs = server.embeddingRequests
    const sent = texts()
    expect(new Set(sent).size).toBe(sent.length)
    expect(sent.length).toBe(2000)
    const perRequest = sent.length / reqs.length
    console.log(`semantic similarity: 1000 items, ${reqs.length} embeddings requests, ${perRequest.toFixed(2)} texts per request`)
    expect(perRequest).toBeGreaterThanOrEqual(8)
    // the usage totals count each request once and its tokens
    expect(r.usage[id].calls).toBe(reqs.length)
    expect(r.usage[id].inputTokens).toBeGreaterThan(0)
  }, 60_000)

  it('texts in flight are embedded once: identical runs share one request', async () => {
    const s = scorer()
    const runs = await Promise.all(Array.from({ length: 20 }, () => s.run({ output: 'same response', groundTruth: 'same reference' })))
    expect(new Set(runs.map((x: Any) => x.score)).size).toBe(1)
    expect(texts().sort()).toEqual(['same reference', 'same response'])
  })
})

describe('providers', () => {
  it('Azure OpenAI: /deployments/{d}/embeddings?api-version=, the key in api-key', async () => {
    const s = ragas.createSemanticSimilarityScorer({ embedder: { id: 'azure/emb-deploy', url: `${server.origin}/openai`, apiKey: 'az-key', apiVersion: '2024-10-21' } })
    const r = await s.run({ output: 'a b', groundTruth: 'a c' })
    expect(typeof r.score).toBe('number')
    const [req] = server.embeddingRequests
    expect(req.api).toBe('azure-embeddings')
    expect(req.path).toBe('/openai/deployments/emb-deploy/embeddings')
    expect(req.query['api-version']).toBe('2024-10-21')
    expect(req.headers['api-key']).toBe('az-key')
  })

  it('Gemini: :batchEmbedContents, the key in x-goog-api-key', async () => {
    const s = ragas.createSemanticSimilarityScorer({ embedder: { id: `google/${uniqueModelId('g').slice(7)}`, url: `${server.origin}/v1beta`, apiKey: 'g-key' } })
    const r = await s.run({ output: 'Paris is the capital', groundTruth: 'Paris is the capital' })
    expect(r.score).toBeCloseTo(1, 12)
    const [req] = server.embeddingRequests
    expect(req.api).toBe('google-embeddings')
    expect(req.path).toMatch(/\/v1beta\/models\/g-\d+:batchEmbedContents$/)
    expect(req.headers['x-goog-api-key']).toBe('g-key')
    expect(req.texts).toEqual(['Paris is the capital']) // identical texts: embedded once
  })

  it('scripted vectors per text', async () => {
    server.scriptEmbedding('north', [1, 0]).scriptEmbedding('east', [0, 3])
    const r = await scorer().run({ output: 'north', groundTruth: 'east' })
    expect(r.score).toBe(0)
  })

  it('a function embedder (texts → vectors), bounded by the call signal', async () => {
    const seen: string[][] = []
    const s = ragas.createSemanticSimilarityScorer({
      embedder: (t: string[], ctx: { signal: AbortSignal }) => {
        expect(ctx.signal).toBeInstanceOf(AbortSignal)
        seen.push(t)
        return t.map((x) => (x === 'x' ? [3, 4] : [4, 3]))
      },
    })
    const r = await s.run({ output: 'x', groundTruth: 'y' })
    expect(r.score).toBeCloseTo(0.96, 12)
    expect(seen.flat().sort()).toEqual(['x', 'y'])
  })

  it('an AI SDK EmbeddingModel (doEmbed, v2), its usage counted', async () => {
    const model = {
      specificationVersion: 'v2',
      provider: 'test.embedding',
      modelId: 'unit',
      maxEmbeddingsPerCall: 1,
      calls: 0,
      async doEmbed({ values }: { values: string[] }) {
        this.calls++
        return { embeddings: values.map((v) => [v.length, 1]), usage: { tokens: 7 } }
      },
    }
    const r = await ragas.createSemanticSimilarityScorer({ embedder: model }).run({ output: 'abc', groundTruth: 'abc' })
    expect(r.score).toBeCloseTo(1, 12)
    expect(model.calls).toBe(1) // one text: 'abc' once
    expect(r.judge.embed.executions[0].usage.inputTokens).toBe(7)
  })

  it.each([
    ['@ai-sdk/openai (v3)', '@ai-sdk/openai'],
    ['@ai-sdk/openai v2', '@ai-sdk/openai-v2'],
  ])('a real AI SDK embedding model: %s at the scripted judge, the same score as the HTTP road', async (_name, pkg) => {
    const { createOpenAI } = require(pkg)
    const model = createOpenAI({ baseURL: server.url, apiKey: 'k' }).textEmbeddingModel('text-embedding-3-small')
    const viaSdk = await ragas.createSemanticSimilarityScorer({ embedder: model }).run({ output: 'The cat sat', groundTruth: 'A cat sat down' })
    const direct = await scorer().run({ output: 'The cat sat', groundTruth: 'A cat sat down' })
    expect(viaSdk.score).toBeCloseTo(direct.score, 12)
    expect(server.embeddingRequests.length).toBe(2)
  })

  it('bad options are TypeErrors', () => {
    expect(() => ragas.createSemanticSimilarityScorer({})).toThrow(/options.embedder is required/)
    expect(() => ragas.createSemanticSimilarityScorer({ embedder: 'anthropic/claude-x' })).toThrow(/Anthropic has no embeddings API/)
    expect(() => ragas.createSemanticSimilarityScorer({ embedder: { specificationVersion: 'v1', doEmbed() {} } })).toThrow(/unsupported specification version/)
    expect(() => ragas.createSemanticSimilarityScorer({ embedder: 'openai/x', threshold: 'high' })).toThrow(TypeError)
  })
})

describe('failures: only the scorer fails, with a stable code at its step', () => {
  it.each([
    ['too few vectors', { embeddings: [[1, 2]] }, 'OXEVAL_EMBED_OUTPUT', /1 vectors for 2 texts/, 1],
    ['two dimensions', { embeddings: [[1, 2], [1, 2, 3]] }, 'OXEVAL_EMBED_OUTPUT', /vector 1 of the embedder's reply has 3 dimensions, vector 0 has 2/, 1],
    ['an empty vector', { embeddings: [[], []] }, 'OXEVAL_EMBED_OUTPUT', /is empty/, 1],
    // a garbled 2xx body is retried like a garbled judge reply (maxRetries: 1)
    ['a non-number', { embeddings: [[1, 'x'], [1, 2]] }, 'OXEVAL_JUDGE_OUTPUT', /not a number/, 2],
    ['not JSON', { content: 'Sorry' }, 'OXEVAL_JUDGE_OUTPUT', /not JSON/, 2],
  ])('%s → %s at embed', async (_name, reply, code, message, requests) => {
    server.onEmbeddings(() => true, reply)
    const e = await failure(scorer({ modelSettings: { maxRetries: 1, retryDelayMs: 1 } }).run({ output: 'a', groundTruth: 'b' }))
    expect(e.name).toBe('ScorerRunError')
    expect(e.failedStep).toBe('embed')
    expect(e.completedSteps).toEqual(['preprocess'])
    expect(e.code).toBe(code)
    expect(e.message).toMatch(message)
    expect(server.embeddingRequests).toHaveLength(requests)
  })

  it('a function returning NaN → OXEVAL_EMBED_OUTPUT at once (not retried)', async () => {
    let calls = 0
    const s = ragas.createSemanticSimilarityScorer({ embedder: (t: string[]) => (calls++, t.map(() => [NaN, 1])) })
    const e = await failure(s.run({ output: 'a', groundTruth: 'b' }))
    expect(e.code).toBe('OXEVAL_EMBED_OUTPUT')
    expect(e.message).toMatch(/non-finite/)
    expect(e.failedStep).toBe('embed')
    expect(calls).toBe(1)
  })

  it('a JS embedder that never answers is bounded by callbackTimeoutMs', async () => {
    const s = ragas.createSemanticSimilarityScorer({ embedder: () => new Promise(() => {}) })
    const t0 = Date.now()
    const e = await failure(s.run({ output: 'a', groundTruth: 'b' }, { callbackTimeoutMs: 150 }))
    expect(e.code).toBe('OXEVAL_CALLBACK_TIMEOUT')
    expect(e.failedStep).toBe('embed')
    expect(Date.now() - t0).toBeLessThan(2000)
  })

  it('random faults (429, 500, reset, truncate, garbled): every run scores as without them or fails with a stable code', async () => {
    const { startJudgeServer } = await import('../testing/judge-server.mjs')
    const faulty = await startJudgeServer({ faults: { rate: 0.4, seed: 11, kinds: ['429', '500', 'reset', 'truncate', 'invalid-json', 'empty'] } })
    try {
      const make = (url: string) =>
        ragas.createSemanticSimilarityScorer({ embedder: { id: uniqueModelId('faults'), url, apiKey: 'k' }, modelSettings: { retryDelayMs: 1, maxRetries: 2, timeoutMs: 3000 } })
      const runs = Array.from({ length: 40 }, (_, i) => ({ output: `response ${i} text`, groundTruth: `reference ${i % 7} words` }))
      const clean = await Promise.all(runs.map((r) => make(server.url).run(r)))
      const f = make(faulty.url)
      // one run at a time: 40 requests or more (coalesced, they would be one or two)
      const got: PromiseSettledResult<Any>[] = []
      for (const r of runs) got.push((await Promise.allSettled([f.run(r)]))[0])
      let failed = 0
      got.forEach((g, i) => {
        if (g.status === 'fulfilled') expect(g.value.score).toBe(clean[i].score)
        else {
          failed++
          expect(g.reason.name).toBe('ScorerRunError')
          expect(g.reason.failedStep).toBe('embed')
          expect(['OXEVAL_JUDGE_HTTP', 'OXEVAL_JUDGE_NETWORK', 'OXEVAL_JUDGE_OUTPUT']).toContain(g.reason.code)
        }
      })
      expect(faulty.embeddingRequests.some((r) => r.fault !== null)).toBe(true)
      expect(failed).toBeLessThan(runs.length)
    } finally {
      await faulty.close()
    }
  })

  it('a zero vector fails generateScore (Ragas would score NaN)', async () => {
    server.scriptEmbedding('zero', [0, 0]).scriptEmbedding('one', [1, 0])
    const e = await failure(scorer().run({ output: 'zero', groundTruth: 'one' }))
    expect(e.code).toBe('OXEVAL_EMBED_OUTPUT')
    expect(e.failedStep).toBe('generateScore')
    expect(e.completedSteps).toEqual(['preprocess', 'embed'])
  })

  it('a transient 503 is retried; a 401 is not, and the key never shows', async () => {
    server.onEmbeddings(() => true, { status: 503, content: 'busy' }, { times: 1 })
    const r = await scorer().run({ output: 'a', groundTruth: 'b' })
    expect(typeof r.score).toBe('number')
    expect(server.embeddingRequests).toHaveLength(2)
    server.reset()
    server.onEmbeddings(() => true, { status: 401, content: 'bad key sk-test-secret-123' })
    const e = await failure(scorer().run({ output: 'a', groundTruth: 'b' }))
    expect(e.code).toBe('OXEVAL_JUDGE_HTTP')
    expect(JSON.stringify({ m: e.message, c: e.cause?.message, r: e.result })).not.toContain('sk-test-secret-123')
    expect(e.message).toContain('[redacted]')
  })

  it('in runEvals an embeddings failure fails only that scorer; the others keep their results', async () => {
    server.onEmbeddings(() => true, { status: 400, content: 'no' })
    const data = [{ input: 'q', output: 'a', groundTruth: 'a' }]
    const r = await oxeval.runEvals({ data, scorers: [scorer(), ragas.createExactMatchScorer()], target: async () => 'a' } as Any)
    expect(r.errors['ragas-semantic-similarity']).toBe(1)
    expect(r.errors['ragas-exact-match']).toBe(0)
    expect(r.scores['ragas-exact-match']).toBe(1)
  })

  it('an abort ends a run waiting on a hanging embedder', async () => {
    server.onEmbeddings(() => true, { fault: 'hang' })
    const ac = new AbortController()
    const p = scorer().run({ output: 'a', groundTruth: 'b' }, { signal: ac.signal })
    await server.waitForRequests(1)
    const t0 = Date.now()
    ac.abort()
    const e = await failure(p)
    expect(e.name).toBe('AbortError')
    expect(Date.now() - t0).toBeLessThan(2000)
  })
})

describe('cache', () => {
  it('record then replay: one entry per text and model, nothing sent on replay', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oxeval-embed-'))
    try {
      const emb = embedder()
      const first = await ragas.createSemanticSimilarityScorer({ embedder: emb, cache: { dir, mode: 'record', memory: false } }).run({ output: 'one two', groundTruth: 'two three' })
      expect(texts()).toHaveLength(2)
      server.reset()
      const again = await ragas.createSemanticSimilarityScorer({ embedder: emb, cache: { dir, mode: 'replay', memory: false } }).run({ output: 'one two', groundTruth: 'two three' })
      expect(again.score).toBe(first.score)
      expect(server.embeddingRequests).toHaveLength(0)
      expect(again.judge.embed.executions[0].cached).toBe(true)
      const miss = await failure(
        ragas.createSemanticSimilarityScorer({ embedder: emb, cache: { dir, mode: 'replay', memory: false } }).run({ output: 'new text', groundTruth: 'two three' }),
      )
      expect(miss.code).toBe('OXEVAL_CACHE_MISS')
      expect(server.embeddingRequests).toHaveLength(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('the command line', () => {
  it('--scorer semantic-similarity with --option semantic-similarity.embedder', async () => {
    const t = tempDir()
    try {
      t.write('data.jsonl', jsonl([
        { input: 'q1', output: 'Paris is the capital', groundTruth: 'Paris is the capital of France' },
        { input: 'q2', output: 'a dog', groundTruth: 'a cat' },
      ]))
      const embedder = JSON.stringify({ id: uniqueModelId('cli'), url: server.url, apiKey: 'k' })
      const r = await runCli(['run', '--data', t.p('data.jsonl'), '--scorer', 'semantic-similarity', '--option', `semantic-similarity.embedder=${embedder}`])
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(/ragas-semantic-similarity\s+0\.\d+\s+2\/2\s+0/)
      // the four texts of the two items in one request
      expect(server.embeddingRequests.map((q) => q.texts?.length)).toEqual([4])
      const missing = await runCli(['run', '--data', t.p('data.jsonl'), '--scorer', 'semantic-similarity'])
      expect(missing.code).not.toBe(0)
      expect(missing.stderr).toMatch(/options.embedder is required/)
    } finally {
      t.remove()
    }
  }, 60_000)
})
