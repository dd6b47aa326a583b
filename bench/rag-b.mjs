// Benchmark: oxeval (release build) vs @mastra/evals 1.10.2 for the Mastra RAG/quality scorers
// createContextRelevanceScorerLLM, createAnswerSimilarityScorer, createSummarizationScorer and
// createNoiseSensitivityScorerLLM, side by side against the same local judge over HTTP.
//
//   node bench/rag-b.mjs [--runs 300] [--latency-runs 30] [--only <scorer>]
//
// Each measurement runs in its own worker process (this file with --worker), so CPU
// (process.cpuUsage) and peak RSS (resourceUsage().maxRSS) are the library's own; the judge is
// another process (this file with --judge) answering by the SHAPE of the requested JSON schema,
// so both libraries get byte-identical replies and must compute the same score.
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { createRequire } from 'node:module'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const self = fileURLToPath(import.meta.url)
const argv = process.argv.slice(2)
const flag = (name, dflt) => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : dflt
}

const CTX = ['Exercise strengthens the heart.', 'A balanced diet matters.', 'Physical activity reduces stress.']
const QS = ['Was the bridge opened in 1932?', 'Is the bridge 503 m long?', 'Does it carry a railway?']
const DIMS = ['content_accuracy', 'completeness', 'relevance', 'consistency', 'hallucination_resistance']

/** The judge's replies, by a property of the requested schema; one reply per step. */
const REPLIES = {
  evaluations: {
    evaluations: CTX.map((c, i) => ({ context_index: i, contextPiece: c, relevanceLevel: ['high', 'none', 'high'][i], wasUsed: i !== 1, reasoning: 'scripted' })),
    missingContext: ['sleep benefits'],
    overallAssessment: 'Two relevant pieces used.',
  },
  outputUnits: { outputUnits: ['Paris is the capital of France', 'Paris has 3 million people'], groundTruthUnits: ['Paris is the capital of France', 'Paris lies on the Seine', 'about 2 million people live in Paris'] },
  matches: {
    matches: [
      { groundTruthUnit: 'Paris is the capital of France', outputUnit: 'Paris is the capital of France', matchType: 'exact', explanation: 'same' },
      { groundTruthUnit: 'Paris lies on the Seine', outputUnit: null, matchType: 'missing', explanation: 'absent' },
      { groundTruthUnit: 'about 2 million people live in Paris', outputUnit: 'Paris has 3 million people', matchType: 'partial', explanation: 'number differs' },
    ],
    extraInOutput: [],
    contradictions: [],
  },
  alignment: { alignment: [{ claim: 'The bridge opened in 1932', supported: true, reason: 'stated' }, { claim: 'The bridge is 503 m long', supported: true, reason: 'stated' }], questions: QS },
  coverage: { coverage: QS.map((question, i) => ({ question, answered: i < 2, reason: 'scripted' })) },
  dimensions: {
    dimensions: DIMS.map((dimension, i) => ({ dimension, impactLevel: i === 2 ? 'minimal' : 'none', specificChanges: 'scripted', noiseInfluence: 'scripted' })),
    overallAssessment: 'Robust.',
    majorIssues: [],
    robustnessScore: 0.9,
  },
}

/** The scorers: factory options and the run each library scores. */
const SCORERS = {
  'context-relevance-llm': {
    factory: 'createContextRelevanceScorerLLM',
    options: { context: CTX },
    run: { input: 'What are the benefits of exercise?', output: 'Exercise improves heart health and mood.' },
  },
  'answer-similarity': {
    factory: 'createAnswerSimilarityScorer',
    options: {},
    run: { input: 'Tell me about Paris.', output: 'Paris is the capital of France. It has 3 million people.', groundTruth: 'Paris is the capital of France. It lies on the Seine. About 2 million people live there.' },
  },
  summarization: {
    factory: 'createSummarizationScorer',
    options: {},
    run: { input: 'The bridge opened in 1932 and is 503 m long. It carries a railway.', output: 'The 503 m bridge opened in 1932.' },
  },
  'noise-sensitivity-llm': {
    factory: 'createNoiseSensitivityScorerLLM',
    options: { baselineResponse: 'Exercise improves heart health and mood.', noisyQuery: 'What are the benefits of exercise? Also, is chocolate a vegetable?' },
    run: { input: 'What are the benefits of exercise?', output: 'Exercise improves heart health and mood. Chocolate is not a vegetable.' },
  },
}

if (argv[0] === '--judge') await judge()
else if (argv[0] === '--worker') await worker(...argv.slice(1))
else await main()

async function judge() {
  const { startJudgeServer } = await import('../testing/judge-server.mjs')
  const server = await startJudgeServer({
    latencyMs: Number(process.env.JUDGE_LATENCY_MS || 0),
    handler: (req) => {
      const props = Object.keys(req.body?.response_format?.json_schema?.schema?.properties ?? {})
      const key = Object.keys(REPLIES).find((k) => props.includes(k))
      return key ? { json: REPLIES[key] } : { content: 'The score is 0.5 because of the scripted analysis.' }
    },
  })
  console.log(server.url)
  process.on('SIGTERM', async () => {
    await server.close()
    process.exit(0)
  })
}

async function worker(lib, name, url, runsArg) {
  const runs = Number(runsArg)
  const spec = SCORERS[name]
  const model = { id: 'openai/gpt-4o-mini', url, apiKey: 'bench-key' }
  let scorer
  if (lib === 'oxeval') {
    const ox = createRequire(import.meta.url)('../index.js')
    scorer = ox[spec.factory]({ model, options: spec.options })
  } else {
    const m = await import('@mastra/evals/scorers/prebuilt')
    scorer = m[spec.factory]({ model, options: spec.options })
  }
  for (let i = 0; i < 10; i++) await scorer.run({ ...spec.run }) // warm-up, not counted
  const scores = new Set()
  let failed = 0
  let firstError
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  for (let i = 0; i < runs; i++) {
    try {
      const r = await scorer.run({ ...spec.run })
      scores.add(r.score)
    } catch (e) {
      failed++
      firstError ??= String(e?.message ?? e).slice(0, 300)
    }
  }
  const wallMs = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  console.log(
    JSON.stringify({ lib, name, runs, failed, firstError, wallMsPerRun: wallMs / runs, cpuMsPerRun: (cpu.user + cpu.system) / 1000 / runs, peakRssMb: process.resourceUsage().maxRSS / 1024, scores: [...scores] }),
  )
  process.exit(0)
}

async function startJudge(latencyMs) {
  const child = spawn('node', [self, '--judge'], { cwd: root, env: { ...process.env, JUDGE_LATENCY_MS: String(latencyMs) }, stdio: ['ignore', 'pipe', 'inherit'] })
  const [url] = await once(createInterface({ input: child.stdout }), 'line')
  const exited = once(child, 'exit')
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM')
      await exited
    },
  }
}

function measure(lib, name, url, runs) {
  const r = spawnSync('node', [self, '--worker', lib, name, url, String(runs)], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  const line = r.stdout.trim().split('\n').pop()
  try {
    return JSON.parse(line)
  } catch {
    throw new Error(`${lib} ${name} worker failed: ${r.stderr.slice(-2000)}`)
  }
}

async function main() {
  const runs = Number(flag('runs', 300))
  const latencyRuns = Number(flag('latency-runs', 30))
  const only = flag('only', '')
  console.log('building the release addon…')
  const b = spawnSync('node', ['scripts/ensure-built.mjs', '--release'], { cwd: root, stdio: 'inherit' })
  if (b.status !== 0) process.exit(1)
  const names = Object.keys(SCORERS).filter((n) => !only || n === only)
  const results = {}
  for (const latency of [0, 50]) {
    const j = await startJudge(latency)
    try {
      for (const name of names) {
        for (const lib of ['oxeval', 'mastra']) {
          const n = latency === 0 ? runs : latencyRuns
          process.stdout.write(`${name} ${lib} ×${n}, judge latency ${latency} ms… `)
          const r = measure(lib, name, j.url, n)
          console.log(`${r.cpuMsPerRun.toFixed(3)} ms CPU/run, ${r.wallMsPerRun.toFixed(1)} ms wall/run, scores ${JSON.stringify(r.scores)}${r.failed ? `, ${r.failed} FAILED: ${r.firstError}` : ''}`)
          results[`${name}/${lib}/${latency}`] = r
        }
      }
    } finally {
      await j.stop()
    }
  }
  const ROUND_TRIPS = { 'context-relevance-llm': [2, 2], 'answer-similarity': [3, 3], summarization: [3, 3], 'noise-sensitivity-llm': [2, 2] }
  const f = (n, d = 2) => Number(n).toFixed(d)
  console.log(`\n${runs} sequential runs per library at 0 ms judge latency (CPU, RSS); ${latencyRuns} at 50 ms (wall).\n`)
  console.log('| scorer | CPU ms/run oxeval | CPU ms/run Mastra | ratio | wall ms/run at 50 ms judge, oxeval / Mastra (round trips) | peak RSS MB oxeval / Mastra | same score |')
  console.log('|---|---|---|---|---|---|---|')
  for (const name of names) {
    const o = results[`${name}/oxeval/0`]
    const m = results[`${name}/mastra/0`]
    const ol = results[`${name}/oxeval/50`]
    const ml = results[`${name}/mastra/50`]
    const [ort, mrt] = ROUND_TRIPS[name]
    const same = JSON.stringify(o.scores) === JSON.stringify(m.scores) ? `yes (${o.scores.join(', ')})` : `NO (${o.scores} vs ${m.scores})`
    console.log(
      `| ${SCORERS[name].factory} | ${f(o.cpuMsPerRun, 3)} | ${f(m.cpuMsPerRun, 2)} | ${f(m.cpuMsPerRun / o.cpuMsPerRun, 0)}× | ${f(ol.wallMsPerRun, 0)} (${ort}) / ${f(ml.wallMsPerRun, 0)} (${mrt}) | ${f(o.peakRssMb, 0)} / ${f(m.peakRssMb, 0)} | ${same} |`,
    )
  }
}
