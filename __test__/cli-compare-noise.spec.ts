// `--base-runs K` (oxeval compare, oxeval run --base): a store holding three runs on main of a
// "judge" whose scores wander by ±0.1 between runs (one item's verdict flips among them), and a
// head run on a branch whose every item is 0.05 lower. Against one base run that is a
// regression; against the three pooled it is within the judge's measured noise.
import { mkdirSync, readdirSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { jsonl, runCli, tempDir } from './helpers/cli'
import type { Any } from './helpers/setup'

const t = tempDir('oxeval-noise-')
afterAll(() => t.remove())

const ITEMS = Array.from({ length: 10 }, (_, i) => `q${i}`)
const data = t.write('d.jsonl', jsonl([...ITEMS, 'flip'].map((id) => ({ id, input: id, output: 'x' }))))
const mod = t.write('s.mjs', `import ox from ${JSON.stringify(`${process.cwd()}/index.js`)}\nconst s = JSON.parse(process.env.SCORES)\nexport default ox.createScorer({ id: 'judge', description: 'a noisy judge' }).generateScore(({ run }) => s[run.input] ?? s['*'])\n`)
const store = t.p('store.db')
const env = (branch: string, scores: Record<string, number>) => ({ GITHUB_REF_NAME: branch, GITHUB_SHA: 'f'.repeat(40), SCORES: JSON.stringify(scores), OXEVAL_STORE: undefined })

async function record(branch: string, scores: Record<string, number>, extra: string[] = []) {
  const r = await runCli(['run', '--data', data, '--scorers', mod, '--store', store, '--no-progress', ...extra], { cwd: t.dir, env: env(branch, scores) })
  expect(r.code, r.stderr).toBe(0)
  return r
}

// base runs, oldest first: every item 0.6, 0.8, 0.7 (sd 0.1); 'flip' 0.4, 0.6, 0.5 (sd 0.1:
// fail, pass, pass at the default verdict, half the scale)
const BASES: Record<string, number>[] = [
  { '*': 0.6, flip: 0.4 },
  { '*': 0.8, flip: 0.6 },
  { '*': 0.7, flip: 0.5 },
]
const HEAD = { '*': 0.65, flip: 0.45 }

async function compareJson(args: string[]) {
  const r = await runCli(['compare', ...args, '--store', store, '--format', 'json'], { cwd: t.dir, env: { OXEVAL_STORE: undefined } })
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}

describe('--base-runs: judge noise measured across the baseline\'s last K runs', () => {
  it('records three base runs on main (the last two tagged) and a head on a branch', async () => {
    for (const [k, s] of BASES.entries()) await record('main', s, k >= 1 ? ['--tag', 'nightly'] : [])
    await record('feature', HEAD)
  }, 60_000)

  it('one base run: a significant regression; three pooled: within the measured noise', async () => {
    const one: Any = await compareJson(['main', 'branch:feature'])
    const s1 = one.scorers[0]
    expect(s1.delta).toBeCloseTo(-0.05, 10)
    expect([s1.regressed, s1.withinNoise, s1.noise]).toEqual([true, false, null])
    expect(one.baseRuns).toMatchObject({ requested: 1, used: 1, note: null })

    const c: Any = await compareJson(['main', 'branch:feature', '--base-runs', '3'])
    expect(c.baseRuns).toMatchObject({ requested: 3, used: 3, note: null })
    expect(c.baseRuns.runs).toHaveLength(3)
    const s = c.scorers[0]
    // per item the mean of 0.6, 0.8, 0.7 = 0.7 (flip: 0.5); head 0.65 (0.45): Δ = −0.05
    expect(s.baseMean).toBeCloseTo((0.7 * 10 + 0.5) / 11, 10)
    expect(s.delta).toBeCloseTo(-0.05, 10)
    expect(s.noise.runs).toBe(3)
    expect(s.noise.items).toBe(11)
    expect(s.noise.meanSd).toBeCloseTo(0.1, 10)
    expect(s.noise.pooledSd).toBeCloseTo(0.1, 10)
    expect(s.noise.flips).toBe(1)
    // floor = z(0.975) · σ · √((1 + 1/3) / 11)
    const floor = 1.959963984540054 * 0.1 * Math.sqrt(4 / 3 / 11)
    expect(s.noise.floor).toBeCloseTo(floor, 6)
    expect(s.pValue).toBeLessThan(0.05)
    expect([s.regressed, s.improved, s.withinNoise]).toEqual([false, false, true])
    expect(s.detectable).toBeGreaterThanOrEqual(s.noise.floor)

    const text = await runCli(['compare', 'main', 'branch:feature', '--base-runs', '3', '--store', store], { cwd: t.dir })
    expect(text.stdout).toMatch(/judge +0\.682 +0\.632 +-0\.050 .*within judge noise \(\|Δ\| < noise floor 0\.068\)/)
    expect(text.stdout).toMatch(/judge noise across 3 base runs:\n {2}judge: per-item sd 0\.100 on average \(pooled σ 0\.100, 11 items\), 1 item flips verdict among the base runs; noise floor ±0\.068/)
    const md = await runCli(['compare', 'main', 'branch:feature', '--base-runs', '3', '--store', store, '--format', 'markdown'], { cwd: t.dir })
    expect(md.stdout).toMatch(/\| within noise \(< 0\.068\) \|/)
  })

  it('fewer runs than asked: pools what there is and says so; run:ID pools it and the runs before it; tag:T', async () => {
    const c: Any = await compareJson(['main', 'branch:feature', '--base-runs', '5'])
    expect(c.baseRuns).toMatchObject({ requested: 5, used: 3 })
    expect(c.baseRuns.note).toMatch(/only 3 finished runs on branch main with this dataset/)
    const text = await runCli(['compare', 'main', 'branch:feature', '--base-runs', '5', '--store', store], { cwd: t.dir })
    expect(text.stdout).toMatch(/judge noise across 3 base runs \(5 asked\):\n {2}--base-runs 5: only 3/)

    const [newest, middle, oldest] = c.baseRuns.runs
    const two: Any = await compareJson([`run:${middle}`, 'branch:feature', '--base-runs', '2'])
    expect(two.baseRuns.runs).toEqual([middle, oldest])
    expect(two.scorers[0].baseMean).toBeCloseTo((0.7 * 10 + 0.5) / 11, 10)
    const first: Any = await compareJson([`run:${oldest}`, 'branch:feature', '--base-runs', '2'])
    expect(first.baseRuns).toMatchObject({ used: 1, runs: [oldest] })
    expect(first.baseRuns.note).toMatch(/only 1 finished run on branch main/)
    // a stored head is never pooled into its own base
    const self: Any = await compareJson(['main', `run:${oldest}`, '--base-runs', '3'])
    expect(self.baseRuns).toMatchObject({ used: 2, runs: [newest, middle] })
    const tagged: Any = await compareJson(['tag:nightly', 'branch:feature', '--base-runs', '3'])
    expect(tagged.baseRuns).toMatchObject({ used: 2, runs: [newest, middle] })
    expect(tagged.baseRuns.note).toMatch(/only 2 finished runs with tag nightly/)
  })

  it('oxeval run --base main --base-runs 3 prints the noise; bad values and a file base exit 2', async () => {
    const r = await record('feature', HEAD, ['--base', 'main', '--base-runs', '3'])
    expect(r.stdout).toMatch(/within judge noise/)
    expect(r.stdout).toMatch(/judge noise across 3 base runs/)
    for (const [args, msg] of [
      [['--base', 'main', '--base-runs', '0'], /--base-runs must be a whole number from 1 to 50/],
      [['--base-runs', '2'], /--base-runs needs --base/],
    ] as const) {
      const bad = await runCli(['run', '--data', data, '--scorers', mod, '--store', store, ...args], { cwd: t.dir, env: env('main', HEAD) })
      expect(bad.code).toBe(2)
      expect(bad.stderr).toMatch(msg)
    }
    const out = t.p('x.jsonl')
    await record('feature', HEAD, ['--out', out])
    const file = await runCli(['compare', out, 'branch:feature', '--base-runs', '2', '--store', store], { cwd: t.dir })
    expect(file.code).toBe(2)
    expect(file.stderr).toMatch(/--base-runs 2 pools runs of the results store .* is a file/)
  }, 60_000)

  it('leaves no temporary export behind: the stored runs compare and --base read are removed at exit', async () => {
    const tmp = t.p('tmp')
    mkdirSync(tmp)
    const r = await runCli(['compare', 'main', 'branch:feature', '--base-runs', '3', '--store', store], { cwd: t.dir, env: { OXEVAL_STORE: undefined, TMPDIR: tmp } })
    expect(r.code, r.stderr).toBe(0)
    const run = await runCli(['run', '--data', data, '--scorers', mod, '--store', store, '--base', 'main', '--no-progress'], { cwd: t.dir, env: { ...env('feature', HEAD), TMPDIR: tmp } })
    expect(run.code, run.stderr).not.toBe(2)
    expect(readdirSync(tmp)).toEqual([])
  }, 60_000)
})
