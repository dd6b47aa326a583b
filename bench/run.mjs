// `npm run bench`: oxeval (release build) vs @mastra/evals, side by side in one run against the
// same local judge process over HTTP. Usage: npm run bench [-- --runs 1000] [--only oxeval]
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const argv = process.argv.slice(2)
const flag = (name, dflt) => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : dflt
}
const runs = Number(flag('runs', 1000))
const only = flag('only', '')

console.log('building the release addon…')
const b = spawnSync('node', ['scripts/ensure-built.mjs', '--release'], { cwd: root, stdio: 'inherit' })
if (b.status !== 0) process.exit(1)

async function startJudge(latencyMs) {
  const child = spawn('node', ['bench/judge-proc.mjs'], { cwd: root, env: { ...process.env, JUDGE_LATENCY_MS: String(latencyMs) }, stdio: ['ignore', 'pipe', 'inherit'] })
  const [url] = await once(createInterface({ input: child.stdout }), 'line')
  return { url, stop: () => child.kill('SIGTERM') }
}

function worker(lib, scorer, url, n, conc) {
  const r = spawnSync('node', ['bench/worker.mjs', lib, scorer, url, String(n), String(conc)], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  const line = r.stdout.trim().split('\n').pop()
  try {
    return JSON.parse(line)
  } catch {
    throw new Error(`${lib} worker failed: ${r.stderr.slice(-2000)}`)
  }
}

const suites = flag('suite', 'all').split(',')
const want = (name) => suites.includes('all') || suites.includes(name)

const rows = []
const judge = await startJudge(0)
try {
  if (want('mastra'))
  for (const conc of [1, 50]) {
    for (const lib of ['oxeval', 'mastra']) {
      if (only && lib !== only) continue
      process.stdout.write(`answer-relevancy ${lib} ×${runs} at concurrency ${conc}… `)
      const r = worker(lib, 'answer-relevancy', judge.url, runs, conc)
      console.log(`${r.wallMs} ms${r.failed ? ` (${r.failed} failed: ${r.firstError})` : ''}`)
      rows.push(r)
    }
  }
} finally {
  judge.stop()
}

const f = (n, d = 2) => Number(n).toFixed(d)
console.log('\n| scorer | concurrency | library | runs ok | wall (ms) | CPU ms/run | peak RSS (MB) |')
console.log('|---|---|---|---|---|---|---|')
for (const r of rows) {
  console.log(`| ${r.scorer} | ${r.concurrency} | ${r.lib} | ${r.ok}/${r.runs} | ${r.wallMs} | ${f(r.cpuMsPerRun, 3)} | ${f(r.peakRssMb, 1)} |`)
}
const ratios = []
for (const conc of [1, 50]) {
  const o = rows.find((r) => r.lib === 'oxeval' && r.concurrency === conc)
  const m = rows.find((r) => r.lib === 'mastra' && r.concurrency === conc)
  if (o && m) ratios.push(`concurrency ${conc}: mastra/oxeval CPU per run ${f(m.cpuMsPerRun / o.cpuMsPerRun, 1)}×, wall ${f(m.wallMs / o.wallMs, 1)}×, peak RSS ${f(m.peakRssMb / o.peakRssMb, 1)}×`)
}
if (ratios.length) console.log(`\n${ratios.join('\n')}`)

// Throughput against a judge with 50 ms latency: 1000 runs × 3 sequential calls × 50 ms / 64
// concurrent runs = 2.34 s is the floor; the target is ≤ 1.05× that.
if (want('throughput')) {
  const slow = await startJudge(50)
  try {
    const n = Number(flag('throughput-runs', 1000))
    const conc = 64
    const r = worker('oxeval', 'answer-relevancy', slow.url, n, conc)
    const bound = (n * 3 * 50) / conc
    console.log(`\nthroughput: ${n} answer-relevancy runs, 50 ms judge latency, concurrency ${conc}: wall ${r.wallMs} ms vs bound ${bound.toFixed(0)} ms = ${(r.wallMs / bound).toFixed(3)}× (${r.ok} ok, ${r.failed} failed, CPU ${r.cpuMsPerRun.toFixed(3)} ms/run, peak RSS ${r.peakRssMb.toFixed(1)} MB)`)
  } finally {
    slow.stop()
  }
}
