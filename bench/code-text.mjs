// Benchmark: oxeval (release build) vs @mastra/evals 1.10.2 for the five text code scorers
// (no judge): createCompletenessScorer, createContentSimilarityScorer,
// createKeywordCoverageScorer, createTextualDifferenceScorer, createToneScorer, on the same
// generated runs (bench/gen/text-gen.mjs, seeded).
//
//   node bench/code-text.mjs [--runs 2000] [--completeness-runs 300] [--only <scorer>] [--inputs typical|stress]
// Inputs: `stress` (default; text-gen.mjs: every kind of word, punctuation, Unicode and
// whitespace the scorers look at, one to two messages a side) or `typical`
// (agent-typical.mjs textRun: a plain English question and a two-sentence answer, built with
// the shared test-data builders).
//   (npm run bench -- --suite code runs it after building the release addon)
//
// Each measurement runs in its own process (this file with --worker), so the CPU time
// (process.cpuUsage, after a warm-up pass over the same runs) is the library's own. Runs are
// sequential (`await scorer.run(run)` one after another), as a dataset loop calls them.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const self = fileURLToPath(import.meta.url)
const argv = process.argv.slice(2)
const flag = (name, dflt) => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : dflt
}

const SCORERS = {
  'textual-difference': 'createTextualDifferenceScorer',
  'content-similarity': 'createContentSimilarityScorer',
  'keyword-coverage': 'createKeywordCoverageScorer',
  tone: 'createToneScorer',
  completeness: 'createCompletenessScorer',
}

if (argv[0] === '--worker') {
  const [, lib, name, n, inputSet = 'stress'] = argv
  const runs = Number(n)
  const require = createRequire(import.meta.url)
  const { textRuns } = await import('./gen/text-gen.mjs')
  const factory = SCORERS[name]
  const scorer = lib === 'oxeval' ? require('../index.js')[factory]() : (await import('@mastra/evals/scorers/prebuilt'))[factory]()
  // "constructor" renamed: tone's one deliberate difference would make the score sums differ
  const rename = (v) => (typeof v === 'string' ? v.replace(/constructor/gi, 'constructox') : Array.isArray(v) ? v.map(rename) : v && typeof v === 'object' && !(v instanceof Date) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rename(x)])) : v)
  let inputs
  if (inputSet === 'typical') {
    const { textRun, rng } = await import('./gen/agent-typical.mjs')
    const r = rng(7)
    inputs = Array.from({ length: runs }, () => textRun(r))
  } else inputs = textRuns(7, runs).map((r) => rename({ input: r.input, output: r.output }))
  // warm-up: the same runs once (the JIT, compromise's lazy tables), then the measured pass
  for (const run of inputs) await scorer.run(run)
  let sum = 0
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  for (const run of inputs) sum += (await scorer.run(run)).score
  const cpu = process.cpuUsage(cpu0)
  const wallMs = performance.now() - t0
  console.log(JSON.stringify({ lib, name, runs, inputs: inputSet, cpuMsPerRun: (cpu.user + cpu.system) / 1000 / runs, wallMsPerRun: wallMs / runs, scoreSum: sum }))
  process.exit(0)
}

if (!argv.includes('--no-build')) {
  const b = spawnSync('node', ['scripts/ensure-built.mjs', '--release'], { cwd: root, stdio: 'inherit' })
  if (b.status !== 0) process.exit(1)
}
const runs = Number(flag('runs', 2000))
const completenessRuns = Number(flag('completeness-runs', 300))
const only = flag('only', '')
const inputSet = flag('inputs', 'stress')
const rows = []
for (const name of Object.keys(SCORERS)) {
  if (only && name !== only) continue
  const n = name === 'completeness' ? completenessRuns : runs
  const pair = {}
  for (const lib of ['oxeval', 'mastra']) {
    const r = spawnSync('node', [self, '--worker', lib, name, String(n), inputSet], { cwd: root, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 })
    const line = r.stdout.trim().split('\n').pop()
    try {
      pair[lib] = JSON.parse(line)
    } catch {
      console.log(`${name} ${lib} failed: ${r.stderr.slice(-1500)}`)
    }
  }
  if (pair.oxeval && pair.mastra) rows.push(pair)
}
const f = (x, d = 4) => Number(x).toFixed(d)
console.log(`\ntext code scorers, ${inputSet} inputs`)
console.log('| scorer | runs | oxeval CPU ms/run | Mastra CPU ms/run | Mastra/oxeval CPU | same score sum |')
console.log('|---|---|---|---|---|---|')
for (const { oxeval: o, mastra: m } of rows) {
  console.log(`| ${o.name} | ${o.runs} | ${f(o.cpuMsPerRun)} | ${f(m.cpuMsPerRun)} | ${f(m.cpuMsPerRun / o.cpuMsPerRun, 1)}× | ${o.scoreSum === m.scoreSum ? 'yes' : `no (${o.scoreSum} vs ${m.scoreSum})`} |`)
}
