// Issue 40 §3: a budget (`maxCost`, `--max-cost`) stops starting new items once the judge spend
// as billed would pass it: the items not started are OXEVAL_BUDGET_EXHAUSTED, the run fails with
// the reason `budget`, nothing scored is lost, and a rerun with the cache pays only for the
// rest. A judged scorer without a price and a budget is an error before any judge request.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { heuristicJudge, startJudgeServer, type JudgeServer, type RecordedRequest } from '../testing/judge-server.mjs'
import { judgeArgs, jsonl, readOut, runCli, tempDir } from './helpers/cli'
import { oxeval, type Any } from './helpers/setup'

const { runEvals, createAnswerRelevancyScorer } = oxeval

// every judge call is billed 1000 input and 100 output tokens: at $1 / $2 per 1M, $0.0012
const PRICES = { in: 1, out: 2 }
const CALL = (1000 * 1 + 100 * 2) / 1e6
let judge: JudgeServer
const tmp = tempDir('oxeval-budget-')
beforeAll(async () => {
  judge = await startJudgeServer({ handler: (req: RecordedRequest) => ({ ...heuristicJudge(req), usage: { prompt_tokens: 1000, completion_tokens: 100 } }) })
})
beforeEach(() => judge.reset())
afterAll(async () => {
  await judge?.close()
  tmp.remove()
})

const qa = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `q${i}`, input: `What is ${i} + ${i}?`, output: `${i + i}.` }))
const model = () => ({ id: 'openai/scripted-judge', url: judge.url, apiKey: 'k' })

describe('maxCost (runEvals)', () => {
  it('stops starting items once the spend would pass the budget; the rest are OXEVAL_BUDGET_EXHAUSTED, none lost', async () => {
    // what one item costs: its calls at the prices (no budget)
    const one = await runEvals({ data: qa(1), scorers: [createAnswerRelevancyScorer({ model: model() })], prices: PRICES })
    const perItem = one.usage['answer-relevancy-scorer'].calls * CALL
    expect(perItem).toBeGreaterThan(0)
    judge.reset()
    const maxCost = perItem * 5.5
    const r: Any = await runEvals({ data: qa(20), scorers: [createAnswerRelevancyScorer({ model: model() })], prices: PRICES, maxCost, concurrency: 4 })
    expect(r.items).toHaveLength(20)
    const scored = r.items.filter((it: Any) => !it.targetError)
    const refused = r.items.filter((it: Any) => it.targetError)
    expect(scored.length).toBeGreaterThanOrEqual(1)
    expect(scored.length).toBeLessThanOrEqual(5)
    expect(refused.length).toBe(20 - scored.length)
    expect(refused.every((it: Any) => it.targetError.code === 'OXEVAL_BUDGET_EXHAUSTED')).toBe(true)
    // every scored item kept its score; the spend is what was billed and within the budget
    expect(scored.every((it: Any) => typeof it.results['answer-relevancy-scorer'].score === 'number')).toBe(true)
    expect(r.budget.spent).toBeCloseTo(scored.length * perItem, 10)
    expect(r.budget.spent).toBeLessThanOrEqual(maxCost)
    expect(r.budget.notStarted).toBe(refused.length)
    expect(judge.requests.length).toBe(one.usage['answer-relevancy-scorer'].calls * scored.length)
    expect(r.outcome.status).toBe('failed')
    const why = r.outcome.reasons.find((x: Any) => x.kind === 'budget')
    expect(why.message).toMatch(/stopped by the budget: the judge spend is \$[\d.]+ of maxCost/)
    expect(why.message).toContain(`(${refused.length} items not started)`)
    expect(r.outcome.policy.maxCost).toBe(maxCost)
  })

  it('a budget the run stays under changes nothing (passed, every item scored)', async () => {
    const r: Any = await runEvals({ data: qa(3), scorers: [createAnswerRelevancyScorer({ model: model() })], prices: PRICES, maxCost: 100 })
    expect(r.outcome.status).toBe('passed')
    expect(r.budget.notStarted).toBe(0)
    expect(r.budget.exhausted).toBeUndefined()
  })

  it('a judge model without a price and a budget: a TypeError before any judge request', async () => {
    const run = runEvals({ data: qa(3), scorers: [createAnswerRelevancyScorer({ model: model() })], maxCost: 1 })
    await expect(run).rejects.toThrow(TypeError)
    await expect(run).rejects.toThrow(/"answer-relevancy-scorer" \(openai\/scripted-judge\) has no price/)
    expect(judge.requests).toHaveLength(0)
    // priced per model over the table: runs
    const ok: Any = await runEvals({ data: qa(1), scorers: [createAnswerRelevancyScorer({ model: model() })], maxCost: 1, prices: { 'openai/scripted-judge': { input: 1, output: 2 } } })
    expect(ok.outcome.status).toBe('passed')
    for (const bad of [0, -1, Number.NaN, '1']) {
      await expect(runEvals({ data: qa(1), scorers: [createAnswerRelevancyScorer({ model: model() })], prices: PRICES, maxCost: bad as Any })).rejects.toThrow(/maxCost must be a number of US dollars > 0/)
    }
  })
})

describe('--max-cost (CLI)', () => {
  it('stops the run (exit 1, OXEVAL_BUDGET_EXHAUSTED items kept in --out); a rerun with the cache sends only the remaining requests', async () => {
    const data = tmp.write('qa.jsonl', jsonl(qa(12)))
    const base = ['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--price-in', '1', '--price-out', '2', '--cache', tmp.p('cache'), '--no-progress', '--concurrency', '3']
    const first = await runCli([...base, '--max-cost', '0.01', '--out', tmp.p('first.jsonl')], { cwd: tmp.dir })
    expect(first.code, first.stdout + first.stderr).toBe(1)
    expect(first.stdout).toMatch(/✗ stopped by the budget/)
    expect(first.stdout).toMatch(/budget: \$0\.\d{4} spent of \$0\.01 \(--max-cost\), \d+ item\(s\) not started/)
    const out = readOut(tmp.p('first.jsonl'))
    expect(out.items).toHaveLength(12)
    const scored = out.items.filter((it: Any) => !it.targetError)
    const refused = out.items.filter((it: Any) => it.targetError)
    expect(scored.length).toBeGreaterThan(0)
    expect(refused.length).toBeGreaterThan(0)
    expect(refused.every((it: Any) => it.targetError.code === 'OXEVAL_BUDGET_EXHAUSTED')).toBe(true)
    expect(out.summary.budget.spent).toBeLessThanOrEqual(0.01)
    const firstRequests = judge.requests.length
    const perItem = firstRequests / scored.length
    expect(Number.isInteger(perItem)).toBe(true)
    judge.reset()
    // the rerun: every item; the cached ones pay nothing and send nothing
    const again = await runCli([...base, '--out', tmp.p('again.jsonl')], { cwd: tmp.dir })
    expect(again.code, again.stdout + again.stderr).toBe(0)
    expect(judge.requests.length).toBe(perItem * refused.length)
    expect(readOut(tmp.p('again.jsonl')).items.filter((it: Any) => it.targetError)).toHaveLength(0)
  })

  it('no price for the judge: a clear error before the run, no judge request', async () => {
    const data = tmp.write('qa3.jsonl', jsonl(qa(3)))
    const r = await runCli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--max-cost', '1', '--no-progress'], { cwd: tmp.dir })
    expect(r.code).toBe(2)
    expect(r.stderr + r.stdout).toMatch(/openai\/scripted-judge\) has no price/)
    expect(judge.requests).toHaveLength(0)
    const bad = await runCli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--max-cost', 'lots'], { cwd: tmp.dir })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--max-cost must be a number of US dollars > 0/)
  })
})
