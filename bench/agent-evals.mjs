// `npm run bench -- --suite agent` (after bench/agent.mjs): a multi-turn runEvals, oxeval's vs
// Mastra's (@mastra/core 1.67 runEvals), on the SAME target: a real @mastra/core Agent with a
// tool and memory (@mastra/core's MockMemory over its InMemoryStore) whose model is an AI SDK
// MockLanguageModelV3 answering like a small weather agent. The items: half `turns` (three
// turns, per-turn gates and a thresholded per-turn scorer), half `inputs` (two turns on one
// thread), every one with an expectedTrajectory; the scorers in the categorized form (the
// multi-turn judge, an LLM scorer, against bench/agent.mjs's judge process; a check; the code
// trajectory accuracy scorer under `trajectory`) and a check as a gate. Each library in its own
// worker process: CPU (user + system), wall and peak RSS of the whole run; then the same items
// with no assertion at all (a trivial scorer), the target's own cost, in another process, so
// the runner's and scorers' share is reported beside the total. Each of the four runs is
// repeated (`--repeat`, in turn, each in a fresh process) and the medians are reported: the
// target's own cost varies by ±15 % between processes, and the runner's share is a difference
// of two such figures. Both libraries must give the same scores, verdict and turnResults
// (Mastra's keys): the driver checks it.
//
//   node bench/agent-evals.mjs [--items 200] [--concurrency 8] [--repeat 3]
//   node bench/agent-evals.mjs worker <lib> <judgeUrl> <items> <concurrency> <full|target>
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { createRequire } from 'node:module'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const self = fileURLToPath(import.meta.url)
const [mode, ...rest] = process.argv.slice(2)

if (mode === 'worker') {
  const [lib, url, itemsArg, concArg, what] = rest
  const n = Number(itemsArg)
  const concurrency = Number(concArg)
  const require = createRequire(import.meta.url)
  const { MockLanguageModelV3 } = await import('ai/test')
  const { Agent } = await import('@mastra/core/agent')
  const { MockMemory } = await import('@mastra/core/memory')
  const { InMemoryStore } = await import('@mastra/core/storage')
  const { createTool } = await import('@mastra/core/tools')
  const { z } = await import('zod')
  const usage = { inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 8, text: 8, reasoning: 0 } }
  const textOf = (m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join(''))
  const model = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const last = prompt[prompt.length - 1]
      const done = { finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }
      if (last.role === 'tool') {
        const { city, tempC } = last.content[0].output.value
        return { content: [{ type: 'text', text: `It is ${tempC}°C in ${city}.` }], ...done }
      }
      const text = textOf(last)
      if (/weather/i.test(text)) {
        const city = /in ([A-Z][a-z]+)/.exec(text)?.[1] ?? prompt.map(textOf).join(' ').match(/favorite city is ([A-Z][a-z]+)/)?.[1] ?? 'Paris'
        return { content: [{ type: 'tool-call', toolCallId: `call-${city}`, toolName: 'weather', input: JSON.stringify({ city }) }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] }
      }
      return { content: [{ type: 'text', text: `Noted: ${text}` }], ...done }
    },
  })
  const weather = createTool({ id: 'weather', description: 'The weather of a city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => ({ city, tempC: city.length * 3 }) })
  const agent = new Agent({ id: 'bench-agent', name: 'bench-agent', instructions: 'Weather.', model, tools: { weather }, memory: new MockMemory({ storage: new InMemoryStore() }) })

  const judge = { id: 'openai/gpt-4o-mini', url, apiKey: 'bench-key' }
  const L = lib === 'oxeval' ? require('../index.js') : null
  const mastraChecks = lib === 'mastra' ? (await import('@mastra/evals/checks')).checks : null
  const mastraPrebuilt = lib === 'mastra' ? await import('@mastra/evals/scorers/prebuilt') : null
  const checks = L ? L.checks : mastraChecks
  const full = what === 'full'
  const trajectory = { steps: [{ stepType: 'tool_call', name: 'weather' }] }
  const data = Array.from({ length: n }, (_, i) =>
    i % 2 === 0
      ? {
          // every third conversation expects a step the agent never takes (a partial score)
          expectedTrajectory: { steps: [...trajectory.steps, ...(i % 3 === 0 ? [{ stepType: 'tool_call', name: 'forecast' }] : []), ...trajectory.steps] },
          turns: [
            { input: `What is the weather in ${['Paris', 'Oslo', 'Rome'][i % 3]}?`, ...(full ? { gates: [checks.calledTool('weather')] } : {}) },
            { input: 'Thanks!' },
            { input: 'And the weather in Lisbon?', ...(full ? { gates: [checks.calledTool('weather')], scorers: [{ scorer: checks.includes('°C'), threshold: 0.5 }] } : {}) },
          ],
        }
      : { inputs: [`My favorite city is ${['Lyon', 'Nice'][i % 2]}.`, 'What is the weather in my favorite city?'], expectedTrajectory: trajectory },
  )
  const criterion = 'The assistant gives the weather of every city it is asked about.'
  let scorers
  let gates
  if (!full) {
    // the target's own cost: the same conversations, one trivial scorer, no assertion
    const one = L ? L.createScorer({ id: 'one', description: 'one' }).generateScore(() => 1) : (await import('@mastra/core/evals')).createScorer({ id: 'one', description: 'one', type: 'agent' }).generateScore(() => 1)
    scorers = { agent: [one] }
  } else if (L) {
    scorers = { agent: [L.createMultiTurnJudgeScorer({ model: judge, criterion }), checks.noToolErrors()], trajectory: [L.createTrajectoryAccuracyScorerCode()] }
    gates = [checks.calledTool('weather')]
  } else {
    scorers = { agent: [mastraPrebuilt.createMultiTurnJudgeScorer({ model: judge, criterion }), checks.noToolErrors()], trajectory: [mastraPrebuilt.createTrajectoryAccuracyScorerCode({})] }
    gates = [checks.calledTool('weather')]
  }
  const run = L ? L.runEvals : (await import('@mastra/core/evals')).runEvals
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const r = await run({ target: agent, data, scorers, ...(gates ? { gates } : {}), concurrency })
  const wallMs = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  const turnResults = (r.turnResults ?? []).map((t) => {
    const o = { index: t.index }
    for (const k of ['gateResults', 'thresholdResults', 'scores']) if (t[k] !== undefined) o[k] = t[k]
    return o
  })
  console.log(
    JSON.stringify({
      lib,
      what,
      items: n,
      totalItems: r.summary.totalItems,
      cpuMs: (cpu.user + cpu.system) / 1000,
      wallMs,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      scores: r.scores,
      verdict: r.verdict,
      gateResults: r.gateResults,
      turnResults,
      outcome: r.outcome?.status,
    }),
  )
  process.exit(0)
} else {
  const argv = process.argv.slice(2)
  const flag = (name, dflt) => {
    const i = argv.indexOf(`--${name}`)
    return i >= 0 ? argv[i + 1] : dflt
  }
  const items = Number(flag('items', 200))
  const concurrency = Number(flag('concurrency', 8))
  const repeat = Number(flag('repeat', 3))
  const b = spawnSync('node', ['scripts/ensure-built.mjs', '--release'], { cwd: root, stdio: 'inherit' })
  if (b.status !== 0) process.exit(1)
  // bench/agent.mjs's judge process (answers each agent scorer's schema by its shape)
  const child = spawn('node', ['bench/agent.mjs', 'judge', '0'], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] })
  const [url] = await once(createInterface({ input: child.stdout }), 'line')
  const worker = (lib, what) => {
    const r = spawnSync('node', [self, 'worker', lib, url, String(items), String(concurrency), what], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    try {
      return JSON.parse(r.stdout.trim().split('\n').pop())
    } catch {
      throw new Error(`${lib} ${what} worker failed: ${r.stderr.slice(-3000)}`)
    }
  }
  const runs = {}
  try {
    for (let k = 0; k < repeat; k++) {
      for (const lib of ['oxeval', 'mastra']) {
        for (const what of ['full', 'target']) {
          console.error(`multi-turn runEvals ${lib} (${what === 'full' ? 'with its scorers' : 'the target alone'}), run ${k + 1}/${repeat}: ${items} conversations, concurrency ${concurrency}…`)
          ;(runs[`${lib}.${what}`] ??= []).push(worker(lib, what))
        }
      }
    }
  } finally {
    child.kill('SIGTERM')
  }
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b)
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
  }
  // per (library, run kind): the medians, and the results of the first run
  const rows = Object.fromEntries(
    Object.entries(runs).map(([k, rs]) => [k, { ...rs[0], cpuMs: median(rs.map((r) => r.cpuMs)), wallMs: median(rs.map((r) => r.wallMs)), peakRssMb: median(rs.map((r) => r.peakRssMb)), cpuAll: rs.map((r) => Math.round(r.cpuMs)) }]),
  )
  // every run of a library gave the same results
  const stable = ['oxeval.full', 'mastra.full'].every((k) => runs[k].every((r) => JSON.stringify([r.scores, r.verdict, r.turnResults]) === JSON.stringify([runs[k][0].scores, runs[k][0].verdict, runs[k][0].turnResults])))
  const o = rows['oxeval.full']
  const m = rows['mastra.full']
  const same = JSON.stringify([o.scores, o.verdict, o.gateResults, o.turnResults]) === JSON.stringify([m.scores, m.verdict, m.gateResults, m.turnResults])
  const f = (x, d = 0) => Number(x).toFixed(d)
  const own = (lib) => rows[`${lib}.full`].cpuMs - rows[`${lib}.target`].cpuMs
  console.log(`\nmulti-turn runEvals: ${items} conversations (${Math.ceil(items / 2)} turns items × 3 turns with per-turn gates and a thresholded scorer, ${Math.floor(items / 2)} inputs items × 2 turns), one @mastra/core Agent with memory on a mock model, concurrency ${concurrency}; scorers { agent: [multi-turn judge (LLM, instant judge), noToolErrors], trajectory: [code trajectory accuracy] }, gate calledTool\n`)
  console.log(`medians of ${repeat} runs each (every run in its own process)\n`)
  console.log('| runEvals | wall ms | CPU ms (each run) | CPU ms, target alone (each run) | CPU ms, runner + scorers | peak RSS MB |')
  console.log('|---|---|---|---|---|---|')
  for (const lib of ['oxeval', 'mastra']) {
    const r = rows[`${lib}.full`]
    const t = rows[`${lib}.target`]
    console.log(`| ${lib === 'oxeval' ? 'oxeval' : '@mastra/core'} | ${f(r.wallMs)} | ${f(r.cpuMs)} (${r.cpuAll.join(', ')}) | ${f(t.cpuMs)} (${t.cpuAll.join(', ')}) | ${f(own(lib))} | ${f(r.peakRssMb, 1)} |`)
  }
  console.log(
    `\nMastra / oxeval, same run: wall ${f(m.wallMs / o.wallMs, 2)}×, CPU ${f(m.cpuMs / o.cpuMs, 2)}×, CPU of runner + scorers ${f(own('mastra') / own('oxeval'), 1)}×, peak RSS ${f(m.peakRssMb / o.peakRssMb, 2)}×`,
  )
  console.log(`same scores, verdict, gateResults and turnResults: ${same && stable ? 'yes' : 'NO'} (verdict ${o.verdict}, scores ${JSON.stringify(o.scores)})`)
  if (!same || !stable) {
    console.log(`oxeval: ${JSON.stringify([o.scores, o.verdict, o.gateResults, o.turnResults])}`)
    console.log(`mastra: ${JSON.stringify([m.scores, m.verdict, m.gateResults, m.turnResults])}`)
    process.exit(1)
  }
}
