// The results store on PostgreSQL (crates/oxeval-core/src/store/postgres): `oxeval run --store
// postgres://…` twice, history and `runs show` over it, two shard processes recording at once,
// and a server that is down (exit 2, reports and --out still written, the URL named without
// its password). The server is $OXEVAL_TEST_POSTGRES_URL (scripts/pg-test-server.sh; .ci/run
// starts one): without it these tests skip, unless CI is set — then they fail.
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import { existsSync, readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { jsonl, runCli, tempDir } from './helpers/cli'
import { oxeval, type Any } from './helpers/setup'

const URL = process.env.OXEVAL_TEST_POSTGRES_URL || ''
const t = tempDir('oxeval-pg-')
afterAll(() => t.remove())
t.write('data.jsonl', jsonl(['Paris', 'Berlin', 'Paris', 'Rome'].map((output, k) => ({ id: `q${k}`, input: `question ${k}`, output }))))
const PARIS = 'includes("Paris")'
// every run of this file carries its own tag: the database is shared with other test runs
const TAG = `pg-${randomBytes(4).toString('hex')}`
// no CI variable may join the shard runs below into one run (docs/store.md "Shards")
const env = { OXEVAL_STORE: undefined, OXEVAL_RUN_ID: undefined, GITHUB_RUN_ID: undefined, CI_PIPELINE_ID: undefined, BUILDKITE_BUILD_ID: undefined, CIRCLE_WORKFLOW_ID: undefined }
const password = URL ? decodeURIComponent(new globalThis.URL(URL).password) : ''

async function json(args: string[]) {
  const r = await runCli([...args, '--store', URL, '--format', 'json'], { cwd: t.dir, env })
  expect(r.code, r.stderr).toBe(0)
  expect(r.stdout + r.stderr).not.toContain(password)
  return JSON.parse(r.stdout)
}

it.runIf(!URL && process.env.CI)('CI runs the PostgreSQL tests (OXEVAL_TEST_POSTGRES_URL is set)', () => {
  throw new Error('CI is set but OXEVAL_TEST_POSTGRES_URL is not: .ci/run starts scripts/pg-test-server.sh')
})

describe.skipIf(!URL)('oxeval run --store postgres://', () => {
  it('two runs, then history --format json and runs show', async () => {
    for (const name of ['first', 'second']) {
      const r = await runCli(['run', '--data', 'data.jsonl', '--scorer', PARIS, '--store', URL, '--tag', TAG, '--name', name], { cwd: t.dir, env })
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout + r.stderr).not.toContain(password)
    }
    const h = await json(['history', '--tag', TAG])
    expect(h.runs.map((r: Any) => [r.name, r.status, r.outcome, r.scorers[0].mean, r.scorers[0].n, r.tags])).toEqual([
      ['second', 'finished', 'passed', 0.5, 4, [TAG]],
      ['first', 'finished', 'passed', 0.5, 4, [TAG]],
    ])
    const show = await json(['runs', 'show', h.runs[0].id])
    expect(show).toMatchObject({ id: h.runs[0].id, status: 'finished', items: 4, datasetFingerprint: h.runs[0].datasetFingerprint })
    const item = await json(['history', '--item', 'q1', '--last', '1'])
    expect(item.runs[0].scores).toEqual({ 'check-includes': 0 })
  })

  it('two shard processes at once: each run complete and separate', async () => {
    const shard = (k: number) => runCli(['run', '--data', 'data.jsonl', '--scorer', PARIS, '--store', URL, '--tag', `${TAG}-shards`, '--shard', `${k}/2`], { cwd: t.dir, env })
    const rs = await Promise.all([shard(1), shard(2)])
    for (const r of rs) expect(r.code, r.stderr).toBe(0)
    const h = await json(['history', '--tag', `${TAG}-shards`])
    expect(h.runs.map((r: Any) => [r.status, r.scorers[0].n]).sort()).toEqual([['finished', 2], ['finished', 2]])
    expect(h.runs.map((r: Any) => r.tags.find((x: string) => x.startsWith('shard:'))).sort()).toEqual(['shard:1/2', 'shard:2/2'])
  })
})

async function closedPort() {
  return new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as Any
      s.close(() => resolve(port))
    })
  })
}

describe('a PostgreSQL server that is down', () => {
  it('runEvals: result.store names the URL without its password', async () => {
    const port = await closedPort()
    const r: Any = await oxeval.runEvals({ data: [{ input: 'q', output: 'Paris' }], scorers: [oxeval.includes('Paris')], store: `postgresql://team:s3cret-pg-pw@127.0.0.1:${port}/evals?sslmode=disable` })
    expect(r.scores['check-includes']).toBe(1)
    expect(r.store.error.code).toBe('OXEVAL_STORE_OPEN')
    expect(r.store.store).toBe(`postgresql://127.0.0.1:${port}/evals`)
    expect(JSON.stringify(r.store)).not.toContain('s3cret-pg-pw')
  }, 20000)

  it('never costs the run: exit 2, reports and --out written, the URL named without its password', async () => {
    const port = await closedPort()
    const url = `postgres://team:hunter2-pg-secret@127.0.0.1:${port}/evals`
    const out = t.p('down.jsonl')
    const html = t.p('down.html')
    const started = Date.now()
    const r = await runCli(['run', '--data', 'data.jsonl', '--scorer', PARIS, '--store', url, '--out', out, '--html', html], { cwd: t.dir, env })
    expect(Date.now() - started).toBeLessThan(25000)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/results store could not be written \(OXEVAL_STORE_OPEN\)/)
    expect(r.stderr).toContain(`postgres://127.0.0.1:${port}/evals`)
    expect(r.stdout + r.stderr).not.toContain('hunter2-pg-secret')
    const lines = readFileSync(out, 'utf8').trim().split('\n')
    expect(JSON.parse(lines[lines.length - 1]).type).toBe('summary')
    expect(readFileSync(out, 'utf8')).not.toContain('hunter2-pg-secret')
    expect(existsSync(html)).toBe(true)
  }, 40000)
})
