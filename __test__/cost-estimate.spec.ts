// Issue 40 §1, §4: `oxeval run --estimate` / `estimateCost` know the bill before it is paid,
// without one judge request: per scorer the calls, the input tokens of the real prompts (the
// scorer's own pipeline against the estimating judge), an output range, the cost. Measured
// against the billed usage of the real run on the demo dataset (examples/dataset.json, every
// LLM scorer as `npm run demo` runs them): the scripted judge bills what it RECEIVED over HTTP,
// counted with OpenAI's tokenizer and chat overhead (the addon's countTokens: the test's count
// of the wire body, not the estimate's), so the figures compare the prompts the estimate built
// with the prompts the real run sent, and the calls it predicted with the calls made.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { heuristicJudge, startJudgeServer, type JudgeServer, type RecordedRequest } from '../testing/judge-server.mjs'
import { judgeArgs, jsonl, readOut, root, runCli, tempDir } from './helpers/cli'
import { oxeval, type Any } from './helpers/setup'

const require = createRequire(import.meta.url)
const native = require('../load-binding.js')
const SCORERS: Any[] = require('../generated/scorers.js')
const { estimateCost, createAnswerRelevancyScorer } = oxeval as Any

const MODEL = 'openai/scripted-judge'
const tokens = (text: string) => native.countTokens(MODEL, text).tokens as number
/** What OpenAI bills for the chat messages of a request body: per message 3 + role (1) + content, plus 3. */
const billedInput = (req: RecordedRequest) =>
  (req.body?.messages ?? []).reduce((n: number, m: Any) => n + 4 + tokens(typeof m.content === 'string' ? m.content : JSON.stringify(m.content)), 0) + 3

let judge: JudgeServer
const tmp = tempDir('oxeval-estimate-')
beforeAll(async () => {
  judge = await startJudgeServer({
    handler: (req: RecordedRequest) => {
      const reply: Any = heuristicJudge(req)
      const content = reply.json !== undefined ? JSON.stringify(reply.json) : String(reply.content ?? '')
      return { ...reply, usage: { prompt_tokens: billedInput(req), completion_tokens: tokens(content) } }
    },
  })
})
beforeEach(() => judge.reset())
afterAll(async () => {
  await judge?.close()
  tmp.remove()
})

// the demo's scorers and options (examples/demo.mjs)
const demoArgs = [
  '--data', `${root}/examples/dataset.json`,
  // the classifier scorer's `state` is a function, not a CLI option: the demo leaves it out too
  ...SCORERS.filter((s) => s.kind !== 'code' && s.id !== 'classifier-scorer').flatMap((s) => ['--scorer', s.id]),
  '--option', 'multi-turn-judge-scorer.criterion=The assistant answers the question it was asked.',
  '--option', 'llm-tool-call-accuracy-scorer.availableTools=[{"id":"search","description":"Search the web for facts"}]',
  '--option', 'rubric-scorer.criteria=- Answers the question\n- Is one or two sentences',
  '--price-in', '0.15', '--price-out', '0.6', '--no-progress', '--no-store',
]

describe('oxeval run --estimate', () => {
  it('prints calls, tokens and cost per scorer on the demo dataset, and sends no judge request', async () => {
    const r = await runCli(['run', ...demoArgs, ...judgeArgs(judge), '--estimate'], { cwd: tmp.dir, timeoutMs: 120000 })
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(judge.requests).toHaveLength(0)
    expect(r.stdout).toContain('no judge request was sent')
    expect(r.stdout).toMatch(/answer-relevancy-scorer\s+openai\/scripted-judge\s+o200k_base\s+\d+/)
    expect(r.stdout).toMatch(/^total\s+/m)
    expect(r.stdout).toContain('note: min: every judge reply the least its schema allows')
  })

  it('on the demo config (examples/oxeval.config.mjs): its items have no output, so the target would make them: skipped and said, no request', async () => {
    const r = await runCli(['run', '--config', `${root}/examples/oxeval.config.mjs`, '--estimate', '--no-progress', '--no-store'], { cwd: tmp.dir, env: { OXEVAL_DEMO_JUDGE_URL: judge.url }, timeoutMs: 120000 })
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(judge.requests).toHaveLength(0)
    expect(r.stdout).toContain('0 item(s) estimated, 4 skipped')
    expect(r.stdout).toContain('skipped item 0 (q1): no output: the estimate does not run the target')
  })

  it('estimate vs the real run on the demo dataset: calls exact, billed input tokens inside the estimate range (± 5 %)', async () => {
    const est = await runCli(['run', ...demoArgs, ...judgeArgs(judge), '--estimate'], { cwd: tmp.dir, timeoutMs: 120000 })
    expect(judge.requests).toHaveLength(0)
    const real = await runCli(['run', ...demoArgs, ...judgeArgs(judge), '--out', tmp.p('real.jsonl'), '--max-errors', '1000'], { cwd: tmp.dir, timeoutMs: 300000 })
    expect(real.code === 0 || real.code === 1, real.stderr).toBe(true)
    const usage = readOut(tmp.p('real.jsonl')).summary.usage
    // the estimate's own numbers, from the library (the same run as the CLI's text)
    const rows = Object.fromEntries(
      est.stdout.split('\n').filter((l) => /^[a-z-]+-scorer\s/.test(l)).map((l) => [l.split(/\s+/)[0], l.split(/\s+/)]),
    )
    const report: string[] = []
    let sumReal = 0
    let sumMin = 0
    let sumMax = 0
    for (const [id, u] of Object.entries<Any>(usage)) {
      if (!u.calls) continue
      const row = rows[id]
      expect(row, id).toBeDefined()
      const [cMin, cMax] = row[3].split('..').map((x: string) => Number(x.replace(/,/g, '')))
      const [iMin, iMax] = row[5].split('..').map((x: string) => Number(x.replace(/,/g, '')))
      const hi = iMax ?? iMin
      sumReal += u.inputTokens
      sumMin += iMin
      sumMax += hi
      const off = (((hi - u.inputTokens) / u.inputTokens) * 100).toFixed(1)
      report.push(`${id}: calls ${u.calls} (estimate ${row[3]}), input ${u.inputTokens} (estimate ${row[5]}; typical side ${off} % off)`)
      // the calls: the typical side exactly (the minimal side is the least, e.g. no statement extracted)
      expect(u.calls, id).toBe(cMax ?? cMin)
      expect(cMin, id).toBeLessThanOrEqual(u.calls)
      // the billed input lies in the estimate's range, give or take 5 %
      expect(u.inputTokens, id).toBeGreaterThanOrEqual(iMin * 0.95)
      expect(u.inputTokens, id).toBeLessThanOrEqual(hi * 1.05)
    }
    console.log(`estimate vs billed (demo dataset):\n${report.join('\n')}\ntotal input: billed ${sumReal}, estimate ${sumMin}..${sumMax} (typical side ${(((sumMax - sumReal) / sumReal) * 100).toFixed(1)} % off)`)
  }, 400000)
})

describe('estimateCost', () => {
  it('counts the cache\'s hits as free and skips items without an output (targets are not run)', async () => {
    const cache = { dir: tmp.p('est-cache') }
    const scorer = () => createAnswerRelevancyScorer({ model: { id: MODEL, url: judge.url, apiKey: 'k' }, cache })
    const data = [{ id: 'a', input: 'What is 2 + 2?', output: '4.' }, { id: 'b', input: 'What is 3 + 3?' }]
    const before = await estimateCost({ data, scorers: [scorer()], target: async () => 'x', prices: { [MODEL]: { input: 1, output: 2 } } })
    expect(judge.requests).toHaveLength(0)
    expect(before.items).toBe(1)
    expect(before.skipped).toEqual([{ index: 1, id: 'b', reason: 'no output: the estimate does not run the target' }])
    const s = before.scorers[0]
    expect(s.calls.min).toBeGreaterThan(0)
    expect(s.cachedCalls).toBe(0)
    expect(s.cost.direct.min).toBeCloseTo((s.inputTokens.min * 1 + s.outputTokens.min * 2) / 1e6, 12)
    expect(s.cost.batch.min).toBeCloseTo(s.cost.direct.min / 2, 12)
    // the real run fills the cache; the estimate then has nothing left to pay
    await oxeval.runEvals({ data: [data[0]], scorers: [scorer()] })
    const sent = judge.requests.length
    expect(sent).toBe(s.calls.max)
    const after = await estimateCost({ data, scorers: [scorer()], prices: { [MODEL]: { input: 1, output: 2 } } })
    expect(judge.requests.length).toBe(sent)
    expect(after.scorers[0].calls).toEqual({ min: 0, max: 0 })
    expect(after.scorers[0].cachedCalls).toBe(sent)
    // an unknown model says "no price" rather than guessing
    const unpriced = await estimateCost({ data, scorers: [createAnswerRelevancyScorer({ model: { id: MODEL, url: judge.url, apiKey: 'k' } })] })
    expect(unpriced.scorers[0].cost).toBeNull()
    expect(unpriced.scorers[0].noPrice).toMatch(/no price for openai\/scripted-judge/)
    expect(judge.requests.length).toBe(sent)
  })
})
