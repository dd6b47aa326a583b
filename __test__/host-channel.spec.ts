// The host channel: every call Rust makes into JS (a judge model given as a JS value, a
// function option such as getContext) goes through ONE caller, and sees the run's
// AbortSignal: `scorer.run(run, { signal })` + `abort()` cancels an AI SDK model's request
// (its `abortSignal` fires at once, not at the call's timeout) and the run rejects with
// AbortError.
import { describe, expect, it, vi } from 'vitest'
import { createRequire } from 'node:module'
import { heuristicJudge } from '../testing/judge-server.mjs'
import { failure, oxeval, uniqueModelId, useJudgeServer, type Any } from './helpers/setup'

const require = createRequire(import.meta.url)
const { MockLanguageModelV3 } = require('ai/test')
const { createAnswerRelevancyScorer, createHallucinationScorer } = oxeval

const server = useJudgeServer({ handler: heuristicJudge })
const run = { input: 'What is the capital of France?', output: 'Paris is the capital. I like croissants.' }

/** An AI SDK model whose request waits for its abortSignal (and records when it saw it). */
function waitingModel() {
  const seen: { started?: number; aborted?: number; signal?: AbortSignal } = {}
  let started!: () => void
  const startedP = new Promise<void>((r) => (started = r))
  const model = new MockLanguageModelV3({
    doGenerate: (options: Any) =>
      new Promise((_, reject) => {
        const signal: AbortSignal = options.abortSignal
        seen.signal = signal
        seen.started = Date.now()
        started()
        signal.addEventListener('abort', () => {
          seen.aborted = Date.now()
          reject(signal.reason)
        }, { once: true })
      }),
  })
  return { model, seen, started: startedP }
}

describe('the run’s AbortSignal reaches JS judges and callbacks', () => {
  it('abort() cancels an AI SDK model’s request at once and the run rejects with AbortError', async () => {
    const { model, seen, started } = waitingModel()
    // a call timeout far beyond the test: only the run's abort can end the request
    const scorer = createAnswerRelevancyScorer({ model, modelSettings: { timeoutMs: 60_000, maxRetries: 0 } })
    const ac = new AbortController()
    const p = failure(scorer.run(run, { signal: ac.signal }))
    await started
    expect(seen.signal!.aborted).toBe(false)
    const t0 = Date.now()
    ac.abort()
    const e = await p
    expect({ name: e.name, code: e.code, message: e.message }).toMatchObject({ name: 'AbortError', code: 'OXEVAL_ABORTED' })
    expect(seen.signal!.aborted).toBe(true)
    expect(seen.aborted! - t0).toBeLessThan(1000)
  })

  it('without a run signal the request still has its timeout signal', async () => {
    const { model, seen, started } = waitingModel()
    const scorer = createAnswerRelevancyScorer({ model, modelSettings: { timeoutMs: 150, maxRetries: 0 } })
    const p = failure(scorer.run(run))
    await started
    // the core's timeout or the model's own (its signal fired) ends the call
    expect((await p).code).toMatch(/^OXEVAL_JUDGE_(TIMEOUT|MODEL)$/)
    // the core's timer and the signal's (both the call's 150 ms) race: the signal fires too
    await vi.waitFor(() => expect(seen.signal!.aborted).toBe(true), { timeout: 1000, interval: 10 })
  })

  it('a judge function’s `signal` fires on the run’s abort', async () => {
    let signal: AbortSignal | undefined
    let started!: () => void
    const startedP = new Promise<void>((r) => (started = r))
    const judge = ({ signal: s }: Any) =>
      new Promise<string>((_, reject) => {
        signal = s
        started()
        s.addEventListener('abort', () => reject(s.reason), { once: true })
      })
    const ac = new AbortController()
    const p = failure(createAnswerRelevancyScorer({ model: judge, modelSettings: { timeoutMs: 60_000, maxRetries: 0 } }).run(run, { signal: ac.signal }))
    await startedP
    ac.abort()
    const e = await p
    expect({ name: e.name, code: e.code, message: e.message }).toMatchObject({ name: 'AbortError', code: 'OXEVAL_ABORTED' })
    expect(signal!.aborted).toBe(true)
  })

  it('a function option (getContext) gets the run’s signal, not as data', async () => {
    let params: Any
    let started!: () => void
    const startedP = new Promise<void>((r) => (started = r))
    const getContext = (p: Any) =>
      new Promise<string[]>((_, reject) => {
        params = p
        started()
        p.signal.addEventListener('abort', () => reject(p.signal.reason), { once: true })
      })
    const scorer = createHallucinationScorer({ model: { id: uniqueModelId('host-channel'), url: server.url }, getContext } as Any)
    const ac = new AbortController()
    const p = failure(scorer.run({ input: 'q', output: 'The museum opened in 1998.' }, { signal: ac.signal }))
    await startedP
    expect(Object.keys(params)).not.toContain('signal')
    ac.abort()
    const e = await p
    expect({ name: e.name, code: e.code, message: e.message }).toMatchObject({ name: 'AbortError', code: 'OXEVAL_ABORTED' })
    expect(params.signal.aborted).toBe(true)
  })
})
