// Shards of one run recording into one stored run (docs/store.md "Shards"): `oxeval run
// --shard 1/2` and `--shard 2/2` with one --run-id, at once, into one SQLite file → one run
// with every item, finished only once both have; a shard already finished is refused; in CI
// the run id is derived from the pipeline's variables. The same against PostgreSQL when
// $OXEVAL_TEST_POSTGRES_URL is set (skipped locally without it; failed under CI).
import { randomBytes } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { jsonl, runCli, tempDir } from './helpers/cli'
import { type Any } from './helpers/setup'

const URL = process.env.OXEVAL_TEST_POSTGRES_URL || ''
const t = tempDir('oxeval-shards-')
afterAll(() => t.remove())
t.write('data.jsonl', jsonl(['Paris', 'Berlin', 'Paris', 'Rome', 'Paris'].map((output, k) => ({ id: `q${k}`, input: `question ${k}`, output }))))
const PARIS = 'includes("Paris")'
// no CI variable of the machine running the tests may name the run
const env = { OXEVAL_STORE: undefined, OXEVAL_RUN_ID: undefined, GITHUB_RUN_ID: undefined, CI_PIPELINE_ID: undefined, BUILDKITE_BUILD_ID: undefined, CIRCLE_WORKFLOW_ID: undefined }
const uniq = () => `t${randomBytes(5).toString('hex')}`

function shard(store: string, k: number, args: string[] = [], more: Record<string, string | undefined> = {}) {
  return runCli(['run', '--data', 'data.jsonl', '--scorer', PARIS, '--store', store, '--shard', `${k}/2`, '--no-progress', ...args], { cwd: t.dir, env: { ...env, ...more } })
}

async function runOf(store: string, id: string) {
  const r = await runCli(['history', '--store', store, '--format', 'json'], { cwd: t.dir, env })
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout).runs.filter((x: Any) => x.id === id)
}

function cases(store: () => string) {
  it('two shard processes at once with one --run-id: one run with every item, finished', async () => {
    const id = uniq()
    const rs = await Promise.all([shard(store(), 1, ['--run-id', id]), shard(store(), 2, ['--run-id', id])])
    for (const r of rs) expect(r.code, r.stderr).toBe(0)
    const runs = await runOf(store(), id)
    expect(runs).toHaveLength(1)
    expect(runs[0]).toMatchObject({ status: 'finished', outcome: 'passed', shards: { total: 2, finished: 2 } })
    expect(runs[0].scorers[0]).toMatchObject({ id: 'check-includes', n: 5, mean: 0.6 })
    expect(runs[0].tags).toEqual([])
  })

  it('finished only after every shard; a finished shard is refused', async () => {
    const id = uniq()
    expect((await shard(store(), 1, ['--run-id', id])).code).toBe(0)
    let runs = await runOf(store(), id)
    expect(runs[0]).toMatchObject({ status: 'running', outcome: null, shards: { total: 2, finished: 1 } })
    expect(runs[0].scorers[0].n).toBe(3)
    const show = await runCli(['runs', 'show', id, '--store', store()], { cwd: t.dir, env })
    expect(show.stdout).toContain('1/2 shards finished')
    const again = await shard(store(), 1, [], { OXEVAL_RUN_ID: id })
    expect(again.code).toBe(2)
    expect(again.stderr).toContain(`run ${id}: shard 1/2 has already finished`)
    expect((await shard(store(), 2, ['--run-id', id])).code).toBe(0)
    runs = await runOf(store(), id)
    expect(runs[0]).toMatchObject({ status: 'finished', shards: { total: 2, finished: 2 } })
    expect(runs[0].scorers[0]).toMatchObject({ n: 5, mean: 0.6 })
  })

  it('in CI the shards derive one run id from the pipeline; without one each shard is its own run', async () => {
    const ci = { GITHUB_RUN_ID: uniq(), GITHUB_RUN_ATTEMPT: '1' }
    const rs = await Promise.all([shard(store(), 1, [], ci), shard(store(), 2, [], ci)])
    for (const r of rs) expect(r.code, r.stderr).toBe(0)
    const all = await runCli(['history', '--store', store(), '--format', 'json'], { cwd: t.dir, env })
    const whole = JSON.parse(all.stdout).runs.filter((x: Any) => x.shards && x.shards.finished === 2 && /^[0-9a-f]{12}$/.test(x.id))
    expect(whole.length).toBeGreaterThanOrEqual(1)
    const tag = `alone-${uniq()}`
    await Promise.all([shard(store(), 1, ['--tag', tag]), shard(store(), 2, ['--tag', tag])])
    const h = await runCli(['history', '--store', store(), '--tag', tag, '--format', 'json'], { cwd: t.dir, env })
    expect(JSON.parse(h.stdout).runs.map((r: Any) => r.scorers[0].n).sort()).toEqual([2, 3])
  })
}

describe('shards into one SQLite file', () => cases(() => t.p('store.db')))

it.runIf(!URL && process.env.CI)('CI runs the PostgreSQL shard tests (OXEVAL_TEST_POSTGRES_URL is set)', () => {
  throw new Error('CI is set but OXEVAL_TEST_POSTGRES_URL is not: .ci/run starts scripts/pg-test-server.sh')
})

describe.skipIf(!URL)('shards into one PostgreSQL database', () => cases(() => URL))
