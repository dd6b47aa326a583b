// `npm run bench -- --suite store` (or `node bench/store.mjs [--items N] [--runs R] [--scorers S]`):
// the results store's costs, as ratios in one run.
//   1. recording: runEvals over N items × 2 judged scorers (answer relevancy, faithfulness)
//      against the instant bench judge, keepItems: false, without and with OXEVAL_STORE; the
//      CPU ratio (process.cpuUsage: every thread), the RSS plateau, and the store's bytes per
//      item × scorer beyond the reasons
//   2. reads: a store of R runs × S scorers (default 1 000 × 20, 5 items each), `history` of
//      every run and one item's history, in the process (the core's query) and as `oxeval
//      history --format json` (a node process: its start-up included)
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)
const flag = (name, d) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] : d
}
const items = Number(flag('items', 100000))
const runs = Number(flag('runs', 1000))
const scorers = Number(flag('scorers', 20))
const dir = mkdtempSync(join(tmpdir(), 'oxeval-bench-store-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))

const judge = spawn(process.execPath, [`${root}bench/judge-proc.mjs`], { stdio: ['ignore', 'pipe', 'inherit'] })
process.on('exit', () => judge.kill())
const url = (await createInterface({ input: judge.stdout })[Symbol.asyncIterator]().next()).value

function worker(store) {
  const env = { ...process.env, OXEVAL_STORE: store || '' }
  if (!store) delete env.OXEVAL_STORE
  const r = spawnSync(process.execPath, ['bench/run-evals-worker.mjs', 'oxeval', url, String(items), '8', 'false'], { cwd: root, env, encoding: 'utf8', maxBuffer: 64 << 20 })
  const line = r.stdout.trim().split('\n').pop()
  try {
    return JSON.parse(line)
  } catch {
    throw new Error(`runEvals worker failed: ${r.stderr.slice(-2000)}`)
  }
}
const plateau = (r) => {
  const tail = r.rssSamplesMb.slice(Math.floor(r.rssSamplesMb.length / 2)).sort((a, b) => a - b)
  return tail.length ? tail[Math.floor(tail.length / 2)] : r.peakRssMb
}

if (items > 0) {
  const store = join(dir, 'record.db')
  const off = worker(null)
  const on = worker(store)
  const { storeQuery } = require('../lib/store.js')
  const h = storeQuery(store, { kind: 'history' })
  const bytes = statSync(store).size + (statSync(`${store}-wal`, { throwIfNoEntry: false })?.size ?? 0)
  console.log(`recording: runEvals ${items} items × 2 scorers, instant judge, keepItems: false`)
  console.log(`  without store: ${off.wallMs} ms wall, ${off.cpuMs} ms CPU, RSS plateau ${plateau(off)} MB`)
  console.log(`  with store:    ${on.wallMs} ms wall, ${on.cpuMs} ms CPU, RSS plateau ${plateau(on)} MB; recorded ${h.runs[0].scorers.map((s) => `${s.id} n=${s.n}`).join(', ')}`)
  console.log(`  CPU with / without = ${(on.cpuMs / off.cpuMs).toFixed(3)}; store ${(bytes / 1048576).toFixed(1)} MB = ${Math.round(bytes / (items * 2))} bytes per item × scorer (reasons, step results and prompts included)`)
  tableSizes(store, items * 2, bytes)
}

/** What each table and index costs (SQLite's dbstat, through the sqlite3 shell when there is one), and the bytes beyond the reasons. */
function tableSizes(file, pairs, bytes) {
  const sql = (q) => spawnSync('sqlite3', [file, q], { encoding: 'utf8' })
  const t = sql('SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC')
  if (t.status !== 0 || t.error) return console.log('  (no sqlite3 shell with dbstat: per-table sizes not shown)')
  const rows = t.stdout.trim().split('\n').map((l) => l.split('|'))
  console.log(`  per item × scorer: ${rows.map(([n, b]) => `${n} ${Math.round(Number(b) / pairs)}`).join(', ')}`)
  const reasons = Number(sql('SELECT SUM(LENGTH(CAST(reason AS BLOB))) FROM results').stdout.trim()) || 0
  console.log(`  reasons ${Math.round(reasons / pairs)} bytes per item × scorer; beyond the reasons: ${Math.round((bytes - reasons) / pairs)} bytes per item × scorer (target ≤ 1024)`)
}

if (runs > 0) {
  const { startRecording, storeQuery } = require('../lib/store.js')
  const store = join(dir, 'history.db')
  const ids = Array.from({ length: scorers }, (_, k) => `scorer-${k}`)
  const t0 = performance.now()
  for (let r = 0; r < runs; r++) {
    const rec = startRecording(store, { startedAtMs: Date.UTC(2026, 0, 1) + r * 60000, git: { branch: r % 2 ? 'main' : 'feature', commit: `c${r}` }, tags: r % 10 ? [] : ['nightly'], header: { scorers: ids.map((id) => ({ id })) }, storePrompts: true })
    for (let i = 0; i < 5; i++) rec.item({ index: i, id: `item-${i}`, results: Object.fromEntries(ids.map((id, k) => [id, { score: ((r + i + k) % 10) / 10, reason: 'because' }])) })
    const stats = Object.fromEntries(ids.map((id) => [id, { n: 5, mean: 0.5, ci95: [0.3, 0.7] }]))
    const done = rec.finish({ stats, outcome: { status: 'passed' } })
    if (done.error) throw new Error(done.error.message)
  }
  console.log(`reads: a store of ${runs} runs × ${scorers} scorers (5 items each), made in ${Math.round(performance.now() - t0)} ms`)
  const time = (f, n = 5) => {
    const ms = []
    for (let k = 0; k < n; k++) {
      const t = performance.now()
      f()
      ms.push(performance.now() - t)
    }
    return ms.sort((a, b) => a - b)[Math.floor(n / 2)].toFixed(1)
  }
  console.log(`  history of all ${runs} runs (core query + JSON): median ${time(() => storeQuery(store, { kind: 'history', last: runs }))} ms`)
  console.log(`  history --last 20: median ${time(() => storeQuery(store, { kind: 'history', last: 20 }))} ms; one item's history (${runs} runs): median ${time(() => storeQuery(store, { kind: 'item', item: 'item-3' }))} ms`)
  const cli = (args) => {
    const t = performance.now()
    const r = spawnSync(process.execPath, [`${root}cli/oxeval.mjs`, ...args, '--store', store, '--format', 'json'], { encoding: 'utf8', maxBuffer: 256 << 20 })
    if (r.status !== 0) throw new Error(r.stderr)
    return performance.now() - t
  }
  const node = (() => {
    const t = performance.now()
    spawnSync(process.execPath, ['-e', '0'])
    return performance.now() - t
  })()
  console.log(`  oxeval history --last ${runs} --format json: ${cli(['history', '--last', String(runs)]).toFixed(0)} ms wall; oxeval history --item item-3: ${cli(['history', '--item', 'item-3']).toFixed(0)} ms (node -e 0 alone: ${node.toFixed(0)} ms)`)
}
process.exit(0)
