// One runEvals benchmark worker in its own process:
//   node bench/run-evals-worker.mjs <oxeval|mastra> <judgeUrl> <items> <concurrency> [keepItems]
// oxeval: runEvals over pre-generated outputs (no target). Mastra: its runEvals needs a target,
// so it gets the lightest one it accepts: an Agent whose mock model answers instantly with the
// item's bundled output. Both run answer relevancy + faithfulness (same judge replies).
// Prints one JSON line: { lib, items, concurrency, wallMs, cpuMs, cpuMsPerItem, peakRssMb,
// rssSamplesMb, scores, totalItems }.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const [lib, url, itemsArg, concArg, keepArg] = process.argv.slice(2)
const n = Number(itemsArg)
const concurrency = Number(concArg)
const keepItems = keepArg !== 'false'
const require = createRequire(import.meta.url)
const dataset = JSON.parse(readFileSync(new URL('../examples/dataset.json', import.meta.url), 'utf8'))
const model = { id: 'openai/gpt-4o-mini', url, apiKey: 'bench-key' }
const context = ['Paris is the capital and largest city of France.', 'The Eiffel Tower is in Paris.']

/** The dataset repeated to `n` items, generated lazily (a 100 000-item run holds no array). */
function* items() {
  for (let i = 0; i < n; i++) {
    const d = dataset[i % dataset.length]
    yield { input: d.input, output: d.output, groundTruth: d.groundTruth }
  }
}

const rss = []
const sampler = setInterval(() => rss.push(Math.round(process.memoryUsage.rss() / 1048576)), 1000)
sampler.unref()

let result
const cpu0 = process.cpuUsage()
const t0 = performance.now()
if (lib === 'oxeval') {
  const ox = require('../index.js')
  const scorers = [ox.createAnswerRelevancyScorer({ model }), ox.createFaithfulnessScorer({ model, context })]
  result = await ox.runEvals({ data: items(), scorers, concurrency, keepItems })
} else {
  const { runEvals } = await import('@mastra/core/evals')
  const { Agent } = await import('@mastra/core/agent')
  const { MockLanguageModelV3 } = await import('ai/test')
  const { createAnswerRelevancyScorer, createFaithfulnessScorer } = await import('@mastra/evals/scorers/prebuilt')
  const byInput = new Map(dataset.map((d) => [d.input, d.output]))
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
  const answer = (prompt) => {
    const text = JSON.stringify(prompt)
    for (const [q, a] of byInput) if (text.includes(JSON.stringify(q).slice(1, -1))) return a
    return dataset[0].output
  }
  const agent = new Agent({
    id: 'bench',
    name: 'bench',
    instructions: 'Answer.',
    model: new MockLanguageModelV3({
      doGenerate: async ({ prompt }) => ({ content: [{ type: 'text', text: answer(prompt) }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }),
    }),
  })
  const data = [...items()].map(({ input, groundTruth }) => ({ input, groundTruth }))
  const scorers = [createAnswerRelevancyScorer({ model }), createFaithfulnessScorer({ model, options: { context } })]
  result = await runEvals({ target: agent, data, scorers, concurrency })
}
const wallMs = performance.now() - t0
const cpu = process.cpuUsage(cpu0)
clearInterval(sampler)
console.log(
  JSON.stringify({
    lib,
    items: n,
    concurrency,
    keepItems,
    wallMs: Math.round(wallMs),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    cpuMsPerItem: (cpu.user + cpu.system) / 1000 / n,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    rssSamplesMb: rss,
    scores: result.scores,
    totalItems: result.summary.totalItems,
    coverage: result.coverage,
  }),
)
process.exit(0)
