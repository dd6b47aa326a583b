// One batch-mode benchmark worker in its own process:
//   node bench/batch-worker.mjs <batch|direct|direct-cache> <judgeUrl> <items> <concurrency> <pollMs> <cacheDir>
// runEvals × answer relevancy over `items` distinct items (the example dataset, each made
// unique, so no two requests share a cache key or a batch line), in batch mode or direct
// (with the same disk cache, or none). Prints one JSON line: { mode, items, wallMs, cpuMs,
// cpuMsPerItem, peakRssMb, usage, stages, scored, scores }.
import { readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'

const [mode, url, itemsArg, concArg, pollArg, cacheDir] = process.argv.slice(2)
const n = Number(itemsArg)
const require = createRequire(import.meta.url)
const dataset = JSON.parse(readFileSync(new URL('../examples/dataset.json', import.meta.url), 'utf8'))
const model = { id: 'openai/gpt-4o-mini', url, apiKey: 'bench-key' }

function* items() {
  for (let i = 0; i < n; i++) {
    const d = dataset[i % dataset.length]
    yield { id: `i${i}`, input: `${d.input} (#${i})`, output: `${d.output} (#${i})` }
  }
}

rmSync(cacheDir, { recursive: true, force: true })
const ox = require('../index.js')
const cache = mode === 'direct' ? undefined : { dir: cacheDir, memory: false }
const scorer = ox.createAnswerRelevancyScorer({ model, ...(cache ? { cache } : {}) })
let stages = 0
const cpu0 = process.cpuUsage()
const t0 = performance.now()
const result = await ox.runEvals({
  data: items(),
  scorers: [scorer],
  concurrency: Number(concArg),
  keepItems: false,
  ...(mode === 'batch' ? { batch: { pollMs: Number(pollArg), onProgress: (p) => (stages = Math.max(stages, p.stage)) } } : {}),
})
const wallMs = performance.now() - t0
const cpu = process.cpuUsage(cpu0)
const cpuMs = (cpu.user + cpu.system) / 1000
rmSync(cacheDir, { recursive: true, force: true })
console.log(
  JSON.stringify({
    mode,
    items: n,
    wallMs: Math.round(wallMs),
    cpuMs: Math.round(cpuMs),
    cpuMsPerItem: cpuMs / n,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    usage: result.usage[scorer.id],
    stages: result.batch ? result.batch.progress.stage : 0,
    batches: result.batch ? result.batch.progress.stages.map((s) => s.batches.length) : [],
    scored: result.coverage[scorer.id].scored,
    scores: result.scores,
  }),
)
