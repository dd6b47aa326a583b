// Issue 18 §1 and §5: a run that scored nothing never passes, and every surface a user reads
// (runEvals' outcome, the CLI's exit status and summary line, the HTML badge, JUnit, the Vitest
// helpers) says the same thing, from the core's one decision. A dead judge stops the run early
// with one clear error and loses no item. Worst items follow the scorer's direction; intervals
// stay inside the score's range.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer } from 'node:net'
import { mkdirSync, readFileSync } from 'node:fs'
import { heuristicJudge, startJudgeServer, type JudgeServer } from '../testing/judge-server.mjs'
import { judgeArgs, jsonl, readOut, runCli, tempDir } from './helpers/cli'
import { failure, oxeval, type Any } from './helpers/setup'
import { EvalPassRateError, expectEvals, worstItems } from '../vitest/index.mjs'
import { WorstItems } from '../cli/summary.mjs'
import { renderJunit } from '../report/junit.mjs'

const { runEvals, createAnswerRelevancyScorer } = oxeval

let judge: JudgeServer
const tmp = tempDir('oxeval-outcome-')
const cli = (args: string[], env: Record<string, string | undefined> = {}) => runCli(args, { cwd: tmp.dir, env })
beforeAll(async () => {
  judge = await startJudgeServer({ handler: heuristicJudge })
})
afterAll(async () => {
  await judge?.close()
  tmp.remove()
})

/** A port on 127.0.0.1 with nothing listening (connection refused). */
async function closedPort(): Promise<number> {
  const srv = createServer()
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()))
  const port = (srv.address() as Any).port
  await new Promise<void>((r) => srv.close(() => r()))
  return port
}

const qa = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `q${i}`, input: `What is ${i} + ${i}?`, output: `${i + i}.` }))

/** The outcome as each surface shows it, for one CLI run with --out, --html and --junit. */
function surfaces(name: string) {
  const out = readOut(tmp.p(`${name}.out.jsonl`))
  const html = readFileSync(tmp.p(`${name}.html`), 'utf8')
  const xml = readFileSync(tmp.p(`${name}.xml`), 'utf8')
  const badge = /id="verdict"[^>]*>(PASS|FAIL)</.exec(html)?.[1]
  const totals = /<testsuites name="oxeval" tests="(\d+)" failures="(\d+)" errors="(\d+)"/.exec(xml)!
  return { out, badge, junitBad: Number(totals[2]) + Number(totals[3]), xml, html }
}
const outputs = (name: string) => ['--out', tmp.p(`${name}.out.jsonl`), '--html', tmp.p(`${name}.html`), '--junit', tmp.p(`${name}.xml`), '--no-progress']

describe('nothing scored never looks like a pass (CLI: exit status, summary word, HTML badge, JUnit agree)', () => {
  it('no API key: every item unscored → exit 1, outcome failed, FAIL badge, JUnit failure; the run stops early, no item lost', async () => {
    const data = tmp.write('nokey.jsonl', jsonl(qa(40)))
    const r = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', '--model', 'openai/gpt-4o-mini', ...outputs('nokey')], { OPENAI_API_KEY: undefined, OXEVAL_CACHE_DIR: undefined })
    expect(r.code, r.stdout + r.stderr).toBe(1)
    expect(r.stdout).toMatch(/outcome: failed/)
    expect(r.stdout).toContain('stopped early: the first 5 runs of "answer-relevancy-scorer" all failed with OXEVAL_MISSING_API_KEY')
    expect(r.stdout).not.toMatch(/verdict: passed|outcome: passed/)
    const s = surfaces('nokey')
    expect(s.badge).toBe('FAIL')
    expect(s.junitBad).toBeGreaterThan(0)
    expect(s.html).toContain('stopped early')
    // every item is accounted for: the first ones failed, the rest are recorded as not run
    expect(s.out.items).toHaveLength(40)
    const codes = s.out.items.map((it: Any) => it.targetError?.code ?? it.errors['answer-relevancy-scorer']?.code)
    expect(codes.filter((c: string) => c === 'OXEVAL_MISSING_API_KEY').length).toBeGreaterThanOrEqual(5)
    expect(codes.filter((c: string) => c === 'OXEVAL_RUN_STOPPED').length).toBeGreaterThan(20)
    expect(codes.every((c: string) => c === 'OXEVAL_MISSING_API_KEY' || c === 'OXEVAL_RUN_STOPPED')).toBe(true)
    expect(s.out.summary.outcome).toMatchObject({ status: 'failed', passed: false })
    expect(s.out.summary.coverage['answer-relevancy-scorer']).toEqual({ scored: 0, total: 40 })
  })

  it('an unreachable judge (connection refused): 200 items stop after the first runs with one clear error, every item recorded', async () => {
    const port = await closedPort()
    const data = tmp.write('dead.jsonl', jsonl(qa(200)))
    const r = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', '--model', 'openai/scripted-judge', '--model-url', `http://127.0.0.1:${port}/v1`, ...outputs('dead')])
    expect(r.code, r.stdout + r.stderr).toBe(1)
    expect(r.stdout).toMatch(/stopped early: the first 5 runs of "answer-relevancy-scorer" all failed with OXEVAL_JUDGE_NETWORK \(connection refused\), which will not change by retrying/)
    const s = surfaces('dead')
    expect(s.badge).toBe('FAIL')
    expect(s.out.items).toHaveLength(200)
    const network = s.out.items.filter((it: Any) => it.errors?.['answer-relevancy-scorer']?.code === 'OXEVAL_JUDGE_NETWORK')
    const stopped = s.out.items.filter((it: Any) => it.targetError?.code === 'OXEVAL_RUN_STOPPED')
    // only the items in flight at the stop ever tried the judge (concurrency 8)
    expect(network.length).toBeGreaterThanOrEqual(5)
    expect(network.length).toBeLessThanOrEqual(5 + 8)
    expect(network.length + stopped.length).toBe(200)
    expect(new Set(s.out.items.map((it: Any) => it.index)).size).toBe(200)
    expect(s.out.summary.stopped.message).toContain('connection refused')
  })

  it('no output column: exit 1 (was 0 with coverage 0/N)', async () => {
    const data = tmp.write('nooutput.jsonl', jsonl(qa(5).map(({ output: _o, ...rest }) => rest)))
    const r = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), ...outputs('nooutput')])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('"answer-relevancy-scorer" scored none of its 5 items')
    expect(r.stdout).toContain('5 of 5 items were not scored (allowed: 0')
    const s = surfaces('nooutput')
    expect(s.badge).toBe('FAIL')
    expect(s.junitBad).toBeGreaterThan(0)
  })

  it('no context for a context scorer: exit 1', async () => {
    const data = tmp.write('nocontext.jsonl', jsonl(qa(3)))
    const r = await cli(['run', '--data', data, '--scorer', 'response-groundedness', ...judgeArgs(judge), '--no-progress'])
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(/outcome: failed/)
    expect(r.stdout).toContain('scored none of its 3 items')
  })

  it('--max-errors allows unscored items (exit 0, the errors are skipped in JUnit, not failures); --min-coverage is a floor', async () => {
    judge.reset()
    const rows = [...qa(4), { id: 'x', input: 'Where is it?' }]
    const data = tmp.write('allowed.jsonl', jsonl(rows))
    const strict = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--no-progress'])
    expect(strict.code).toBe(1)
    const r = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--max-errors', '1', ...outputs('allowed')])
    expect(r.code, r.stdout).toBe(0)
    expect(r.stdout).toMatch(/outcome: passed/)
    const s = surfaces('allowed')
    expect(s.badge).toBe('PASS')
    expect(s.junitBad).toBe(0)
    expect(s.xml).toMatch(/<skipped message="not scored \(allowed by maxErrors\)/)
    const floor = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--max-errors', '1', '--min-coverage', '0.9', '--no-progress'])
    expect(floor.code).toBe(1)
    expect(floor.stdout).toContain('scored 4 of 5 items (80%), below the coverage floor of 90%')
    const bad = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--max-errors', '-1'])
    expect(bad.code).toBe(2)
  })

  it('items under a threshold the mean meets are not JUnit failures (was failures="N" on a passing run)', async () => {
    const data = tmp.write('spread.jsonl', jsonl(JSON.parse(readFileSync(new URL('../examples/dataset.json', import.meta.url), 'utf8'))))
    const base = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--no-progress'])
    const mean = Number(/answer-relevancy-scorer\s+([\d.]+)/.exec(base.stdout)?.[1])
    const r = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--threshold', `answer-relevancy=${(mean - 0.05).toFixed(3)}`, ...outputs('spread')])
    expect(r.code).toBe(0)
    const s = surfaces('spread')
    // some items score under the threshold, yet the run passes: JUnit says so too
    expect(s.out.items.some((it: Any) => it.results['answer-relevancy-scorer'].score < mean - 0.05)).toBe(true)
    expect(s.junitBad).toBe(0)
    expect(s.badge).toBe('PASS')
  })

  it('a scored verdict is a failure everywhere, and says what "scored" means', async () => {
    // the bundled dataset: the scripted judge scores its items between 0 and 1
    const data = tmp.write('scored.jsonl', jsonl(JSON.parse(readFileSync(new URL('../examples/dataset.json', import.meta.url), 'utf8'))))
    const r = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--threshold', 'answer-relevancy=0.99', ...outputs('scored')])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('verdict: scored (scored: every item was scored and the gates passed, but a scorer missed its threshold; this is not a pass)')
    const s = surfaces('scored')
    expect(s.badge).toBe('FAIL')
    expect(s.html).toContain('scored: a threshold was missed')
    expect(s.xml).toMatch(/<testcase name="outcome" classname="oxeval.run"><failure type="scored"/)
  })
})

describe('replay misses always fail the run', () => {
  it('1 miss in 10 with the threshold met exits 1 (even with --max-errors), and names the call', async () => {
    const cache = tmp.p('replay-cache')
    mkdirSync(cache, { recursive: true })
    const rows = qa(10)
    const recorded = tmp.write('replay-9.jsonl', jsonl(rows.slice(0, 9)))
    const rec = await cli(['run', '--data', recorded, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--cache', cache, '--cache-mode', 'record', '--no-progress'])
    expect(rec.code, rec.stdout + rec.stderr).toBe(0)
    const all = tmp.write('replay-10.jsonl', jsonl(rows))
    const r = await cli(['run', '--data', all, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--cache', cache, '--cache-mode', 'replay', '--threshold', 'answer-relevancy=0', '--max-errors', '5', '--no-progress'])
    expect(r.code, r.stdout).toBe(1)
    expect(r.stdout).toMatch(/1 judge call was not in the replay cache \(a replay run never calls the judge, and a miss always fails it\); first: item 9, answer-relevancy-scorer: OXEVAL_CACHE_MISS/)
    // the miss names its call and why the key differs
    expect(r.stdout).toMatch(/item q9|#9|q9/)
    const none = tmp.write('replay-other.jsonl', jsonl(qa(3).map((q) => ({ ...q, input: `${q.input} (changed)`, id: `${q.id}-changed` }))))
    const miss = await cli(['run', '--data', none, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--cache', cache, '--cache-mode', 'replay', '--no-progress'])
    expect(miss.code).toBe(1)
    expect(miss.stdout).toContain('judge calls were not in the replay cache')
  })
})

describe('runEvals and the Vitest helpers', () => {
  it('toPass() with 0 of 10 scored rejects (it passed before)', async () => {
    const broken = { id: 'broken', async run() { throw Object.assign(new Error('no key'), { code: 'OXEVAL_MISSING_API_KEY' }) } }
    const e = await failure(expectEvals({ data: qa(10), scorers: [broken], stopEarly: false }).toPass())
    expect(e).toBeInstanceOf(EvalPassRateError)
    expect(e.message).toContain('"broken" scored none of its 10 items')
    expect(e.result.outcome.passed).toBe(false)
  })

  it('runEvals against a closed port stops early and accounts for every item', async () => {
    const port = await closedPort()
    const ar = createAnswerRelevancyScorer({ model: { id: 'openai/x', url: `http://127.0.0.1:${port}/v1`, apiKey: 'k' } })
    const seen: number[] = []
    const r = await runEvals({ data: qa(100), scorers: [ar], onItemComplete: (it: Any) => void seen.push(it.index) })
    expect(r.stopped?.code).toBe('OXEVAL_RUN_STOPPED')
    expect(r.outcome.reasons[0].kind).toBe('stopped')
    expect(r.items).toHaveLength(100)
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i))
    expect(r.coverage[ar.id]).toEqual({ scored: 0, total: 100 })
    // stopEarly: false runs every item (the old behaviour), still failing
    const all = await runEvals({ data: qa(6), scorers: [ar], stopEarly: false })
    expect(all.stopped).toBeUndefined()
    expect(all.items!.every((it: Any) => it.errors[ar.id]?.code === 'OXEVAL_JUDGE_NETWORK')).toBe(true)
    expect(all.outcome.passed).toBe(false)
  }, 30000)

  it('a judge that dies mid-run (after item 200 of 2 000) stops the run: only the items in flight try the dead judge, every item recorded', async () => {
    // a judge of its own, closed (listener and connections) once it has answered 200 items' calls
    const dying = await startJudgeServer({ handler: heuristicJudge })
    const ar = createAnswerRelevancyScorer({ model: { id: 'openai/scripted-judge', url: `${dying.url}/v1`, apiKey: 'k' } })
    let done = 0
    let closing: Promise<void> | undefined
    const r = await runEvals({
      data: qa(2000),
      scorers: [ar],
      concurrency: 8,
      onItemComplete: () => {
        if (++done === 200) closing = dying.close()
      },
    })
    await closing
    expect(r.items).toHaveLength(2000)
    expect(new Set(r.items!.map((it: Any) => it.index)).size).toBe(2000)
    expect(r.stopped?.code).toBe('OXEVAL_RUN_STOPPED')
    expect(r.stopped?.message).toMatch(/5 runs of "answer-relevancy-scorer" in a row failed \(after \d+ that scored\) with OXEVAL_JUDGE_NETWORK \(connection refused\)/)
    const network = r.items!.filter((it: Any) => it.errors?.[ar.id]?.code === 'OXEVAL_JUDGE_NETWORK').length
    const stopped = r.items!.filter((it: Any) => it.targetError?.code === 'OXEVAL_RUN_STOPPED').length
    const scored = r.coverage[ar.id].scored
    expect(scored).toBeGreaterThanOrEqual(200)
    // before: every one of the 1 800 remaining items tried the dead judge three times
    expect(network).toBeGreaterThanOrEqual(5)
    expect(network).toBeLessThanOrEqual(5 + 2 * 8)
    expect(scored + network + stopped).toBe(2000)
    expect(r.outcome.passed).toBe(false)
  }, 120000)

  it('a run with no items fails; an empty shard does not', async () => {
    const s = { id: 's', async run() { return { score: 1 } } }
    expect((await runEvals({ data: [], scorers: [s] })).outcome.reasons.map((x: Any) => x.kind)).toEqual(['no-items'])
    expect((await runEvals({ data: [], scorers: [s], partial: true })).outcome.passed).toBe(true)
  })

  it('bad policy options are TypeErrors naming the option', async () => {
    const s = { id: 's', async run() { return { score: 1 } } }
    for (const [opts, want] of [
      [{ maxErrors: -1 }, 'maxErrors'],
      [{ maxErrors: NaN }, 'maxErrors'],
      [{ minCoverage: 1.5 }, 'minCoverage'],
      [{ gatePassRate: '1' }, 'gatePassRate'],
    ] as const) {
      const e = await failure(runEvals({ data: qa(1), scorers: [s], ...(opts as Any) }))
      expect(e).toBeInstanceOf(TypeError)
      expect(e.message).toContain(want)
    }
    expect((await runEvals({ data: qa(2), scorers: [{ id: 'e', async run() { throw new Error('x') } }], maxErrors: Infinity, stopEarly: false })).outcome.reasons.map((x: Any) => x.kind)).toEqual(['nothing-scored'])
  })
})

describe('direction: where lower is better, worst items are the highest (issue §5)', () => {
  const table: Record<string, number> = { a: 0, b: 0.9, c: 0.4, d: 0.1 }
  const hallucination = { id: 'hallucination-scorer', async run(run: Any) { return { score: table[run.input], reason: `r ${run.input}` } } }
  const data = Object.keys(table).map((input) => ({ input, output: 'x' }))

  it('runEvals knows Mastra ids and oxeval scorers know their direction', async () => {
    const r = await runEvals({ data, scorers: [{ scorer: hallucination, threshold: { max: 0.3 } }] })
    expect(r.scorerInfo['hallucination-scorer'].direction).toBe('lower')
    // b (0.9) and c (0.4) miss the maximum, worst first; a and d meet it and are never listed
    expect(worstItems(r, 'hallucination-scorer').map((w) => w.index)).toEqual([1, 2])
    expect(r.outcome.reasons[0].message).toContain('is above the maximum 0.3')
    const native = oxeval.createHallucinationScorer({ model: 'openai/x' })
    expect(native.direction).toBe('lower')
    expect(createAnswerRelevancyScorer({ model: 'openai/x' }).direction).toBe('higher')
    expect(createAnswerRelevancyScorer({ model: 'openai/x', scale: 10 }).scale).toBe(10)
  })

  it('the CLI summary keeps the k worst in the scorer direction, never padding with passing items', () => {
    const w = new WorstItems([{ id: 'h', direction: 'lower' }, { id: 'g', direction: 'higher', threshold: 0.5 }], 5)
    for (const [i, h, g] of [[0, 0, 1], [1, 0.9, 0.2], [2, 0.4, 0.6], [3, 0.1, 0.4]] as const) w.add({ index: i, results: { h: { score: h }, g: { score: g } } })
    expect(w.low.h.map((x: Any) => x.index)).toEqual([1, 2, 3]) // 0 is perfect (0 where lower is better)
    expect(w.low.g.map((x: Any) => x.index)).toEqual([1, 3]) // only the items under 0.5
  })

  it('the JUnit outcome testcase carries every reason', () => {
    const xml = renderJunit({
      header: { scorers: [{ id: 's' }] },
      summary: { scores: { s: null }, outcome: { status: 'failed', passed: false, meaning: 'failed: see the reasons', reasons: [{ kind: 'nothing-scored', scorer: 's', message: '"s" scored none of its 2 items' }] } },
      items: [
        { index: 0, results: {}, errors: { s: { name: 'E', message: 'boom', code: 'OXEVAL_JUDGE_HTTP' } } },
        { index: 1, results: {}, errors: { s: { name: 'E', message: 'boom', code: 'OXEVAL_JUDGE_HTTP' } } },
      ],
    })
    expect(xml).toMatch(/<testsuites name="oxeval" tests="3" failures="1" errors="2" skipped="0">/)
    expect(xml).toContain('&quot;s&quot; scored none of its 2 items')
  })
})

describe('intervals stay inside the score range (issue §5)', () => {
  it('the two intervals the issue saw leaving [0, 1]', async () => {
    for (const xs of [[0, 0, 0.4, 1, 0.8, 0, 0.1], [1, 1, 0.9, 1, 0.94, 1]]) {
      const s = { id: 's', async run(run: Any) { return { score: xs[Number(run.input)] } } }
      const r = await runEvals({ data: xs.map((_, i) => ({ input: String(i), output: 'x' })), scorers: [s] })
      const [lo, hi] = r.stats.s.ci95!
      expect(lo).toBeGreaterThanOrEqual(0)
      expect(hi).toBeLessThanOrEqual(1)
      expect(lo).toBeLessThanOrEqual(r.scores.s!)
      expect(hi).toBeGreaterThanOrEqual(r.scores.s!)
    }
  })
})

describe('secrets in a bad --model-url', () => {
  it('a URL that does not parse is named without its userinfo or query', async () => {
    const r = await cli(['run', '--data', tmp.write('url.jsonl', jsonl(qa(1))), '--scorer', 'answer-relevancy', '--model', 'openai/x', '--model-url', 'ht tp://user:hunter2@host/v1?api-key=SECRET-123'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--model-url is not a URL: "ht tp://host/v1…"')
    expect(r.stderr).not.toMatch(/hunter2|SECRET-123/)
  })
})
