// oxeval/vitest: the matchers pass and fail when they should (in process), and a real Vitest
// run of a user's project (setup file + reporter) reports failures with scorer, gap and worst
// items, and prints the per-scorer table at the end.
import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdirSync, rmSync, symlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { evalMatchers, expectEvals, expectEval, EvalPassRateError, registerEvalMatchers, toEvalMeta, OxevalEvalsReporter, worstItems } from '../vitest/index.mjs'
import { failure, oxeval, type Any } from './helpers/setup'

registerEvalMatchers()
const { runEvals } = oxeval

const table: Record<string, number | string> = { a: 1, b: 0.9, c: 0.2, d: 'error' }
const quality = {
  id: 'quality',
  async run(run: Any) {
    const s = table[run.input]
    if (s === 'error') throw Object.assign(new Error('the judge refused'), { code: 'OXEVAL_JUDGE_REFUSAL', failedStep: 'analyze' })
    return { score: s as number, reason: `graded ${run.input}` }
  },
}
const perfect = { id: 'gate', async run() { return { score: 1 } } }
const half = { id: 'half', async run(run: Any) { return { score: run.input === 'a' ? 1 : 0 } } }
const data = Object.keys(table).map((input) => ({ input, output: 'x' }))

describe('matchers (in process)', () => {
  it('toHaveScoreAbove / toHaveScoreBelow on a runEvals result', async () => {
    const r = await runEvals({ data, scorers: [quality] })
    expect(r).toHaveScoreAbove('quality', 0.69)
    expect(r).toHaveScoreBelow('quality', 0.71)
    expect(r).not.toHaveScoreAbove('quality', 0.71)
    expect({ ...r, scores: { quality: 0.7 } }).not.toHaveScoreAbove('quality', 0.7) // strict
    const m = evalMatchers.toHaveScoreAbove(r, 'quality', 0.9)
    expect(m.pass).toBe(false)
    const msg = m.message()
    expect(msg).toContain('expected the mean of "quality" (0.7) to be above 0.9, off by 0.2')
    expect(msg).toContain('scored 3/4, 1 failed run')
    expect(msg).toMatch(/#3 error: error OXEVAL_JUDGE_REFUSAL in analyze: the judge refused\n\s+#2 0\.2: graded c/)
    expect(() => expect(r).toHaveScoreAbove('quality', 0.9)).toThrow(/off by 0\.2/)
    expect(evalMatchers.toHaveScoreAbove(r, 'nope', 0).message()).toContain('scorer "nope" not found in the result. Scorers: quality')
  })

  it('on a single scorer result', () => {
    const result = { score: 0.4, reason: 'two of five statements are relevant' }
    expect(result).toHaveScoreAbove(0.3)
    expect(result).toHaveScoreBelow(0.5)
    const m = evalMatchers.toHaveScoreAbove(result, 0.7)
    expect(m.pass).toBe(false)
    expect(m.message()).toBe('expected score 0.4 to be above 0.7 (off by 0.3)\n  reason: two of five statements are relevant')
    expect(evalMatchers.toHaveScoreAbove(42, 0.7).message()).toContain('expects a runEvals result or a scorer result')
  })

  it('as asymmetric matchers (expect.toHaveScoreAbove inside toEqual), typed by vitest/matchers.d.mts', () => {
    const result = { score: 0.4, reason: 'r' }
    expect({ a: result, b: result }).toEqual({ a: expect.toHaveScoreAbove(0.3), b: expect.toHaveScoreBelow(0.5) })
    expect({ a: result }).not.toEqual({ a: expect.toHaveScoreAbove(0.5) })
  })

  it('a scorer with no scored item cannot pass a score matcher', async () => {
    const broken = { id: 'broken', async run() { throw new Error('down') } }
    const r = await runEvals({ data: [{ input: 'a', output: 'x' }], scorers: [broken] })
    const m = evalMatchers.toHaveScoreBelow(r, 'broken', 1)
    expect(m.pass).toBe(false)
    expect(m.message()).toContain('scorer "broken" has no scored item (scored 0/1, 1 failed run)')
  })

  it('toHaveVerdict, toPassThresholds, toPassGates', async () => {
    // one item of `data` errors: allowed here, so the threshold alone decides
    const r = await runEvals({ data, scorers: [{ scorer: quality, threshold: 0.95 }], gates: [perfect], maxErrors: 1 })
    expect(r).toHaveVerdict('scored')
    // not allowed (the default): an unscored item fails the run
    const strict = await runEvals({ data, scorers: [{ scorer: quality, threshold: 0.95 }], gates: [perfect] })
    expect(strict).toHaveVerdict('failed')
    expect(evalMatchers.toHaveVerdict(strict, 'scored').message()).toContain('✗ 1 of 4 items were not scored (allowed: 0; maxErrors / --max-errors allows some); first: item 3, quality: OXEVAL_JUDGE_REFUSAL: the judge refused')
    expect(r).toPassGates()
    expect(r).not.toPassThresholds()
    const m = evalMatchers.toPassThresholds(r)
    expect(m.message()).toContain('✗ threshold quality: mean 0.7 (threshold: min 0.95, short by 0.25) (scored 3/4, 1 failed run)')
    const none = await runEvals({ data, scorers: [quality] })
    expect(evalMatchers.toPassGates(none)).toMatchObject({ pass: false })
    expect(evalMatchers.toPassGates(none).message()).toBe('no gates were configured on this eval run')
    expect(evalMatchers.toPassThresholds(none).pass).toBe(false)
    expect(evalMatchers.toHaveVerdict(none, 'passed').message()).toContain('no verdict (no gates or thresholds configured)')
    const g = await runEvals({ data: [{ input: 'a', output: 'x' }, { input: 'b', output: 'x' }], scorers: [quality], gates: [half] })
    expect(g).toHaveVerdict('failed')
    expect(evalMatchers.toPassGates(g).message()).toContain('✗ half: pass rate 50%')
  })

  it('expectEvals(...).toPass(minPassRate) resolves or rejects with EvalPassRateError', async () => {
    const r = await expectEvals({ data, scorers: [{ scorer: quality, threshold: 0.5 }], maxErrors: 1 }).toPass()
    expect(r.scores.quality).toBeCloseTo(0.7, 12)
    // the errored item is a failure unless allowed
    const unscored = await failure(expectEvals({ data, scorers: [{ scorer: quality, threshold: 0.5 }] }).toPass())
    expect(unscored).toBeInstanceOf(EvalPassRateError)
    expect(unscored.message).toContain('✗ 1 of 4 items were not scored')
    expect(unscored.message).toContain('#3 error: error OXEVAL_JUDGE_REFUSAL in analyze: the judge refused')
    const e = await failure(expectEvals({ data, scorers: [{ scorer: quality, threshold: 0.8 }], maxErrors: 1 }).toPass())
    expect(e).toBeInstanceOf(EvalPassRateError)
    expect(e.message).toContain('Eval did not pass (required pass rate: 100%).')
    expect(e.message).toContain('short by 0.1')
    expect(e.result.scores.quality).toBeCloseTo(0.7, 12)
    // a gate at 50 % passes toPass(0.5), not toPass()
    const gated = { data: [{ input: 'a', output: 'x' }, { input: 'b', output: 'x' }], gates: [half] }
    await expectEvals(gated).toPass(0.5)
    expect((await failure(expectEvals(gated).toPass())).message).toContain('gate half: pass rate 50% < required 100%')
    await expectEval({ data: { input: 'a', output: 'x' }, scorers: [{ scorer: quality, threshold: 1 }] }).toPass()
    expect(await failure(expectEvals(gated).toPass(2))).toBeInstanceOf(TypeError)
  })

  it('worstItems and the reporter render', async () => {
    const r = await runEvals({ data, scorers: [{ scorer: quality, threshold: 0.5 }], maxErrors: 1 })
    // the error, then the item under the threshold; items that meet it are never listed
    expect(worstItems(r, 'quality').map((w) => w.index)).toEqual([3, 2])
    const meta = toEvalMeta(r)
    expect(JSON.parse(JSON.stringify(meta))).toEqual(meta) // serializable across workers
    const text = new OxevalEvalsReporter({ color: false }).render([{ fullName: 'suite > test', meta }])
    expect(text).toContain('✓ suite > test (4 items)')
    expect(text).toMatch(/quality \(threshold: min 0\.5\)\s+0\.7 \[[-\d.]+, [\d.]+\]\s+3\/4\s+✓/)
    expect(text).toContain('#3 error: error OXEVAL_JUDGE_REFUSAL in analyze: the judge refused')
    expect(text).toContain('Eval runs: 1 (1 passed)')
  })
})

describe('a real Vitest run of a project using oxeval/vitest', () => {
  it('fails exactly the failing evals, with useful messages, and prints the report', () => {
    const dir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'vitest-project')
    const nm = join(dir, 'node_modules')
    rmSync(nm, { recursive: true, force: true })
    mkdirSync(nm)
    symlinkSync(join(dir, '..', '..', '..'), join(nm, 'oxeval'), 'dir')
    try {
      const r = spawnSync(process.execPath, [join(dir, '..', '..', '..', 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', dir], {
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', VITEST: undefined, VITEST_POOL_ID: undefined, VITEST_WORKER_ID: undefined } as Any,
        timeout: 60000,
      })
      const out = r.stdout + r.stderr
      expect(r.status, out).toBe(1)
      expect(out).toMatch(/Tests\s+3 failed \| 4 passed \(7\)/)
      expect(out).toContain('FAIL  evals.check.mjs > oxeval evals > FAILS when an item is not scored')
      expect(out).toContain('✗ 1 of 4 items were not scored (allowed: 0; maxErrors / --max-errors allows some)')
      expect(out).toContain('FAIL  evals.check.mjs > oxeval evals > FAILS a strict threshold')
      expect(out).toContain('EvalPassRateError: Eval did not pass (required pass rate: 100%).')
      expect(out).toContain('✗ threshold quality: mean 0.7 (threshold: min 0.95, short by 0.25)')
      expect(out).toContain('expected the mean of "quality" (0.7) to be above 0.9, off by 0.2')
      // the reporter's table
      expect(out).toContain(' oxeval evals ')
      expect(out).toContain('• oxeval evals > FAILS a strict threshold (expected to fail) (4 items)')
      expect(out).toContain('✗ oxeval evals > FAILS when an item is not scored (expected to fail) (4 items)')
      expect(out).toContain("✓ oxeval evals > single item 'What is 2+2?' (1 item)")
      // runEvals + matcher tests are summarized too (the run's outcome: one item is not scored)
      expect(out).toContain('✗ oxeval evals > matchers on a result (4 items)')
      expect(out).toContain('✗ oxeval evals > FAILS a matcher (expected to fail) (4 items)')
      expect(out).toContain('Eval runs: 7 (3 passed, 3 failed, 1 scored)')
    } finally {
      rmSync(nm, { recursive: true, force: true })
    }
  })
})
