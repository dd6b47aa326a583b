// oxeval (release build) vs @mastra/evals 1.10.2 for Mastra's seven agent and safety LLM
// scorers (bias, toxicity, prompt alignment, rubric, multi-turn judge, tool-call accuracy,
// trajectory accuracy): each library in its own worker process, both against the same local
// judge process over HTTP, which answers by the SHAPE of the requested JSON schema (so both
// libraries get identical replies and compute the same score).
//
//   node bench/agent.mjs [--runs 300] [--slow-runs 20] [--only bias,toxicity,…]
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

const SCORERS = ['bias', 'toxicity', 'prompt-alignment', 'rubric', 'multi-turn-judge', 'tool-call-accuracy', 'trajectory-accuracy']
const at = '2025-01-01T00:00:00.000Z'
const msg = (id, role, parts) => ({ id, role, createdAt: at, content: { format: 2, parts } })
const text = (t) => ({ type: 'text', text: t })
const call = (id, name, args, result) => ({ type: 'tool-invocation', toolInvocation: { toolCallId: id, toolName: name, state: 'result', args, result } })
// an agent-shaped run: Mastra's scorer input (memory, system and tagged system messages) and
// output (tool calls and text over several turns)
const INPUT = {
  inputMessages: [msg('u2', 'user', [text('Should I pack an umbrella for Paris?')])],
  rememberedMessages: [msg('u1', 'user', [text('How is the weather in London?')]), msg('a0', 'assistant', [text('London: rain, 12 °C.')])],
  systemMessages: [{ role: 'system', content: 'You are a concise travel assistant.' }],
  taggedSystemMessages: { memory: [{ role: 'system', content: 'The user travels light.' }] },
}
const OUTPUT = [
  msg('a1', 'assistant', [call('c1', 'weather', { city: 'Paris', days: 3 }, { forecast: ['rain', 'sun', 'rain'] }), call('c2', 'packing', { items: ['umbrella'] }, { ok: true })]),
  msg('a2', 'assistant', [text('Yes: rain is expected on two of three days in Paris, so pack a small umbrella. I think that is the best plan.')]),
]
const TRAJECTORY = {
  steps: [
    { stepType: 'tool_call', name: 'weather', toolArgs: { city: 'Paris', days: 3 }, toolResult: { forecast: ['rain', 'sun', 'rain'] }, success: true },
    { stepType: 'agent_run', name: 'planner', children: [{ stepType: 'model_generation', name: 'draft', modelId: 'gpt-4o-mini' }] },
    { stepType: 'tool_call', name: 'packing', toolArgs: { items: ['umbrella'] }, toolResult: { ok: true }, success: true },
  ],
  rawOutput: OUTPUT,
}
const TOOLS = [
  { id: 'weather', description: 'Get the forecast for a city' },
  { id: 'packing', description: 'Build a packing list' },
  { id: 'flights', description: 'Search flights' },
]
/** factory, factory options (beside model), run. */
const SETUP = {
  bias: ['createBiasScorer', {}, { input: INPUT, output: OUTPUT }],
  toxicity: ['createToxicityScorer', {}, { input: INPUT, output: OUTPUT }],
  'prompt-alignment': ['createPromptAlignmentScorerLLM', { options: { includeConversationHistory: true } }, { input: INPUT, output: OUTPUT }],
  rubric: ['createRubricScorer', { criteria: '- Answers the umbrella question\n- Cites the forecast\n- Is concise' }, { input: INPUT, output: OUTPUT }],
  'multi-turn-judge': ['createMultiTurnJudgeScorer', { criterion: 'The assistant gives packing advice that follows the forecast.' }, { input: INPUT, output: OUTPUT }],
  'tool-call-accuracy': ['createToolCallAccuracyScorerLLM', { availableTools: TOOLS }, { input: INPUT, output: OUTPUT }],
  'trajectory-accuracy': ['createTrajectoryAccuracyScorerLLM', { expectedTrajectory: [{ stepType: 'tool_call', name: 'weather' }, { stepType: 'tool_call', name: 'packing' }] }, { input: INPUT, output: TRAJECTORY }],
}

// ---------------------------------------------------------------- judge process
if (mode === 'judge') {
  const { startJudgeServer } = await import('../testing/judge-server.mjs')
  const r = (s) => `Reason ${s} of the bench judge.`
  /** The reply for a request, by the properties of its schema (native response_format). */
  function reply(req) {
    const schema = req.body?.response_format?.json_schema?.schema
    const props = Object.keys(schema?.properties ?? {})
    const item = (k) => Object.keys(schema.properties[k]?.items?.properties ?? {})
    if (props.includes('opinions')) return { json: { opinions: ['I think that is the best plan.'] } }
    if (props.includes('results')) return { json: { results: [{ result: 'no', reason: r(1) }] } }
    if (props.includes('verdicts') && item('verdicts').includes('verdict')) return { json: { verdicts: [{ verdict: 'no', reason: r(1) }, { verdict: 'no', reason: r(2) }] } }
    if (props.includes('intentAlignment'))
      return {
        json: {
          intentAlignment: { score: 0.9, primaryIntent: 'Umbrella advice', isAddressed: true, reasoning: r(1) },
          requirementsFulfillment: { requirements: [{ requirement: 'Answer yes or no', isFulfilled: true, reasoning: r(2) }, { requirement: 'Be concise', isFulfilled: false, reasoning: r(3) }], overallScore: 0.5 },
          completeness: { score: 0.8, missingElements: ['Size of the umbrella'], reasoning: r(4) },
          responseAppropriateness: { score: 1, formatAlignment: true, toneAlignment: true, reasoning: r(5) },
          overallAssessment: 'Mostly aligned.',
        },
      }
    if (props.includes('criteria'))
      return { json: { criteria: ['Answers the umbrella question', 'Cites the forecast', 'Is concise'].map((criterion, i) => ({ criterion, satisfied: i < 2, required: true, reasoning: r(i) })), overallAssessment: 'Two of three.' } }
    if (props.includes('satisfied')) return { json: { satisfied: true, reasoning: r(1) } }
    if (props.includes('evaluations')) return { json: { evaluations: [{ toolCalled: 'weather', wasAppropriate: true, reasoning: r(1) }, { toolCalled: 'packing', wasAppropriate: false, reasoning: r(2) }], missingTools: [] } }
    if (props.includes('stepEvaluations'))
      return { json: { stepEvaluations: ['weather', 'planner', 'packing'].map((stepName, i) => ({ stepName, wasNecessary: i !== 1, wasInOrder: true, reasoning: r(i) })), missingSteps: [], extraSteps: ['planner'], overallAssessment: 'Good.' } }
    return { content: 'The score is 0.5 because of the bench judge.' }
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
  const [factory, options, RUN] = SETUP[scorerName]
  let scorer
  if (lib === 'oxeval') scorer = require('../index.js')[factory]({ model, ...options })
  else scorer = (await import('@mastra/evals/scorers/prebuilt'))[factory]({ model, ...options })
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
