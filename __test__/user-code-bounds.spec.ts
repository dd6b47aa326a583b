// Issue 34: every call runEvals makes into user code is bounded, one item's size cannot end the
// run, and a custom scorer's steps are held to the run's bounds. Each fault as it was found:
// a prepareRun or a scorer that is not oxeval's that never settles hung runEvals forever; a
// conversation of ~125 000 messages made runEvals reject with a RangeError; a 50 MB prompt
// reached the judge; a step returning a value with no JSON failed with '"undefined" is not
// valid JSON'.
import { describe, expect, it } from 'vitest'
import { createScorer as mastraCreateScorer } from '@mastra/core/evals'
import { failure, oxeval, uniqueModelId, useJudgeServer, type Any } from './helpers/setup'
import { jsonl, readOut, runCli, tempDir } from './helpers/cli'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'

const { createScorer, runEvals, ScorerRunError, AbortError } = oxeval as Any

const server = useJudgeServer({ handler: () => ({ json: { score: 0.5 } }) })
const RUN = { input: 'q', output: 'a' }
const never = () => new Promise(() => {})
const scored = (id = 'scored') => createScorer({ id, description: 'd' }).generateScore(() => 1)

/** Resolves with the promise's outcome, or 'hung' after `ms`. */
async function within<T>(p: Promise<T>, ms: number): Promise<T | 'hung'> {
  let t: NodeJS.Timeout | undefined
  const r = await Promise.race([p, new Promise<'hung'>((res) => (t = setTimeout(() => res('hung'), ms)))])
  clearTimeout(t)
  return r
}

describe('scorer runs are bounded (callbackTimeoutMs, deadlineMs, signal)', () => {
  it('a createScorer prepareRun that never settles: scorer.run() ends at callbackTimeoutMs, deadlineMs and on abort', async () => {
    const s = createScorer({ id: 'prep', description: 'd', prepareRun: never }).generateScore(() => 1)
    const t: Any = await within(failure(s.run(RUN, { callbackTimeoutMs: 50 })), 3000)
    expect(t).toBeInstanceOf(ScorerRunError)
    expect([t.failedStep, t.code, t.cause.name]).toEqual(['prepareRun', 'OXEVAL_CUSTOM_STEP', 'TimeoutError'])
    expect(t.message).toMatch(/step 'prepareRun' failed: prepareRun did not settle within 50 ms/)
    const d: Any = await within(failure(s.run(RUN, { deadlineMs: 50 })), 3000)
    expect([d.failedStep, d.code]).toEqual(['prepareRun', 'OXEVAL_DEADLINE'])
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 20)
    const a: Any = await within(failure(s.run(RUN, { signal: ac.signal })), 3000)
    expect(a).toBeInstanceOf(AbortError)
    expect(a.failedStep).toBe('prepareRun')
  })

  it("oxeval/mastra's createScorer: a prepareRun that never settles ends at callbackTimeoutMs as Mastra's ScorerRunError, and on abort", async () => {
    const { createRequire } = await import('node:module')
    const m = createRequire(import.meta.url)('../mastra/index.js')
    const s = m.createScorer({ id: 'm-prep', description: 'd', prepareRun: never }).generateScore(() => 1)
    const t: Any = await within(failure(s.run(RUN, { callbackTimeoutMs: 50 })), 3000)
    expect(t).toBeInstanceOf(m.ScorerRunError)
    expect([t.failedStep, t.code]).toEqual(['prepareRun', 'OXEVAL_CUSTOM_STEP'])
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 20)
    const a: Any = await within(failure(s.run(RUN, { signal: ac.signal })), 3000)
    expect(a).toBeInstanceOf(m.AbortError)
  })

  it('runEvals with a prepareRun that never settles: the item is a typed error, the other scorer scores', async () => {
    const s = createScorer({ id: 'prep', description: 'd', prepareRun: never }).generateScore(() => 1)
    const r: Any = await within(runEvals({ data: [{ input: 'q', output: 'a' }], scorers: [s, scored()], callbackTimeoutMs: 50 }), 5000)
    expect(r).not.toBe('hung')
    expect(r.items[0].errors.prep).toMatchObject({ code: 'OXEVAL_CUSTOM_STEP', failedStep: 'prepareRun' })
    expect(r.items[0].results.scored.score).toBe(1)
  })

  it("a { id, run } scorer and Mastra's own scorer that never settle: a TimeoutError item error at callbackTimeoutMs, nothing lost", async () => {
    let seen: AbortSignal | undefined
    const plain = { id: 'plain', run: (_run: unknown, o: Any) => ((seen = o.signal), never()) }
    const mastra = mastraCreateScorer({ id: 'mastra-never', description: 'd' }).generateScore(never as Any)
    const data = [1, 2, 3].map((i) => ({ id: `i${i}`, input: 'q', output: 'a' }))
    const r: Any = await within(runEvals({ data, scorers: [plain, mastra, scored()], callbackTimeoutMs: 60, concurrency: 2 }), 5000)
    expect(r).not.toBe('hung')
    expect(r.items).toHaveLength(3)
    for (const item of r.items) {
      for (const id of ['plain', 'mastra-never']) {
        expect(item.errors[id]).toMatchObject({ name: 'TimeoutError', code: 'OXEVAL_CALLBACK_TIMEOUT' })
        expect(item.errors[id].message).toContain(`scorer "${id}": run() did not settle within 60 ms`)
      }
      expect(item.results.scored.score).toBe(1)
    }
    // the scorer's own signal was aborted at the bound, so it can stop its work
    expect(seen?.aborted).toBe(true)
  })
})

describe('one item cannot end the run by its size', () => {
  it('a conversation whose turn output has 130 000 elements is scored (no RangeError from a spread)', async () => {
    const s = createScorer({ id: 'len', description: 'd' }).generateScore(({ run }: Any) => (Array.isArray(run.output) && run.output.length === 130_001 ? 1 : 0))
    const big = Array.from({ length: 130_000 }, () => 1)
    const r: Any = await runEvals({ data: [{ inputs: ['a', 'b'] }], target: (input: string) => (input === 'a' ? big : [2]), scorers: [s] })
    expect(r.items[0].errors).toEqual({})
    expect(r.items[0].results.len.score).toBe(1)
    // the same as a recorded conversation (a data row)
    const rec: Any = await runEvals({ data: [{ turns: [{ input: 'a', output: big }, { input: 'b', output: [2] }] }], scorers: [s] })
    expect(rec.items[0].results.len.score).toBe(1)
  })

  it('oxeval run with a 130 000-message data row: exit 0, --out with its summary, the HTML report written', async () => {
    const t = tempDir('oxeval-big-row-')
    try {
      const data = t.write('items.jsonl', jsonl([{ id: 'big', turns: [{ input: 'a', output: Array.from({ length: 130_000 }, () => 1) }] }, { id: 'small', input: 'q', output: 'a' }]))
      const mod = t.write('s.mjs', `import ox from ${JSON.stringify(join(process.cwd(), 'index.js'))}\nexport default ox.createScorer({ id: 'one', description: 'd' }).generateScore(() => 1)\n`)
      const r = await runCli(['run', '--data', data, '--scorers', mod, '--out', t.p('out.jsonl'), '--html', t.p('r.html'), '--no-progress'])
      expect(r.code, r.stderr).toBe(0)
      const o = readOut(t.p('out.jsonl'))
      expect(o.summary.outcome.status).toBe('passed')
      expect(o.items).toHaveLength(2)
      expect(readFileSync(t.p('r.html'), 'utf8')).toContain('<html')
    } finally {
      t.remove()
    }
  })

  it("the HTML report's histogram takes 200 000 scores", async () => {
    const { histogramSvg } = await import('../report/html.mjs')
    const scores = Array.from({ length: 200_000 }, (_, i) => (i % 11) / 10)
    expect(histogramSvg(scores)).toContain('<svg')
  })
})

describe('custom prompt steps', () => {
  const model = () => ({ id: uniqueModelId('bounds'), url: server.url })

  it('a prompt past the run bound (4 MB) is refused naming the step; no judge request is made', async () => {
    const n = server.requests.length
    const s = createScorer({ id: 'huge', description: 'd', judge: { model: model(), instructions: 'Judge.' } })
      .analyze({ description: 'a', createPrompt: () => 'x'.repeat(5 * 1024 * 1024) })
      .generateScore(() => 1)
    const e: Any = await failure(s.run(RUN))
    expect(e).toBeInstanceOf(ScorerRunError)
    expect([e.failedStep, e.code, e.cause.name]).toEqual(['analyze', 'OXEVAL_CUSTOM_STEP', 'RangeError'])
    expect(e.message).toMatch(/analyze's createPrompt gave a prompt of 5\.0 MB; the limit is 4 MB/)
    expect(server.requests.length).toBe(n)
  })

  it('a function step may return a function, a Symbol, a BigInt or an object whose toJSON() gives undefined: the value stays in JS', async () => {
    const fn = () => 'kept'
    const sym = Symbol('s')
    const odd = { toJSON: () => undefined, mark: 7 }
    for (const value of [fn, sym, 10n, odd]) {
      const s = createScorer({ id: 'odd', description: 'd' })
        .preprocess(() => value)
        .analyze(({ results }: Any) => ({ same: results.preprocessStepResult === value }))
        .generateScore(({ results }: Any) => (results.analyzeStepResult.same ? 1 : 0))
      const r: Any = await s.run(RUN)
      expect(r.preprocessStepResult).toBe(value)
      expect(r.score).toBe(1)
    }
  })

  it('a generateReason that gives a function fails the step naming the type', async () => {
    const s = createScorer({ id: 'why', description: 'd' })
      .generateScore(() => 1)
      .generateReason(() => () => 'no')
    const e: Any = await failure(s.run(RUN))
    expect([e.failedStep, e.code]).toEqual(['generateReason', 'OXEVAL_CUSTOM_STEP'])
    expect(e.message).toMatch(/generateReason must give a string; got function/)
  })
})
