// Record once, replay in CI: cache.mode 'record' | 'replay' | 'auto' (and OXEVAL_CACHE_MODE) over
// the real addon and the scripted judge. A replay run has no API key in its environment and a
// judge that answers every request with an error: it must send nothing.
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, sep } from 'node:path'
import { heuristicJudge } from '../testing/judge-server.mjs'
import { failure, oxeval, thrownBy, useJudgeServer, type Any } from './helpers/setup'

const { createAnswerRelevancyScorer, ScorerRunError } = oxeval

const server = useJudgeServer({ handler: heuristicJudge })

// built at run time: no key-shaped literal in the repository
const KEY = ['sk', 'cache', 'modes', 'secret', '4242'].join('-')
const HEADER_VALUE = ['header', 'secret', '777'].join('-')
const PASSWORD = ['url', 'pass', '555'].join('-')

const ENV = ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OXEVAL_CACHE_MODE', 'OXEVAL_CACHE_DIR'] as const
const savedEnv = Object.fromEntries(ENV.map((k) => [k, process.env[k]]))
const dirs: string[] = []
afterEach(() => {
  for (const k of ENV) {
    if (savedEnv[k] === undefined) delete process.env[k]
    else process.env[k] = savedEnv[k]
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'oxeval-modes-'))
  dirs.push(d)
  return d
}

/** Every file under `dir`, relative, '/'-separated, sorted. */
function files(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else out.push(relative(dir, p).split(sep).join('/'))
    }
  }
  walk(dir)
  return out.sort()
}

/** The listing with hashes replaced by their shape. */
const shape = (listing: string[]) =>
  listing.map((f) => f.replace(/\/[0-9a-f]{2}\/[0-9a-f]{64}\.json$/, '/<2 hex>/<64 hex>.json')).sort()

/** A scorer judged by `openai/<model>` at OPENAI_BASE_URL with OPENAI_API_KEY from the environment. */
function fromEnv(model: string, cache: unknown) {
  process.env.OPENAI_BASE_URL = server.url
  return createAnswerRelevancyScorer({ model: `openai/${model}`, modelSettings: { retryDelayMs: 1 }, cache } as Any)
}

/** Any request from now on fails the test (and would fail the run). */
function judgeMustNotBeCalled() {
  server.on(() => true, { status: 500, content: 'a replay must not call the judge' })
}

const RUN = { input: 'What is the capital of France?', output: 'Paris is the capital. I like trains.' }

describe('cache modes', () => {
  it('record with a key, then replay with no key: zero requests, the same scores; a changed input is an explained miss', async () => {
    const dir = tempDir()
    process.env.OPENAI_API_KEY = KEY
    const recorded = await fromEnv('modes-1', { dir, mode: 'record' }).run(RUN, { itemId: 'q-1' })
    expect(server.requests).toHaveLength(3)
    expect(server.requests[0].headers.authorization).toBe(`Bearer ${KEY}`)

    delete process.env.OPENAI_API_KEY
    server.reset()
    judgeMustNotBeCalled()
    const replay = fromEnv('modes-1', { dir, mode: 'replay' })
    const r = await replay.run(RUN, { itemId: 'q-1' })
    expect(server.requests).toHaveLength(0)
    expect(r.score).toBe(recorded.score)
    expect(r.reason).toBe(recorded.reason)
    expect(r.analyzeStepResult).toEqual(recorded.analyzeStepResult)
    for (const step of ['preprocess', 'analyze', 'generateReason']) {
      expect(r.judge![step].executions[0]).toMatchObject({ cached: true, modelCallCount: 0 })
    }

    // the input is part of the analyze prompt only: preprocess replays, analyze misses
    const changed = { ...RUN, input: 'What is the capital of Italy?' }
    const e = await failure(replay.run(changed, { itemId: 'q-1' }))
    expect(e).toBeInstanceOf(ScorerRunError)
    expect(e.code).toBe('OXEVAL_CACHE_MISS')
    expect(e.cause.code).toBe('OXEVAL_CACHE_MISS')
    expect(e.cause.name).toBe('CacheMissError')
    expect(e.failedStep).toBe('analyze')
    expect(e.completedSteps).toEqual(['preprocess'])
    expect(e.result.preprocessStepResult).toEqual(recorded.preprocessStepResult)
    expect(e.result.judge.analyze.executions).toHaveLength(1)
    expect(e.result.judge.analyze.executions[0].modelCallCount).toBe(0)
    expect(e.message).toContain("step 'analyze' failed")
    expect(e.message).toContain("scorer 'answer-relevancy-scorer', step 'analyze', item 'q-1'")
    expect(e.message).toContain('the prompt changed')
    expect(e.message).not.toContain('OPENAI_API_KEY')

    // the model changed
    const other = fromEnv('modes-1-mini', { dir, mode: 'replay' })
    const m = await failure(other.run(RUN, { itemId: 'q-1' }))
    expect(m.code).toBe('OXEVAL_CACHE_MISS')
    expect(m.failedStep).toBe('preprocess')
    expect(m.message).toContain('the model changed')
    // an item never recorded
    const n = await failure(replay.run({ input: 'Who?', output: 'Nobody.' }, { itemId: 'q-2' }))
    expect(n.message).toContain("item 'q-2'")
    expect(n.message).toContain('no reply was recorded for this item and step')

    expect(server.requests).toHaveLength(0)
    expect(replay.cacheStats()).toMatchObject({ replayMisses: 2, writes: 0, hits: 4 })
  })

  it('OXEVAL_CACHE_MODE=replay with OXEVAL_CACHE_DIR replays a scorer that sets no cache option', async () => {
    const dir = tempDir()
    process.env.OPENAI_API_KEY = KEY
    const recorded = await fromEnv('modes-env', { dir }).run(RUN)
    delete process.env.OPENAI_API_KEY
    server.reset()
    judgeMustNotBeCalled()
    process.env.OXEVAL_CACHE_DIR = dir
    process.env.OXEVAL_CACHE_MODE = 'replay'
    const s = fromEnv('modes-env', undefined)
    expect((await s.run(RUN)).score).toBe(recorded.score)
    const e = await failure(s.run({ ...RUN, output: 'Paris.' }))
    expect(e.code).toBe('OXEVAL_CACHE_MISS')
    // without an itemId the item is named by a digest of the run's input
    expect(e.message).toMatch(/the item whose input has digest [0-9a-f]{12} \(pass run options\.itemId/)
    expect(server.requests).toHaveLength(0)
  })

  it('record mode asks the judge every time and overwrites the entry; the layout stays the same', async () => {
    const dir = tempDir()
    const model = { id: 'openai/modes-record', url: server.url, apiKey: KEY }
    const rec = createAnswerRelevancyScorer({ model, cache: { dir, mode: 'record', memory: false } })
    await rec.run(RUN, { itemId: 'q-1' })
    const listing = files(dir)
    expect(shape(listing)).toEqual([
      ...Array(3).fill('v3/entries/<2 hex>/<64 hex>.json'),
      ...Array(3).fill('v3/locators/<2 hex>/<64 hex>.json'),
    ])
    const contents = listing.map((f) => readFileSync(join(dir, f), 'utf8'))
    // the same replies recorded again: byte-identical files
    await rec.run(RUN, { itemId: 'q-1' })
    expect(server.requests).toHaveLength(6)
    expect(files(dir)).toEqual(listing)
    expect(listing.map((f) => readFileSync(join(dir, f), 'utf8'))).toEqual(contents)
    // an entry file: sorted keys, digests, the reply; no timestamps
    const entry = JSON.parse(contents[0])
    expect(Object.keys(entry)).toEqual(['format', 'key', 'parts', 'reply'])
    expect(Object.keys(entry.parts)).toEqual(['endpoint', 'model', 'schema', 'settings', 'system', 'user'])
    expect(Object.keys(entry.reply)).toEqual(['finishReason', 'text'])
    expect(entry.format).toBe('oxeval-cache-v3')

    // the judge now says otherwise: record overwrites, replay returns the new reply
    server.on('decide whether it is relevant', { json: { results: [{ result: 'no', reason: 'r' }, { result: 'no', reason: 'r' }] } })
    const again = await rec.run(RUN, { itemId: 'q-1' })
    expect(again.score).toBe(0)
    expect(server.requests).toHaveLength(9)
    // the same requests' entries are overwritten in place; the reason prompt quotes the new
    // score, so the reason is a new entry (the old one stays, no locator points to it)
    const now = files(dir)
    expect(now.filter((f) => !listing.includes(f))).toHaveLength(1)
    expect(shape(now)).toEqual([...Array(4).fill('v3/entries/<2 hex>/<64 hex>.json'), ...Array(3).fill('v3/locators/<2 hex>/<64 hex>.json')])
    const changedFiles = listing.filter((f, i) => readFileSync(join(dir, f), 'utf8') !== contents[i])
    // the analyze entry (same request, new reply) and the generateReason locator (new key)
    expect(shape(changedFiles)).toEqual(['v3/entries/<2 hex>/<64 hex>.json', 'v3/locators/<2 hex>/<64 hex>.json'])
    expect(rec.cacheStats()).toMatchObject({ hits: 0, writes: 9 })
    const replayed = await createAnswerRelevancyScorer({ model, cache: { dir, mode: 'replay' } }).run(RUN, { itemId: 'q-1' })
    expect(replayed.score).toBe(0)
    expect(server.requests).toHaveLength(9)
  })

  it('auto (the default) answers hits and records misses, as before', async () => {
    const dir = tempDir()
    const model = { id: 'openai/modes-auto', url: server.url, apiKey: KEY }
    const s = createAnswerRelevancyScorer({ model, cache: { dir, memory: false } })
    const a = await s.run(RUN)
    const b = await s.run(RUN)
    expect(server.requests).toHaveLength(3)
    expect(b.score).toBe(a.score)
    expect(s.cacheStats()).toEqual({ hits: 3, memoryHits: 0, diskHits: 3, misses: 3, replayMisses: 0, writes: 3, errors: 0, timeouts: 0 })
    const explicit = createAnswerRelevancyScorer({ model, cache: { dir, mode: 'auto', memory: false } })
    await explicit.run(RUN)
    expect(server.requests).toHaveLength(3)
  })

  it('no secret reaches the cache files: not the API key, a header value or URL userinfo', async () => {
    const dir = tempDir()
    const url = server.url.replace('http://', `http://judge:${PASSWORD}@`)
    const s = createAnswerRelevancyScorer({
      model: { id: 'openai/modes-secrets', url, apiKey: KEY, headers: { 'x-judge-secret': HEADER_VALUE } },
      cache: { dir, mode: 'record' },
    })
    await s.run(RUN, { itemId: 'secrets' })
    expect(server.requests).toHaveLength(3)
    expect(server.requests[0].headers['x-judge-secret']).toBe(HEADER_VALUE)
    const all = files(dir).map((f) => readFileSync(join(dir, f), 'utf8'))
    expect(all).toHaveLength(6)
    for (const text of all) {
      for (const secret of [KEY, HEADER_VALUE, PASSWORD, 'modes-secrets', '127.0.0.1']) expect(text).not.toContain(secret)
    }
  })

  it('option errors are TypeErrors at the factory or the run', async () => {
    const model = { id: 'openai/modes-options', url: server.url, apiKey: KEY }
    const make = (cache: unknown) => thrownBy(() => createAnswerRelevancyScorer({ model, cache } as Any))
    let e = make({ mode: 'replay' })
    expect(e).toBeInstanceOf(TypeError)
    expect(e.code).toBe('OXEVAL_INVALID_OPTIONS')
    expect(e.message).toContain("options.cache.mode is 'replay' but there is no cache directory to replay from")
    e = make({ dir: tempDir(), mode: 'REPLAY' })
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toContain("options.cache.mode must be 'record', 'replay' or 'auto'; got 'REPLAY'")
    e = make({ dir: tempDir(), mode: true })
    expect(e.message).toContain('options.cache.mode must be')
    expect(e.message).toContain('got boolean')
    process.env.OXEVAL_CACHE_MODE = 'replay'
    expect(make(true).message).toContain("OXEVAL_CACHE_MODE is 'replay' but there is no cache directory")
    expect(make(false).message).toContain("OXEVAL_CACHE_MODE is 'replay' but options.cache is false")
    expect(make(undefined).message).toContain("OXEVAL_CACHE_MODE is 'replay' but no cache is configured")
    process.env.OXEVAL_CACHE_MODE = 'sometimes'
    expect(make(true).message).toContain("process.env.OXEVAL_CACHE_MODE must be 'record', 'replay' or 'auto'; got 'sometimes'")
    delete process.env.OXEVAL_CACHE_MODE

    const s = createAnswerRelevancyScorer({ model, cache: true })
    for (const [itemId, want] of [
      [17, 'run options.itemId must be a string naming the data item (e.g. its id'],
      [() => 'x', 'got function'],
      [{ id: 1 }, 'got object'],
      ['', 'got an empty string'],
      ['x'.repeat(257), 'at most 256 characters; got 257'],
    ] as const) {
      const err = await failure(s.run(RUN, { itemId } as Any))
      expect(err).toBeInstanceOf(TypeError)
      expect(err.code).toBe('OXEVAL_INVALID_INPUT')
      expect(err.message).toContain(want)
    }
    expect(server.requests).toHaveLength(0)
    await s.run(RUN, { itemId: 'x'.repeat(256) })
  })
})
