// Benchmark: oxeval (release build) vs ragas 0.4.3 (Python, .bench/venv) for Ragas's no-judge
// metrics, per metric configuration, on the same samples: the seeded parity cases of
// __test__/fixtures/ragas-nonllm.jsonl (240 per configuration).
//
//   node bench/ragas-nonllm.mjs [--python .bench/venv/bin/python] [--repeat 5]
//   (npm run bench -- --suite ragas runs it after building the release addon)
//
// Each side runs in its own process. oxeval: `await scorer.run(run)` per sample after a
// warm-up pass (process.cpuUsage), plus the CPU of `require('oxeval/ragas')`. ragas
// (bench/ragas/nonllm_worker.py): `metric.score(...)` per sample as a script calls it (a new
// event loop per call), `await metric.ascore(...)` in one loop (ragas's work alone), and its
// import. Reported per run: "as a user pays it" = (import + N runs) / N for one run of the N
// samples, on both sides; "warm" = the per-sample CPU without import (ragas: ascore).
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FACTORY } from '../scripts/ragas-nonllm-cases.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const self = fileURLToPath(import.meta.url)
const argv = process.argv.slice(2)
const flag = (name, dflt) => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : dflt
}
const FIXTURE = join(root, '__test__', 'fixtures', 'ragas-nonllm.jsonl')
const runOf = (c) =>
  c.metric === 'quoted_spans'
    ? { output: c.response, context: c.contexts }
    : c.metric.startsWith('tool_call')
      ? { output: c.messages, referenceToolCalls: c.referenceToolCalls }
      : { output: c.response, groundTruth: c.reference }

if (argv[0] === '--worker') {
  // one configuration: argv[1] = its key; repeat the measured pass `repeat` times
  const key = argv[1]
  const repeat = Number(flag('repeat', 5))
  const cases = readFileSync(FIXTURE, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((c) => `${c.metric} ${JSON.stringify(c.options)}` === key)
  const c0 = process.cpuUsage()
  const ragas = createRequire(import.meta.url)('../ragas/index.js')
  const ic = process.cpuUsage(c0)
  const scorer = ragas[FACTORY[cases[0].metric]](cases[0].options)
  const runs = cases.map(runOf)
  for (const run of runs) await scorer.run(run) // warm-up
  let sum = 0
  const cpu0 = process.cpuUsage()
  for (let k = 0; k < repeat; k++) for (const run of runs) sum += (await scorer.run(run)).score
  const cpu = process.cpuUsage(cpu0)
  const n = runs.length * repeat
  console.log(JSON.stringify({ runs: runs.length, importCpuMs: (ic.user + ic.system) / 1000, cpuMsPerRun: (cpu.user + cpu.system) / 1000 / n, scoreSum: sum / repeat }))
  process.exit(0)
}

const python = flag('python', join(root, '.bench', 'venv', 'bin', 'python'))
const lines = readFileSync(FIXTURE, 'utf8').trim().split('\n')
const keys = [...new Set(lines.map((l) => JSON.parse(l)).map((c) => `${c.metric} ${JSON.stringify(c.options)}`))]
const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '—')
const rows = []
for (const key of keys) {
  process.stdout.write(`${key}… `)
  const o = spawnSync(process.execPath, [self, '--worker', key, '--repeat', flag('repeat', '5')], { cwd: root, encoding: 'utf8' })
  const ox = JSON.parse(o.stdout.trim().split('\n').pop() || 'null')
  const input = lines.filter((l) => { const c = JSON.parse(l); return `${c.metric} ${JSON.stringify(c.options)}` === key }).join('\n')
  const p = spawnSync(python, [join(root, 'bench', 'ragas', 'nonllm_worker.py')], { cwd: root, input, encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, RAGAS_DO_NOT_TRACK: 'true' } })
  if (!ox || p.status !== 0) throw new Error(`worker failed: ${o.stderr.slice(-1000)} ${p.stderr.slice(-2000)}`)
  const ra = JSON.parse(p.stdout.trim().split('\n').pop())
  const n = ox.runs
  const oxUser = (ox.importCpuMs + n * ox.cpuMsPerRun) / n
  const raUser = (ra.importCpuMs + n * ra.userCpuMsPerRun) / n
  const row = { key, n, ox, ra, oxUser, raUser, ratioUser: raUser / oxUser, ratioNoImport: ra.userCpuMsPerRun / ox.cpuMsPerRun, ratioCore: ra.coreCpuMsPerRun / ox.cpuMsPerRun, sameSum: Math.abs(ox.scoreSum - ra.scoreSum) < 1e-6 }
  rows.push(row)
  console.log(`oxeval ${f(ox.cpuMsPerRun * 1000, 1)} µs/run, ragas ${f(ra.userCpuMsPerRun * 1000, 0)} µs/run (ascore ${f(ra.coreCpuMsPerRun * 1000, 0)} µs)`)
}
console.log('\n| metric (options) | runs | oxeval CPU µs/run (warm) | ragas CPU µs/run: score() / ascore() | imports: oxeval / ragas (ms) | as a user pays it (import + runs) | without import, score() | ragas ascore() alone | same score sum |')
console.log('|---|---|---|---|---|---|---|---|---|')
for (const r of rows) {
  console.log(`| ${r.key} | ${r.n} | ${f(r.ox.cpuMsPerRun * 1000, 1)} | ${f(r.ra.userCpuMsPerRun * 1000, 0)} / ${f(r.ra.coreCpuMsPerRun * 1000, 0)} | ${f(r.ox.importCpuMs, 0)} / ${f(r.ra.importCpuMs, 0)} | ${f(r.ratioUser, 0)}× | ${f(r.ratioNoImport, 0)}× | ${f(r.ratioCore, 0)}× | ${r.sameSum ? 'yes' : 'NO'} |`)
}
