// Issue 34: a catastrophic pattern in `matches()` (`/^(a+)+$/` on 30 characters of output took
// 30 s on Node's thread, doubling with each character; abort, timers and Ctrl-C waited for it).
// Pattern tests now run off the JS thread under a budget (OXEVAL_PATTERN_BUDGET_MS, default
// 1 s): a spent budget fails that item with OXEVAL_PATTERN_BUDGET at `preprocess`, and Ctrl-C is
// honoured within about a second. Each case runs the real CLI in a child process (the workers
// left running past their budget end with it).
import { afterAll, describe, expect, it } from 'vitest'
import { jsonl, readOut, runCli, tempDir } from './helpers/cli'
import { oxeval, type Any } from './helpers/setup'

const tmp = tempDir('oxeval-pattern-')
afterAll(() => tmp.remove())
const evil = `${'a'.repeat(34)}!`
const items = (n: number, output = evil) => Array.from({ length: n }, (_, i) => ({ id: `p${i}`, input: 'say a', output }))

describe('a catastrophic matches() pattern', () => {
  // (a harmless output after the first two spent budgets fails too: the pattern workers left
  // running are bounded, and a test that finds none free fails at once with the same code)
  it('fails the items it cannot decide with OXEVAL_PATTERN_BUDGET, keeps the others, and the run ends', async () => {
    const data = tmp.write('evil.jsonl', jsonl([{ id: 'fine', input: 'say a', output: 'aaaa' }, ...items(4)]))
    const out = tmp.p('evil.out.jsonl')
    const t0 = Date.now()
    const r = await runCli(['run', '--data', data, '--gate', 'matches(/^(a+)+$/)', '--out', out, '--no-progress', '--max-errors', '10'], { cwd: tmp.dir, env: { OXEVAL_PATTERN_BUDGET_MS: '300' }, timeoutMs: 60000 })
    expect(Date.now() - t0).toBeLessThan(30000)
    const o = readOut(out)
    expect(o.items).toHaveLength(5)
    const codes = o.items.map((it: Any) => Object.values(it.errors ?? {})[0] as Any).map((e: Any) => e?.code ?? null)
    expect(codes.filter((c: string) => c === 'OXEVAL_PATTERN_BUDGET')).toHaveLength(4)
    const fine = o.items.find((it: Any) => it.id === 'fine')
    expect(Object.values(fine.results)[0]).toMatchObject({ score: 1 })
    expect(r.code, r.stdout + r.stderr).toBe(1)
  }, 70000)

  it('Ctrl-C is honoured within about a second while a pattern test runs', async () => {
    const data = tmp.write('sigint.jsonl', jsonl(items(50)))
    let sentAt = 0
    const r = await runCli(['run', '--data', data, '--gate', 'matches(/^(a+)+$/)', '--no-progress'], {
      cwd: tmp.dir,
      timeoutMs: 60000,
      onSpawn: (child) => {
        child.stdout!.once('data', () => undefined)
        setTimeout(() => {
          sentAt = Date.now()
          child.kill('SIGINT')
        }, 1500)
      },
    })
    const took = Date.now() - sentAt
    expect(r.code, r.stdout + r.stderr).toBe(130)
    expect(took).toBeLessThan(5000)
  }, 70000)

  it('scorer.run() of the check rejects with a ScorerRunError naming the step; a plain pattern is unaffected', async () => {
    const { checks } = await import('../checks/index.mjs')
    const bad = checks.matches(/^(a+)+$/)
    const err: Any = await bad.run({ input: 'x', output: `${'a'.repeat(34)}!` }).catch((e: Any) => e)
    // the default budget is 1 s; 34 characters take hours
    expect(err?.code, String(err)).toBe('OXEVAL_PATTERN_BUDGET')
    expect(err.failedStep).toBe('preprocess')
    expect(err.message).toMatch(/budget/)
    const ok = await checks.matches(/\d+°F/).run({ input: 'x', output: 'It is 72°F' })
    expect(ok.score).toBe(1)
    expect(oxeval).toBeTruthy()
  }, 30000)
})
