// Batch mode (issue 24): runEvals' `batch` option and the scorer option over the judge
// server's three batch protocols (OpenAI, Anthropic, Gemini): the same scores, step results
// and usage as direct mode, one batch per pipeline stage, every request submitted once (a
// failed or expired line once more), statuses and slow batches, a batch that never ends
// (bounded by maxWaitMs and by the run's deadline), provider errors as typed errors carrying
// the provider's message, resume from the state directory, and no secret in it.
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { heuristicJudge } from '../testing/judge-server.mjs'
import { type Any, type RecordedRequest, failure, oxeval, thrownBy, useJudgeServer } from './helpers/setup'

const server = useJudgeServer({ handler: heuristicJudge })
const ID = 'answer-relevancy-scorer'

const made: string[] = []
function cacheDir() {
  const d = mkdtempSync(join(tmpdir(), `oxeval-batch-${made.length + 1}-`))
  made.push(d)
  return d
}
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})

type Provider = 'openai' | 'azure' | 'anthropic' | 'google'
function modelOf(p: Provider, extra: Record<string, unknown> = {}) {
  const origin = server.origin
  if (p === 'azure') return { id: 'azure/judge-deployment', url: `${origin}/openai`, apiKey: 'az-test-key', apiVersion: '2024-10-21', ...extra }
  if (p === 'openai') return { id: 'openai/scripted-judge', url: `${origin}/v1`, apiKey: 'sk-test-key', ...extra }
  if (p === 'anthropic') return { id: 'anthropic/claude-judge', url: `${origin}/v1`, apiKey: 'sk-ant-test', ...extra }
  return { id: 'google/gemini-2.5-flash', url: `${origin}/v1beta`, apiKey: 'goog-test-key', ...extra }
}

const items = (n: number, tag = '') =>
  Array.from({ length: n }, (_, i) => ({ id: `q${i}`, input: `What is the capital of country ${i}${tag}?`, output: `The capital of country ${i} is City ${i}. It is a large city.` }))

function relevancy(p: Provider, dir: string, extra: Record<string, unknown> = {}) {
  return oxeval.createAnswerRelevancyScorer({ model: modelOf(p), modelSettings: { retryDelayMs: 1 }, cache: { dir, memory: false }, ...extra } as Any)
}

/** The items' results without what differs by transport (ids, durations, the batch id). */
function comparable(r: Any, also: string[] = []) {
  const drop = new Set(['durationMs', 'batch', ...also])
  return r.items.map((it: Any) => {
    const res = it.results[ID]
    if (!res) return { error: it.errors[ID]?.code }
    const { runId: _r, ...rest } = res
    return JSON.parse(JSON.stringify(rest, (k, v) => (drop.has(k) ? undefined : v)))
  })
}

const withoutBatchFields = (u: Any) => Object.fromEntries(Object.entries(u).filter(([k]) => !k.startsWith('batch')))
const lines = (): RecordedRequest[] => server.requests.filter((r: Any) => r.batch !== undefined)
const creates = () => server.requests.filter((r) => r.method === 'POST' && /\/batches$|:batchGenerateContent$/.test(r.path))
/** How many batches each request (custom id) was submitted in. */
const perCustomId = () => {
  const m = new Map<string, number>()
  for (const b of server.batches.values() as Iterable<Any>) for (const l of b.lines) m.set(l.id, (m.get(l.id) ?? 0) + 1)
  return m
}
const stateFiles = (dir: string) => {
  try {
    return readdirSync(join(dir, 'batches')).filter((f) => f.endsWith('.json'))
  } catch {
    return []
  }
}

describe.each(['openai', 'azure', 'anthropic', 'google'] as Provider[])('%s batches', (p) => {
  it('give the same scores, step results and usage as direct calls, one batch per stage, each request once', async () => {
    const data = items(6)
    const direct = await oxeval.runEvals({ data, scorers: [relevancy(p, cacheDir())] })
    server.reset()
    const progress: Any[] = []
    const dir = cacheDir()
    const batched = await oxeval.runEvals({ data, scorers: [relevancy(p, dir)], batch: { pollMs: 10, onProgress: (x: Any) => progress.push(x) } } as Any)
    expect(batched.scores).toEqual(direct.scores)
    expect(comparable(batched)).toEqual(comparable(direct))
    expect(withoutBatchFields(batched.usage[ID])).toEqual(direct.usage[ID])
    // every call went through a batch: the usage says so, and so does every execution
    expect(batched.usage[ID].batchCalls).toBe(direct.usage[ID].calls)
    expect(batched.usage[ID].batchTotalTokens).toBe(direct.usage[ID].totalTokens)
    const ex = batched.items[0].results[ID].judge.analyze.executions[0]
    expect(typeof ex.batch).toBe('string')
    // answer relevancy: statements → verdicts → reason, one batch each; no direct call
    expect(creates()).toHaveLength(3)
    expect(server.requests.filter((r) => r.batch === undefined && /chat\/completions$|\/messages$|:generateContent$/.test(r.path))).toHaveLength(0)
    expect(lines()).toHaveLength(18)
    expect([...perCustomId().values()].every((n) => n === 1)).toBe(true)
    // the session's records are gone once every answer is in the cache
    expect(stateFiles(dir)).toEqual([])
    expect(batched.batch.pending).toEqual([])
    expect(batched.batch.removed).toHaveLength(3)
    // progress: per stage, its batches and their lines
    const last = progress[progress.length - 1]
    expect(last.stages.map((s: Any) => [s.stage, s.lines, s.completed])).toEqual([
      [1, 6, 6],
      [2, 6, 6],
      [3, 6, 6],
    ])
  })

  it('retry a failed line and expired lines in the next batch, once more each', async () => {
    const data = items(4)
    const direct = await oxeval.runEvals({ data, scorers: [relevancy(p, cacheDir())] })
    server.reset()
    // the first batch expires with 1 line answered; one verdicts line fails with a 503 once
    server.scriptBatch({ final: 'expired', answered: 1 })
    server.on((r: Any) => r.batch !== undefined && r.schemaName === 'answer_relevancy_verdicts' && r.user.includes('country 2'), { status: 503, content: 'overloaded, try later' }, { times: 1 })
    const batched = await oxeval.runEvals({ data, scorers: [relevancy(p, cacheDir())], batch: { pollMs: 10 } } as Any)
    // the same results; a retried line is one more model call (as a retried direct call is)
    expect(comparable(batched, ['modelCallCount'])).toEqual(comparable(direct, ['modelCallCount']))
    expect(batched.usage[ID].calls).toBeGreaterThan(direct.usage[ID].calls)
    const counts = [...perCustomId().values()].sort()
    // 12 requests: 3 expired lines and 1 failed line went twice, the rest once
    expect(counts).toHaveLength(12)
    expect(counts.filter((n) => n === 2)).toHaveLength(4)
    expect(counts.filter((n) => n > 2)).toHaveLength(0)
  })

  it('a line the judge rejects for good (HTTP 400) is a typed error of its step, sent once', async () => {
    server.on((r: Any) => r.batch !== undefined && r.schemaName === 'answer_relevancy_statements' && r.user.includes('country 1'), { status: 400, content: 'Invalid schema for response_format' })
    const r = await oxeval.runEvals({ data: items(2), scorers: [relevancy(p, cacheDir())], batch: { pollMs: 10 } } as Any)
    expect(r.items[1].errors[ID]).toMatchObject({ code: 'OXEVAL_JUDGE_HTTP', failedStep: 'preprocess' })
    expect(r.items[1].errors[ID].message).toContain('Invalid schema for response_format')
    expect(r.items[0].results[ID].score).toBeTypeOf('number')
    expect(r.outcome.status).toBe('failed')
    expect([...perCustomId().values()].every((n) => n === 1)).toBe(true)
  })

  it('a create whose answer is lost (accepted, then the connection reset) is looked up, not created again', async () => {
    const data = items(3, ' lost')
    const direct = await oxeval.runEvals({ data, scorers: [relevancy(p, cacheDir())] })
    server.reset()
    server.scriptBatch({ createFault: 'reset' })
    const dir = cacheDir()
    const r = await oxeval.runEvals({ data, scorers: [relevancy(p, dir)], batch: { pollMs: 10 } } as Any)
    expect(comparable(r)).toEqual(comparable(direct))
    // the lost create was found in the provider's list: one batch per stage, each line once
    expect(server.requests.some((q: Any) => q.fault === 'reset')).toBe(true)
    expect(server.requests.some((q) => q.method === 'GET' && /\/batches$/.test(q.path))).toBe(true)
    expect(server.batches.size).toBe(3)
    expect([...perCustomId().values()].every((n) => n === 1)).toBe(true)
    expect(stateFiles(dir)).toEqual([])
  })

  it('a provider error on create is a typed error carrying the provider message', async () => {
    server.scriptBatch({ createStatus: 400, createMessage: 'Enqueued token limit reached for this model' })
    const r = await oxeval.runEvals({ data: items(2), scorers: [relevancy(p, cacheDir())], batch: { pollMs: 10 }, maxErrors: 5 } as Any)
    for (const it of r.items) {
      expect(it.errors[ID].code).toBe('OXEVAL_BATCH_FAILED')
      expect(it.errors[ID].message).toContain('Enqueued token limit reached for this model')
      expect(it.errors[ID].message).toContain('HTTP 400')
      expect(it.errors[ID].message).not.toMatch(/sk-|goog-test|az-test/)
    }
    expect(r.outcome.status).toBe('failed')
  })
})

describe('batch mode', () => {
  it('Anthropic (no batch tag): a lost create that matches several batches creates nothing, names them and keeps the intent', async () => {
    const data = items(3, ' unsure')
    // another run's three batches of 3 requests each, just created (not recorded in this cache)
    await oxeval.runEvals({ data: items(3, ' other'), scorers: [relevancy('anthropic', cacheDir())], batch: { pollMs: 10 } } as Any)
    expect(server.batches.size).toBe(3)
    server.scriptBatch({ createFault: 'reset' })
    const dir = cacheDir()
    const r = await oxeval.runEvals({ data, scorers: [relevancy('anthropic', dir)], batch: { pollMs: 10 }, maxErrors: 100 } as Any)
    // the lost create made a 4th batch; nothing was created again
    expect(server.batches.size).toBe(4)
    const ids = [...server.batches.keys()]
    for (const it of r.items) {
      expect(it.errors[ID].code).toBe('OXEVAL_BATCH_FAILED')
      expect(it.errors[ID].message).toContain('oxeval does not create it again')
      for (const id of ids) expect(it.errors[ID].message).toContain(id)
    }
    const intents = readdirSync(join(dir, 'batches')).filter((f) => f.startsWith('intent-'))
    expect(intents).toHaveLength(1)
    expect(r.items[0].errors[ID].message).toContain(intents[0])
  })

  it('follows a slow batch through its statuses, results in reverse order', async () => {
    // 2 s: 400 ms validating, 1.2 s in progress, 400 ms finalizing (onProgress samples every 50 ms)
    server.scriptBatch({ delayMs: 2000 })
    const seen = new Set<string>()
    const dir = cacheDir()
    const r = await oxeval.runEvals({
      data: items(3),
      scorers: [relevancy('openai', dir)],
      batch: { pollMs: 20, onProgress: (x: Any) => x.stages.forEach((s: Any) => s.batches.forEach((b: Any) => seen.add(b.status))) },
    } as Any)
    expect(r.summary.erroredItems).toBe(0)
    expect([...seen]).toEqual(expect.arrayContaining(['validating', 'in_progress', 'finalizing', 'completed']))
    const first = [...server.batches.values()][0] as Any
    expect(first.results.map((x: Any) => x.id)).toEqual(first.lines.map((l: Any) => l.id).reverse())
  })

  it('a failed batch is a typed error with the provider message', async () => {
    server.scriptBatch({ final: 'failed', message: 'line 2: model not allowed for batch' })
    const r = await oxeval.runEvals({ data: items(2), scorers: [relevancy('openai', cacheDir())], batch: { pollMs: 10 }, maxErrors: 5 } as Any)
    expect(r.items[0].errors[ID].code).toBe('OXEVAL_BATCH_FAILED')
    expect(r.items[0].errors[ID].message).toContain('line 2: model not allowed for batch')
  })

  it('a batch that never ends: maxWaitMs fails the waiting items with OXEVAL_BATCH_TIMEOUT and keeps the record', async () => {
    server.scriptBatch({ neverEnds: true })
    const dir = cacheDir()
    const t0 = Date.now()
    const r = await oxeval.runEvals({ data: items(2), scorers: [relevancy('openai', dir)], batch: { pollMs: 20, maxWaitMs: 300 }, maxErrors: 5 } as Any)
    expect(Date.now() - t0).toBeLessThan(5000)
    expect(r.items.map((it: Any) => it.errors[ID].code)).toEqual(['OXEVAL_BATCH_TIMEOUT', 'OXEVAL_BATCH_TIMEOUT'])
    expect(r.items[0].errors[ID].message).toContain('maxWaitMs')
    expect(stateFiles(dir)).toHaveLength(1)
    expect(r.batch.pending).toHaveLength(1)
  })

  it("a batch that never ends is bounded by the run's deadline (scorer option batch)", async () => {
    server.scriptBatch({ neverEnds: true })
    const scorer = relevancy('openai', cacheDir(), { batch: { pollMs: 20 } })
    const t0 = Date.now()
    const e = await failure(scorer.run({ input: 'What is 2+2?', output: 'It is 4.' }, { deadlineMs: 400 }))
    expect(Date.now() - t0).toBeLessThan(3000)
    expect(e.code).toBe('OXEVAL_DEADLINE')
    expect(e.failedStep).toBe('preprocess')
  })

  it('the scorer option batches concurrent runs of one scorer together', async () => {
    const scorer = relevancy('openai', cacheDir(), { batch: { pollMs: 10 } })
    const runs = await Promise.all(items(5).map((x) => scorer.run(x)))
    expect(runs.every((x: Any) => typeof x.score === 'number')).toBe(true)
    expect(creates()).toHaveLength(3)
  })

  it('resumes: a detached run records its batch; the next run polls it instead of submitting again', async () => {
    const data = items(4)
    const direct = await oxeval.runEvals({ data, scorers: [relevancy('openai', cacheDir())] })
    server.reset()
    const dir = cacheDir()
    server.scriptBatch({ delayMs: 300 })
    const first = await oxeval.runEvals({ data, scorers: [relevancy('openai', dir)], batch: { pollMs: 20, detach: true }, maxErrors: 100 } as Any)
    expect(first.items.map((it: Any) => it.errors[ID]?.code)).toEqual(Array(4).fill('OXEVAL_BATCH_PENDING'))
    expect(first.batch.pending).toHaveLength(1)
    expect(stateFiles(dir)).toHaveLength(1)
    expect(creates()).toHaveLength(1)
    const again = await oxeval.runEvals({ data, scorers: [relevancy('openai', dir)], batch: { pollMs: 20 } } as Any)
    expect(comparable(again)).toEqual(comparable(direct))
    // stage 1 was polled, not submitted again: 3 batches in all, each request once
    expect(creates()).toHaveLength(3)
    expect([...perCustomId().values()].every((n) => n === 1)).toBe(true)
    expect(stateFiles(dir)).toEqual([])
  })

  it('a batch record with a UTF-8 BOM is read: the rerun polls its batch, nothing is submitted again', async () => {
    const data = items(3, ' bom')
    const dir = cacheDir()
    server.scriptBatch({ delayMs: 300 })
    await oxeval.runEvals({ data, scorers: [relevancy('openai', dir)], batch: { pollMs: 20, detach: true }, maxErrors: 100 } as Any)
    const [file] = stateFiles(dir)
    const path = join(dir, 'batches', file)
    writeFileSync(path, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(path)]))
    const again = await oxeval.runEvals({ data, scorers: [relevancy('openai', dir)], batch: { pollMs: 20 } } as Any)
    expect(again.summary.erroredItems).toBe(0)
    expect(creates()).toHaveLength(3)
    expect([...perCustomId().values()].every((n) => n === 1)).toBe(true)
  })

  it.each([
    ['git conflict markers', (t: string) => `<<<<<<< HEAD\n${t}=======\n${t}>>>>>>> other\n`, 'git conflict markers'],
    ['a truncated copy', (t: string) => t.slice(0, Math.floor(t.length / 2)), 'cut short'],
  ])('a batch record with %s: its lines are not submitted again, the items fail naming the file, a warning', async (_, damage, why) => {
    const data = items(3, ' damaged')
    const dir = cacheDir()
    server.scriptBatch({ delayMs: 300 })
    await oxeval.runEvals({ data, scorers: [relevancy('openai', dir)], batch: { pollMs: 20, detach: true }, maxErrors: 100 } as Any)
    const [file] = stateFiles(dir)
    const path = join(dir, 'batches', file)
    writeFileSync(path, damage(readFileSync(path, 'utf8')))
    const warnings: Any[] = []
    const onWarning = (w: Any) => warnings.push(w)
    process.on('warning', onWarning)
    try {
      const again = await oxeval.runEvals({ data, scorers: [relevancy('openai', dir)], batch: { pollMs: 20 }, maxErrors: 100 } as Any)
      for (const it of again.items) {
        expect(it.errors[ID].code).toBe('OXEVAL_BATCH_FAILED')
        expect(it.errors[ID].message).toContain(file)
        expect(it.errors[ID].message).toContain(why)
        expect(it.errors[ID].message).toContain('may already be in a paid batch')
      }
      expect(again.batch.unreadable).toEqual([expect.objectContaining({ file: path })])
      // nothing submitted again: the first batch only
      expect(creates()).toHaveLength(1)
      await new Promise((r) => setImmediate(r))
      expect(warnings.some((w) => w.code === 'OXEVAL_BATCH_RECORD_UNREADABLE' && w.message.includes(file))).toBe(true)
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('a stage of 300 items is one batch: runs whose answer came hold the next flush back', async () => {
    const r = await oxeval.runEvals({ data: items(300, ' big'), scorers: [relevancy('openai', cacheDir())], batch: { pollMs: 10 } } as Any)
    expect(r.summary.erroredItems).toBe(0)
    expect(creates()).toHaveLength(3)
    expect([...server.batches.values()].map((b: Any) => b.lines.length)).toEqual([300, 300, 300])
  }, 60000)

  it('maxItems bounds the items in flight: waves of batches, the same results', async () => {
    const data = items(7, ' waves')
    const direct = await oxeval.runEvals({ data, scorers: [relevancy('openai', cacheDir())] })
    server.reset()
    const r = await oxeval.runEvals({ data, scorers: [relevancy('openai', cacheDir())], batch: { pollMs: 10, maxItems: 3 } } as Any)
    expect(comparable(r)).toEqual(comparable(direct))
    // 3 + 3 + 1 items, 3 stages each
    expect(creates()).toHaveLength(9)
    expect(Math.max(...[...server.batches.values()].map((b: Any) => b.lines.length))).toBe(3)
    const bad = await failure(oxeval.runEvals({ data, scorers: [relevancy('openai', cacheDir())], batch: { maxItems: 0 } } as Any))
    expect(bad.message).toContain('batch.maxItems must be an integer ≥ 1')
  })

  it('at maxItems, items are admitted in bulk: none until half the slots are free, then every free slot at once', async () => {
    const { createRequire } = await import('node:module')
    const { batchMode } = createRequire(import.meta.url)('../lib/batch.js')
    const mode = batchMode({ batch: { maxItems: 4 } }, [], 1)
    const ends: Array<() => void> = []
    let next = 0
    const tick = () => new Promise((r) => setImmediate(r))
    const fed = mode.feed(
      async () => (next < 10 ? ++next : undefined),
      (_n: number, release: () => void) => {
        release()
        return new Promise<void>((r) => ends.push(r))
      },
      (e: unknown) => {
        throw e
      },
      () => false,
    )
    await tick()
    expect(ends).toHaveLength(4)
    // one item ends: its slot alone lets nobody in (one item a time made batches of a few lines)
    ends[0]()
    await tick()
    expect(ends).toHaveLength(4)
    // a second: half the slots are free, both are filled at once
    ends[1]()
    await tick()
    expect(ends).toHaveLength(6)
    for (let i = 2; ends.length < 10 || i < ends.length; i++) {
      ends[i]()
      await tick()
    }
    await fed
    expect(ends).toHaveLength(10)
    await mode.close()
  })

  it('a record the provider no longer knows (404) is removed and its requests are submitted again', async () => {
    const data = items(2)
    const dir = cacheDir()
    server.scriptBatch({ neverEnds: true })
    const first = await oxeval.runEvals({ data, scorers: [relevancy('openai', dir)], batch: { pollMs: 20, detach: true }, maxErrors: 100 } as Any)
    expect(first.batch.pending).toHaveLength(1)
    expect(stateFiles(dir)).toHaveLength(1)
    // the provider forgot the batch (past its retention)
    server.reset()
    const again = await oxeval.runEvals({ data, scorers: [relevancy('openai', dir)], batch: { pollMs: 20 } } as Any)
    expect(again.summary.erroredItems).toBe(0)
    expect(creates()).toHaveLength(3)
    expect(stateFiles(dir)).toEqual([])
  })

  it('writes no secret to the state directory (key, header values, URL userinfo)', async () => {
    const dir = cacheDir()
    server.scriptBatch({ neverEnds: true })
    const model = modelOf('openai', { apiKey: 'sk-live-SECRET-4242', headers: { 'x-team-token': 'hdr-SECRET-7777' } })
    const scorer = oxeval.createAnswerRelevancyScorer({ model, cache: { dir } } as Any)
    const r = await oxeval.runEvals({ data: items(2), scorers: [scorer], batch: { pollMs: 10, detach: true }, maxErrors: 5 } as Any)
    expect(r.batch.pending).toHaveLength(1)
    const files = stateFiles(dir)
    expect(files).toHaveLength(1)
    const text = readFileSync(join(dir, 'batches', files[0]), 'utf8')
    expect(JSON.parse(text)).toMatchObject({ format: 'oxeval-batch-v1', provider: 'openai', batch: expect.any(String), stage: 1 })
    for (const secret of ['SECRET', '127.0.0.1', 'scripted-judge']) expect(text).not.toContain(secret)
    // the requests the server saw did carry the credentials
    expect(server.requests.some((q) => q.headers.authorization === 'Bearer sk-live-SECRET-4242' && q.headers['x-team-token'] === 'hdr-SECRET-7777')).toBe(true)
    rmSync(dir, { recursive: true, force: true })
  })

  it('needs a disk cache for every judged scorer: a TypeError naming the scorer', async () => {
    const memoryOnly = oxeval.createAnswerRelevancyScorer({ model: modelOf('openai'), cache: true } as Any)
    const e = await failure(oxeval.runEvals({ data: items(1), scorers: [memoryOnly], batch: true } as Any))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toContain('"answer-relevancy-scorer"')
    expect(e.message).toContain('disk cache')
    const factory = thrownBy(() => oxeval.createAnswerRelevancyScorer({ model: modelOf('openai'), batch: true } as Any))
    expect(factory).toBeInstanceOf(TypeError)
    expect(factory.message).toMatch(/createAnswerRelevancyScorer: options\.batch cannot be used: batch mode needs a disk cache/)
    const bad = await failure(oxeval.runEvals({ data: items(1), scorers: [relevancy('openai', cacheDir())], batch: { pollMs: -1 } } as Any))
    expect(bad).toBeInstanceOf(TypeError)
    expect(bad.message).toContain('batch.pollMs')
    // a code scorer needs no judge: it runs as it is
    const ok = await oxeval.runEvals({ data: [{ input: 'a', output: 'b' }], scorers: [oxeval.createToneScorer()], batch: true } as Any)
    expect(ok.summary.erroredItems).toBe(0)
  })

  it('trials: 3 in batch mode (and with a cache) are three samples: three batch lines per item, a non-zero std', async () => {
    // the judge answers each statements request differently: 1, 2 or 0 relevant statements of 1, 2, 1
    let n = 0
    const variants = [['The capital of the country is a large city.'], ['The capital of the country is old.', 'Bananas are yellow fruit.'], ['Bananas are yellow fruit.']]
    server.on((r: Any) => r.schemaName === 'answer_relevancy_statements', () => ({ json: { statements: variants[n++ % 3] } }))
    const dir = cacheDir()
    const r = await oxeval.runEvals({ data: items(2, ' trials'), scorers: [relevancy('openai', dir)], trials: 3, batch: { pollMs: 10 } } as Any)
    expect(r.summary.erroredItems).toBe(0)
    const stage1 = [...server.batches.values()][0] as Any
    // 2 items × 3 trials: six distinct lines (custom ids) in the first stage's batch
    expect(stage1.lines).toHaveLength(6)
    expect(new Set(stage1.lines.map((l: Any) => l.id)).size).toBe(6)
    for (const it of r.items) {
      const t = it.trials[ID]
      expect(t.scores).toHaveLength(3)
      // six answers cycling through three variants: an item's three trials span two at least
      expect(new Set(t.scores).size).toBeGreaterThan(1)
      expect(t.std).toBeGreaterThan(0)
      expect(t.ci95[1] - t.ci95[0]).toBeGreaterThan(0)
    }
    // the same run again: every trial's answer comes from the cache (nothing sent)
    server.reset()
    const again = await oxeval.runEvals({ data: items(2, ' trials'), scorers: [relevancy('openai', dir)], trials: 3 } as Any)
    expect(server.requests).toHaveLength(0)
    expect(again.items.map((it: Any) => it.trials[ID].scores)).toEqual(r.items.map((it: Any) => it.trials[ID].scores))
  })

  it('identical requests of two items share one batch line', async () => {
    const same = { input: 'What is the capital of France?', output: 'Paris is the capital of France.' }
    const r = await oxeval.runEvals({ data: [same, { ...same }], scorers: [relevancy('openai', cacheDir())], batch: { pollMs: 10 } } as Any)
    expect(r.items[0].results[ID].score).toBe(r.items[1].results[ID].score)
    expect(lines()).toHaveLength(3)
  })
})
