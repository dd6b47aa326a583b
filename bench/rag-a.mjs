// oxeval (release build) vs @mastra/evals 1.10.2 for the Mastra RAG scorers faithfulness,
// hallucination, context precision and context recall: each library in its own worker process,
// both against the same local judge process over HTTP, which answers by the SHAPE of the
// requested JSON schema (so both libraries get identical replies and compute the same score).
//
//   node bench/rag-a.mjs [--runs 300] [--slow-runs 20] [--only faithfulness,hallucination,…]
//
// Per scorer: CPU ms per run (user + system of the worker process, judge latency 0, sequential
// runs, one warm-up run not counted), the ratio, wall ms per run against a judge with 50 ms
// latency (sequential) with the judge calls per run, and the worker's peak RSS. Prints one
// markdown row per scorer. Internal modes: `judge <latencyMs>` and
// `worker <lib> <scorer> <judgeUrl> <runs>`.
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { createRequire } from 'node:module'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const self = fileURLToPath(import.meta.url)
const [mode, ...rest] = process.argv.slice(2)

const SCORERS = ['faithfulness', 'hallucination', 'context-precision', 'context-recall']
const CONTEXT = [
  'The Eiffel Tower is in Paris and opened in 1889.',
  'It is 330 metres tall.',
  'It was the tallest structure in the world until 1930.',
]
const CLAIMS = ['The Eiffel Tower is in Paris.', 'The Eiffel Tower opened in 1889.', 'The Eiffel Tower is 500 metres tall.']
const RUN = {
  input: 'Tell me about the Eiffel Tower.',
  output: 'The Eiffel Tower is in Paris. It opened in 1889 and is 500 metres tall.',
  groundTruth: 'The Eiffel Tower is in Paris, opened in 1889 and is 330 metres tall.',
}

// ---------------------------------------------------------------- judge process
if (mode === 'judge') {
  const { startJudgeServer } = await import('../testing/judge-server.mjs')
  const verdict = (v, i) => ({ verdict: v, reason: `Verdict ${i + 1} of the bench judge.` })
  /** The reply for a request, by the properties of its schema (native response_format). */
  function reply(req) {
    const schema = req.body?.response_format?.json_schema?.schema
    const props = Object.keys(schema?.properties ?? {})
    if (props.includes('claims')) return { json: { claims: CLAIMS } }
    if (props.includes('verdicts')) {
      const item = Object.keys(schema.properties.verdicts?.items?.properties ?? {})
      const labels = ['yes', 'yes', 'no']
      if (item.includes('context_index')) return { json: { verdicts: labels.map((v, i) => ({ context_index: i, ...verdict(v, i) })) } }
      if (item.includes('statement')) return { json: { verdicts: ['no', 'no', 'yes'].map((v, i) => ({ statement: CLAIMS[i], ...verdict(v, i) })) } }
      return { json: { verdicts: labels.map(verdict) } }
    }
    return { content: 'The score is 0.67 because two of the three verdicts are favourable.' }
  }
  let calls = 0
  const server = await startJudgeServer({ handler: reply, latencyMs: Number(rest[0] || 0) })
  server.httpServer.on('request', () => calls++)
  console.log(server.url)
  // line protocol on stdin: "count" → the number of requests so far
  createInterface({ input: process.stdin }).on('line', (l) => {
    if (l.trim() === 'count') console.log(String(calls))
  })
  process.on('SIGTERM', async () => {
    await server.close()
    process.exit(0)
  })
}

// ---------------------------------------------------------------- worker process
else if (mode === 'worker') {
  const [lib, scorerName, url, runsArg] = rest
  const runs = Number(runsArg)
  const require = createRequire(import.meta.url)
  const model = { id: 'openai/gpt-4o-mini', url, apiKey: 'bench-key' }
  const factory = {
    faithfulness: 'createFaithfulnessScorer',
    hallucination: 'createHallucinationScorer',
    'context-precision': 'createContextPrecisionScorer',
    'context-recall': 'createContextRecallScorer',
  }[scorerName]
  let scorer
  if (lib === 'oxeval') scorer = require('../index.js')[factory]({ model, options: { context: CONTEXT } })
  else scorer = (await import('@mastra/evals/scorers/prebuilt'))[factory]({ model, options: { context: CONTEXT } })
  await scorer.run({ ...RUN }) // warm-up, not counted
  let ok = 0
  let failed = 0
  let firstError
  const scores = new Set()
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  for (let i = 0; i < runs; i++) {
    try {
      const r = await scorer.run({ ...RUN })
      ok++
      scores.add(r.score)
    } catch (e) {
      failed++
      firstError ??= String(e?.message ?? e).slice(0, 300)
    }
  }
  const wallMs = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  console.log(
    JSON.stringify({
      lib,
      scorer: scorerName,
      runs,
      ok,
      failed,
      firstError,
      wallMsPerRun: wallMs / runs,
      cpuMsPerRun: (cpu.user + cpu.system) / 1000 / runs,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      scores: [...scores],
    }),
  )
  process.exit(0)
}

// ---------------------------------------------------------------- main
else {
  const argv = process.argv.slice(2)
  const flag = (name, dflt) => {
    const i = argv.indexOf(`--${name}`)
    return i >= 0 ? argv[i + 1] : dflt
  }
  const runs = Number(flag('runs', 300))
  const slowRuns = Number(flag('slow-runs', 20))
  const only = flag('only', '')
  const scorers = only ? only.split(',') : SCORERS

  console.error('building the release addon…')
  const b = spawnSync('node', ['scripts/ensure-built.mjs', '--release'], { cwd: root, stdio: 'inherit' })
  if (b.status !== 0) process.exit(1)

  async function startJudge(latencyMs) {
    const child = spawn('node', [self, 'judge', String(latencyMs)], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] })
    const lines = createInterface({ input: child.stdout })
    const [url] = await once(lines, 'line')
    return {
      url,
      async count() {
        child.stdin.write('count\n')
        const [n] = await once(lines, 'line')
        return Number(n)
      },
      stop: () => child.kill('SIGTERM'),
    }
  }
  function worker(lib, scorer, url, n) {
    const r = spawnSync('node', [self, 'worker', lib, scorer, url, String(n)], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    try {
      return JSON.parse(r.stdout.trim().split('\n').pop())
    } catch {
      throw new Error(`${lib} ${scorer} worker failed: ${r.stderr.slice(-2000)}`)
    }
  }

  const fast = await startJudge(0)
  const slow = await startJudge(50)
  const rows = []
  try {
    for (const scorer of scorers) {
      const row = { scorer }
      for (const lib of ['oxeval', 'mastra']) {
        console.error(`${scorer} ${lib}: ${runs} runs (instant judge), ${slowRuns} runs (50 ms judge)…`)
        const cpu = worker(lib, scorer, fast.url, runs)
        const before = await slow.count()
        const wall = worker(lib, scorer, slow.url, slowRuns)
        const calls = (await slow.count()) - before
        if (cpu.failed || wall.failed) throw new Error(`${lib} ${scorer}: ${cpu.firstError ?? wall.firstError}`)
        row[lib] = { cpu: cpu.cpuMsPerRun, rss: cpu.peakRssMb, wall: wall.wallMsPerRun, trips: calls / (slowRuns + 1), scores: cpu.scores }
      }
      rows.push(row)
    }
  } finally {
    fast.stop()
    slow.stop()
  }

  const f = (n, d) => Number(n).toFixed(d)
  console.log(`\n${runs} sequential runs per library (instant judge) for CPU and RSS; ${slowRuns} sequential runs against a 50 ms judge for wall time.\n`)
  console.log('| scorer | CPU ms/run oxeval | CPU ms/run @mastra/evals | ratio | wall ms/run @ 50 ms judge, oxeval (round trips) | wall ms/run @ 50 ms judge, @mastra/evals (round trips) | peak RSS MB oxeval | peak RSS MB @mastra/evals | scores (oxeval / mastra) |')
  console.log('|---|---|---|---|---|---|---|---|---|')
  for (const r of rows) {
    const o = r.oxeval
    const m = r.mastra
    console.log(
      `| ${r.scorer} | ${f(o.cpu, 3)} | ${f(m.cpu, 2)} | ${f(m.cpu / o.cpu, 0)}× | ${f(o.wall, 1)} (${f(o.trips, 0)}) | ${f(m.wall, 1)} (${f(m.trips, 0)}) | ${f(o.rss, 1)} | ${f(m.rss, 1)} | ${o.scores.join(',')} / ${m.scores.join(',')} |`,
    )
  }
}
