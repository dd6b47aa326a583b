// The results store (crates/oxeval-core/src/store, lib/store.js, cli/store.mjs, cli/history.mjs):
// runEvals recording with `store`, `oxeval run` recording by default, history on two branches,
// baselines by name, a run killed with SIGKILL shown as interrupted, a store that cannot be
// written (exit 2, reports still written), a damaged store, import / export / prune.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { jsonl, runCli, tempDir } from './helpers/cli'
import { oxeval, type Any } from './helpers/setup'

const t = tempDir('oxeval-store-')
afterAll(() => t.remove())

const items = (outputs: string[]) => jsonl(outputs.map((output, k) => ({ id: `q${k}`, input: `question ${k}`, output })))
const PARIS = 'includes("Paris")'
const ID = 'check-includes' // a check given as a call is keyed as the library keys it

async function json(args: string[], cwd: string) {
  const r = await runCli([...args, '--format', 'json'], { cwd, env: { OXEVAL_STORE: undefined } })
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}

function git(cwd: string, ...args: string[]) {
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'ignore' })
}

describe('runEvals with a store', () => {
  it('records the run as its items finish: history, one item, export in the --out format', async () => {
    const store = t.p('api/store.db')
    const data = [
      { id: 'a', input: 'q', output: 'Paris' },
      { id: 'b', input: 'q', output: 'Berlin' },
      { id: 'c', input: 'q', output: 'Paris, France' },
    ]
    const r: Any = await oxeval.runEvals({ data, scorers: [oxeval.includes('Paris')], store: { path: store, tags: ['api'], name: 'first' } })
    expect(r.store.error).toBeUndefined()
    expect(r.store.runId).toMatch(/^[0-9a-f]{12}$/)
    const { storeQuery } = require('../lib/store.js')
    const h = storeQuery(store, { kind: 'history' })
    expect(h.runs).toHaveLength(1)
    const run = h.runs[0]
    expect(run).toMatchObject({ id: r.store.runId, status: 'finished', outcome: r.outcome.status, tags: ['api'], name: 'first' })
    expect(run.scorers).toEqual([{ id: 'check-includes', mean: r.scores['check-includes'], ci95: r.stats['check-includes'].ci95, n: 3 }])
    expect(storeQuery(store, { kind: 'item', item: 'b' }).runs[0].scores).toEqual({ 'check-includes': 0 })
    const out = t.p('api/export.jsonl')
    storeQuery(store, { kind: 'export', run: r.store.runId, out })
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(lines.map((l) => l.type)).toEqual(['run', 'item', 'item', 'item', 'summary'])
    expect(lines.slice(1, 4).map((l) => [l.id, l.results['check-includes'].score])).toEqual([['a', 1], ['b', 0], ['c', 1]])
    expect(lines[4].outcome.status).toBe(r.outcome.status)
  })

  it('a store that cannot be opened never costs the run: result.store names it and the cause', async () => {
    const blocker = t.write('not-a-dir', 'a file')
    const r: Any = await oxeval.runEvals({ data: [{ input: 'q', output: 'Paris' }], scorers: [oxeval.includes('Paris')], store: join(blocker, 'store.db') })
    expect(r.scores['check-includes']).toBe(1)
    expect(r.store.error.code).toBe('OXEVAL_STORE_OPEN')
    expect(r.store.error.message).toContain(join(blocker, 'store.db'))
  })

  it('a wrong store option is a TypeError', async () => {
    await expect(oxeval.runEvals({ data: [], scorers: [oxeval.includes('x')], store: 42 })).rejects.toThrow(/store must be a file path/)
  })
})

describe('oxeval run records by default', () => {
  const dir = t.p('repo')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'data.jsonl'), items(['Paris', 'Berlin', 'Paris', 'Rome']))

  it('two runs on two branches: history newest first with branch, commit, tags and a trend', async () => {
    git(dir, 'init', '-q')
    git(dir, 'add', 'data.jsonl')
    git(dir, 'commit', '-qm', 'data')
    const first = await runCli(['run', '--data', 'data.jsonl', '--scorer', PARIS, '--tag', 'nightly'], { cwd: dir, env: { OXEVAL_STORE: undefined } })
    expect(first.code, first.stderr).toBe(0) // every item scored, no threshold: the run passes
    expect(existsSync(join(dir, '.oxeval/store.db'))).toBe(true)
    git(dir, 'checkout', '-qb', 'feature')
    writeFileSync(join(dir, 'data.jsonl'), items(['Paris', 'Paris', 'Paris', 'Rome']))
    // the dataset changed since main's run: main has no baseline for it (said before any work)
    const noBase = await runCli(['run', '--data', 'data.jsonl', '--scorer', PARIS, '--base', 'main'], { cwd: dir, env: { OXEVAL_STORE: undefined } })
    expect(noBase.code).toBe(2)
    expect(noBase.stderr).toMatch(/--base main: store .*store\.db: no finished run for baseline main with this run's dataset/)
    const second = await runCli(['run', '--data', 'data.jsonl', '--scorer', PARIS, '--name', 'better'], { cwd: dir, env: { OXEVAL_STORE: undefined } })
    expect(second.code, second.stderr).toBe(0)
    const h = await json(['history'], dir)
    expect(h.runs.map((r: Any) => [r.branch, r.status, r.scorers[0].mean, r.scorers[0].n])).toEqual([
      ['feature', 'finished', 0.75, 4],
      ['main', 'finished', 0.5, 4],
    ])
    expect(h.runs[1].tags).toEqual(['nightly'])
    expect(h.runs[0].name).toBe('better')
    expect(h.runs[0].commit).toMatch(/^[0-9a-f]{40}$/)
    expect(h.runs[0].dirty).toBe(true)
    const text = await runCli(['history'], { cwd: dir, env: { OXEVAL_STORE: undefined } })
    expect(text.stdout).toMatch(/check-includes\s+[▁▂▃▄▅▆▇█]{2}\s+latest 0\.750/)
    expect((await json(['history', '--branch', 'main'], dir)).runs).toHaveLength(1)
    expect((await json(['history', '--tag', 'nightly'], dir)).runs[0].branch).toBe('main')
    const item = await json(['history', '--item', 'q1'], dir)
    expect(item.runs.map((r: Any) => r.scores[ID])).toEqual([1, 0])
  })

  it('--base main against a run of the same dataset prints the comparison', async () => {
    git(dir, 'checkout', '-q', 'main')
    git(dir, 'checkout', '-q', '--', '.')
    writeFileSync(join(dir, 'data.jsonl'), items(['Paris', 'Berlin', 'Paris', 'Rome']))
    const onMain = await runCli(['run', '--data', 'data.jsonl', '--scorer', PARIS], { cwd: dir, env: { OXEVAL_STORE: undefined } })
    expect(onMain.code).toBe(0)
    const again = await runCli(['run', '--data', 'data.jsonl', '--scorer', PARIS, '--base', 'main'], { cwd: dir, env: { OXEVAL_STORE: undefined } })
    expect(again.stdout).toMatch(/check-includes/)
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toMatch(/oxeval compare: 4 paired items \(by id\)/)
    const flaky = await json(['history', '--flaky'], dir)
    expect(flaky.runs.length).toBeGreaterThanOrEqual(2)
  })

  it('--no-store records nothing; a store that cannot be written: exit 2, --out still written, the store named', async () => {
    const before = (await json(['history'], dir)).runs.length
    const none = await runCli(['run', '--data', 'data.jsonl', '--scorer', PARIS, '--no-store'], { cwd: dir })
    expect(none.code).toBe(0)
    expect((await json(['history'], dir)).runs).toHaveLength(before)
    const blocker = t.write('blocker', 'a file, not a folder')
    const bad = join(blocker, 'store.db')
    const r = await runCli(['run', '--data', 'data.jsonl', '--scorer', PARIS, '--store', bad, '--out', t.p('kept.jsonl')], { cwd: dir })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(bad)
    expect(r.stderr).toMatch(/results store could not be written \(OXEVAL_STORE_OPEN\)/)
    const lines = readFileSync(t.p('kept.jsonl'), 'utf8').trim().split('\n')
    expect(JSON.parse(lines[lines.length - 1]).type).toBe('summary')
  })

  it('a run killed with SIGKILL is interrupted, with the items it had', async () => {
    const cwd = t.p('killed')
    mkdirSync(cwd, { recursive: true })
    // three fast items, then one whose target never answers (concurrency 1)
    writeFileSync(
      join(cwd, 'oxeval.config.mjs'),
      `export default { data: ${JSON.stringify([0, 1, 2, 3].map((k) => ({ id: `k${k}`, input: k === 3 ? 'slow' : 'fast' })))}, scorers: [${JSON.stringify(PARIS)}], concurrency: 1,
        target: async (input) => { if (input === 'slow') await new Promise((r) => setTimeout(r, 120000)); return 'Paris' } }\n`,
    )
    let child: Any
    const done = runCli(['run'], { cwd, env: { OXEVAL_STORE: undefined }, onSpawn: (c) => (child = c), timeoutMs: 60000 })
    let h: Any
    for (let k = 0; k < 200; k++) {
      await new Promise((r) => setTimeout(r, 100))
      h = await json(['history'], cwd).catch(() => null)
      if (h && h.runs[0] && h.runs[0].scorers[0] && h.runs[0].scorers[0].n === 3) break
    }
    expect(h.runs[0]).toMatchObject({ status: 'running' })
    child.kill('SIGKILL')
    const r = await done
    expect(r.signal).toBe('SIGKILL')
    const after = await json(['history'], cwd)
    expect(after.runs[0]).toMatchObject({ status: 'interrupted', outcome: null })
    expect(after.runs[0].scorers[0]).toMatchObject({ id: ID, mean: 1, n: 3 })
  }, 60000)
})

describe('the store commands', () => {
  it('import is idempotent; runs show / export; prune --keep', async () => {
    const cwd = t.p('cmds')
    mkdirSync(cwd, { recursive: true })
    writeFileSync(join(cwd, 'data.jsonl'), items(['Paris', 'Rome']))
    const made = await runCli(['run', '--data', 'data.jsonl', '--scorer', PARIS, '--out', 'a.jsonl', '--no-store'], { cwd })
    expect(made.code, made.stderr).toBe(0)
    const first = await json(['store', 'import', 'a.jsonl'], cwd)
    expect(first.imported[0]).toMatchObject({ file: 'a.jsonl', items: 2, already: false })
    const again = await json(['store', 'import', 'a.jsonl'], cwd)
    expect(again.imported[0]).toMatchObject({ runId: first.imported[0].runId, already: true })
    const show = await json(['runs', 'show', first.imported[0].runId.slice(0, 6)], cwd)
    expect(show).toMatchObject({ status: 'finished', items: 2, scorers: [{ id: ID, mean: 0.5, n: 2 }] })
    const ex = await runCli(['runs', 'export', first.imported[0].runId, '--out', 'b.jsonl'], { cwd })
    expect(ex.code, ex.stderr).toBe(0)
    const a = readFileSync(join(cwd, 'a.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    const b = readFileSync(join(cwd, 'b.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(b.slice(1).map((l) => l.results?.[ID]?.score ?? l.type)).toEqual(a.slice(1).map((l) => l.results?.[ID]?.score ?? l.type))
    const cmp = await runCli(['compare', 'a.jsonl', `run:${first.imported[0].runId}`], { cwd })
    expect(cmp.code, cmp.stderr).toBe(0)
    await json(['store', 'import', 'b.jsonl'], cwd)
    expect((await json(['history'], cwd)).runs).toHaveLength(2)
    expect((await json(['store', 'prune', '--keep', '1'], cwd)).removed).toBe(1)
    expect((await json(['history'], cwd)).runs).toHaveLength(1)
    const bad = await runCli(['store', 'prune'], { cwd })
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/--keep N or --older-than/)])
  })

  it('import takes an --out file with a lone surrogate (as JSON.stringify writes it): U+FFFD, and says so', async () => {
    const cwd = t.p('surrogate')
    mkdirSync(cwd, { recursive: true })
    writeFileSync(join(cwd, 'data.jsonl'), '{"id":"q0","input":"q","output":"Paris, cut \\ud83d"}\n')
    const made = await runCli(['run', '--data', 'data.jsonl', '--scorer', PARIS, '--out', 's.jsonl', '--no-store'], { cwd })
    expect(made.code, made.stderr).toBe(0)
    expect(readFileSync(join(cwd, 's.jsonl'), 'utf8')).toContain('cut \\ud83d')
    const r = await json(['store', 'import', 's.jsonl'], cwd)
    expect(r.imported[0]).toMatchObject({ items: 1, already: false })
    expect(r.imported[0].replaced).toBeGreaterThanOrEqual(1)
    const text = await runCli(['store', 'import', 's.jsonl', '--store', 'other.db'], { cwd })
    expect(text.stdout).toMatch(/lone surrogate escapes? \(\\ud800…\) imported as U\+FFFD/)
    await runCli(['runs', 'export', r.imported[0].runId, '--out', 'back.jsonl'], { cwd })
    const back = readFileSync(join(cwd, 'back.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(back[1].output).toBe('Paris, cut \ufffd')
    expect(back[1].results[ID].score).toBe(1)
  })

  it('reading a store that does not exist yet: nothing recorded, and no file made', async () => {
    const cwd = t.p('empty')
    mkdirSync(cwd, { recursive: true })
    expect((await json(['history'], cwd)).runs).toEqual([])
    const show = await runCli(['runs', 'show', 'abc'], { cwd, env: { OXEVAL_STORE: undefined } })
    expect([show.code, show.stderr]).toEqual([2, expect.stringMatching(/store .*store\.db does not exist \(no run was recorded there yet\)/)])
    expect(existsSync(join(cwd, '.oxeval'))).toBe(false)
  })

  it('several processes record into one store at once: every run complete and separate', async () => {
    const cwd = t.p('many')
    mkdirSync(cwd, { recursive: true })
    writeFileSync(join(cwd, 'data.jsonl'), items(Array.from({ length: 40 }, (_, k) => (k % 2 ? 'Paris' : 'Rome'))))
    const runs = await Promise.all([1, 2, 3, 4].map((k) => runCli(['run', '--data', 'data.jsonl', '--scorer', PARIS, '--name', `p${k}`, '--no-progress'], { cwd, env: { OXEVAL_STORE: undefined } })))
    for (const r of runs) expect(r.code, r.stderr).toBe(0)
    const h = await json(['history'], cwd)
    expect(h.runs.map((r: Any) => r.name).sort()).toEqual(['p1', 'p2', 'p3', 'p4'])
    for (const r of h.runs) expect([r.status, r.scorers[0].n, r.scorers[0].mean]).toEqual(['finished', 40, 0.5])
  })

  it('oxeval merge records the whole run of its shards', async () => {
    const cwd = t.p('shards')
    mkdirSync(cwd, { recursive: true })
    writeFileSync(join(cwd, 'data.jsonl'), items(['Paris', 'Rome', 'Paris', 'Paris', 'Rome']))
    for (const k of [1, 2]) {
      const r = await runCli(['run', '--data', 'data.jsonl', '--scorer', PARIS, '--shard', `${k}/2`, '--out', `s${k}.jsonl`, '--no-store', '--no-progress'], { cwd })
      expect(r.code, r.stderr).toBe(0)
    }
    const m = await runCli(['merge', 's1.jsonl', 's2.jsonl', '--tag', 'merged'], { cwd, env: { OXEVAL_STORE: undefined } })
    expect(m.code, m.stderr).toBe(0)
    const h = await json(['history'], cwd)
    expect(h.runs).toHaveLength(1)
    expect(h.runs[0]).toMatchObject({ status: 'finished', tags: ['merged'], scorers: [{ id: ID, mean: 0.6, n: 5 }] })
  })

  it('a damaged store file is a clear error (exit 2), not a crash', async () => {
    const cwd = t.p('damaged')
    mkdirSync(join(cwd, '.oxeval'), { recursive: true })
    writeFileSync(join(cwd, '.oxeval/store.db'), 'x'.repeat(4096))
    const r = await runCli(['history'], { cwd, env: { OXEVAL_STORE: undefined } })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/store\.db: the file is not an oxeval store or is damaged/)
  })

  it('oxeval init adds .oxeval/ to .gitignore once', async () => {
    const cwd = t.p('init')
    mkdirSync(cwd, { recursive: true })
    writeFileSync(join(cwd, '.gitignore'), 'node_modules')
    const r = await runCli(['init', '--yes'], { cwd })
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(cwd, '.gitignore'), 'utf8')).toBe("node_modules\n# oxeval's results store (oxeval history)\n.oxeval/\n")
    const { ignoreStore } = await import('../cli/init.mjs')
    expect(ignoreStore(cwd)).toBeNull()
  })
})
