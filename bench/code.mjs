// `npm run bench -- --suite code`: oxeval's code scorers and checks vs @mastra/evals 1.10.2 on
// the same generated inputs (bench/gen/agent-gen.mjs), in one process each, CPU per run
// (sequential awaited runs after a warm-up); then runEvals over 1 000 items with four checks as
// gates, oxeval vs Mastra (whose runEvals needs a target: a mock-model Agent, the lightest it
// takes; its own cost is measured alone and reported beside).
//   node bench/code.mjs scorers <lib> <runs> [typical|stress]  → one JSON line per scorer
//   node bench/code.mjs evals <lib> <items> [typical|stress]   → one JSON line
// Inputs: `typical` (bench/gen/agent-typical.mjs: a question, one assistant message with its
// tool calls, built with the shared test-data builders) or `stress` (bench/gen/agent-gen.mjs:
// the differential spec's runs, up to six messages mixing parts and legacy invocations in
// every state, Unicode-heavy texts). oxeval pays for moving the fields a scorer reads into the
// core (JSON), so its cost grows with the output's size; Mastra's is mostly its pipeline.
//   node bench/code.mjs native <runs>             → the N-API crossing alone (oxeval)
import { createRequire } from 'node:module'
import * as gen from './gen/agent-gen.mjs'
import * as typical from './gen/agent-typical.mjs'

const require = createRequire(import.meta.url)
const [mode, lib, nArg, inputsArg = 'stress'] = process.argv.slice(2)
const isTypical = inputsArg === 'typical'

/** The scorers and checks, each with its factory call and its runs' generator. */
function cases(L) {
  // inputs on which neither library throws (a non-empty output; budgets both can evaluate)
  const agentRun = isTypical ? typical.agentRun : (r) => ({ input: { inputMessages: [gen.message(r, 'user')], rememberedMessages: [], systemMessages: [], taggedSystemMessages: {} }, output: [gen.message(r, 'assistant'), ...gen.messages(r, 4)] })
  const trajRun = isTypical ? typical.trajectoryRun : (r) => {
    const t = gen.trajectory(r)
    const x = gen.expectation(r, t.steps)
    delete x.maxTotalTokens
    delete x.maxTotalDurationMs
    if (x.maxSteps < 0) delete x.maxSteps
    return { input: 'q', output: t, expectedTrajectory: x }
  }
  return [
    ['createToolCallAccuracyScorerCode', () => L.createToolCallAccuracyScorerCode({ expectedTool: 'search' }), agentRun],
    ['createTrajectoryAccuracyScorerCode', () => L.createTrajectoryAccuracyScorerCode({ expectedTrajectory: [{ name: 'search' }, { name: 'summarize' }] }), trajRun],
    ['createTrajectoryScorerCode', () => L.createTrajectoryScorerCode({ defaults: { steps: [{ name: 'search' }, { name: 'summarize' }], maxSteps: 5 } }), trajRun],
    ['includes', () => L.includes('paris'), agentRun],
    ['excludes', () => L.excludes('error'), agentRun],
    ['equals', () => L.equals('Paris'), agentRun],
    ['matches', () => L.matches(/\d+°F/), agentRun],
    ['similarity', () => L.similarity('It is sunny in Paris, 72°F'), agentRun],
    ['calledTool', () => L.calledTool('get_weather'), agentRun],
    ['didNotCall', () => L.didNotCall('send_email'), agentRun],
    ['toolOrder', () => L.toolOrder(['search', 'summarize']), agentRun],
    ['maxToolCalls', () => L.maxToolCalls(3), agentRun],
    ['usedNoTools', () => L.usedNoTools(), agentRun],
    ['noToolErrors', () => L.noToolErrors(), agentRun],
  ]
}

async function load(which) {
  if (which === 'oxeval') return require('../index.js')
  const prebuilt = await import('@mastra/evals/scorers/prebuilt')
  const { checks } = await import('@mastra/evals/checks')
  return { ...prebuilt, ...checks }
}

async function measure(scorer, runs) {
  // the same for both libraries: 1 000 warm-up runs (the JIT settles), then the runs in five
  // equal rounds; the figure is the median round's CPU per run (a GC pause or a late JIT tier
  // lands in one round, not in the figure)
  const warm = Math.min(1000, runs.length)
  const once = async (run) => {
    try {
      return (await scorer.run(run)).score
    } catch {
      // a run both libraries reject (e.g. a nested budget without measurements): counted
      errors++
      return 0
    }
  }
  let errors = 0
  for (let i = 0; i < warm; i++) await once(runs[i])
  errors = 0
  const rounds = 5
  const size = Math.ceil(runs.length / rounds)
  const perRound = []
  const t0 = performance.now()
  const c00 = process.cpuUsage()
  let sum = 0
  for (let k = 0; k < runs.length; k += size) {
    const slice = runs.slice(k, k + size)
    const c0 = process.cpuUsage()
    for (const run of slice) sum += await once(run)
    const c = process.cpuUsage(c0)
    perRound.push((c.user + c.system) / slice.length)
  }
  const wall = performance.now() - t0
  const all = process.cpuUsage(c00)
  perRound.sort((a, b) => a - b)
  const cpuUsPerRun = perRound[Math.floor(perRound.length / 2)]
  return { cpuUsPerRun, meanCpuUsPerRun: (all.user + all.system) / runs.length, wallUsPerRun: (wall * 1000) / runs.length, meanScore: sum / runs.length, errors }
}

if (mode === 'scorers') {
  const L = await load(lib)
  const n = Number(nArg)
  for (const [name, make, runOf] of cases(L)) {
    const r = gen.rng(name.length * 31 + 7)
    const runs = Array.from({ length: n }, () => runOf(r))
    const m = await measure(make(), runs)
    console.log(JSON.stringify({ lib, scorer: name, runs: n, inputs: inputsArg, ...m }))
  }
} else if (mode === 'native') {
  // the crossing alone: the binding's smallest call (a helper on a small message), per call
  const u = require('../utils/index.js')
  const native = require('../load-binding.js')
  const n = Number(lib)
  const msg = { role: 'assistant', content: 'It is 72°F in Paris.' }
  const c0 = process.cpuUsage()
  for (let i = 0; i < n; i++) u.getTextContentFromMastraDBMessage(msg)
  const c = process.cpuUsage(c0)
  const c1 = process.cpuUsage()
  for (let i = 0; i < n; i++) native.agentUtil('roundToTwoDecimals', '[1]')
  const d = process.cpuUsage(c1)
  console.log(JSON.stringify({ helperCallUs: (c.user + c.system) / n, bareCallUs: (d.user + d.system) / n }))
} else if (mode === 'evals') {
  const n = Number(nArg)
  const r = gen.rng(5)
  const outputs = Array.from({ length: 200 }, () => (isTypical ? typical.agentRun(r).output : gen.messages(r, 5)))
  const texts = outputs.map((o) => o.filter((m) => m.role === 'assistant').map((m) => (typeof m.content === 'string' ? m.content : typeof m.content?.content === 'string' ? m.content.content : '')).join(' ') || 'It is sunny in Paris.')
  const L = await load(lib)
  const gates = () => [L.calledTool('get_weather'), L.includes('paris'), L.noToolErrors(), L.maxToolCalls(3)]
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  let result
  let targetOnly
  let wallFirst
  if (lib === 'oxeval') {
    const data = Array.from({ length: n }, (_, i) => ({ input: `q${i}`, output: outputs[i % outputs.length] }))
    result = await L.runEvals({ data, gates: gates(), concurrency: 8 })
  } else {
    const { runEvals, createScorer } = await import('@mastra/core/evals')
    const { Agent } = await import('@mastra/core/agent')
    const { MockLanguageModelV3 } = await import('ai/test')
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
    let k = 0
    const agent = new Agent({
      id: 'bench',
      name: 'bench',
      instructions: 'Answer.',
      model: new MockLanguageModelV3({ doGenerate: async () => ({ content: [{ type: 'text', text: texts[k++ % texts.length] }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }) }),
    })
    const data = Array.from({ length: n }, (_, i) => ({ input: `q${i}` }))
    result = await runEvals({ target: agent, data, gates: gates(), concurrency: 8 })
    wallFirst = performance.now() - t0
    // the target's own cost: the same run with one trivial gate
    const c1 = process.cpuUsage()
    const trivial = createScorer({ id: 'one', name: 'one', description: 'one', type: 'agent' }).generateScore(() => 1)
    await runEvals({ target: agent, data, gates: [trivial], concurrency: 8 })
    const c = process.cpuUsage(c1)
    targetOnly = (c.user + c.system) / 1000
  }
  const wall = wallFirst ?? performance.now() - t0
  const c = process.cpuUsage(c0)
  const cpuMs = (c.user + c.system) / 1000 - (targetOnly ?? 0)
  console.log(JSON.stringify({ lib, items: n, inputs: inputsArg, cpuMs, targetOnlyCpuMs: targetOnly, wallMs: wall, summary: result.summary ?? null }))
}
process.exit(0)
