// One benchmark worker (one library, one scenario) in its own process:
//   node bench/worker.mjs <oxeval|mastra> <scorer> <judgeUrl> <runs> <concurrency>
// Prints one JSON line: { lib, scorer, runs, concurrency, ok, failed, wallMs, cpuMsPerRun, peakRssMb,
// scores } (scores: the distinct scores of the successful runs, sorted).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const [lib, scorerName, url, runsArg, concArg] = process.argv.slice(2)
const runs = Number(runsArg)
const concurrency = Number(concArg)
const require = createRequire(import.meta.url)
const dataset = JSON.parse(readFileSync(new URL('../examples/dataset.json', import.meta.url), 'utf8'))
const model = { id: 'openai/gpt-4o-mini', url, apiKey: 'bench-key' }

/**
 * `raw`: the floor any client can reach against this judge — the same number of sequential
 * chat-completion POSTs per run (3 for answer relevancy), plain node:http with keep-alive, no
 * prompt building or parsing. Used to state the throughput bound for the judge as it really is.
 */
async function rawScorer() {
  const http = await import('node:http')
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity })
  const target = new URL(`${url}/chat/completions`)
  const kinds = ['statements', 'results', 'text']
  const bodyFor = (kind) =>
    JSON.stringify({
      model: 'gpt-4o-mini',
      temperature: 0,
      messages: [{ role: 'user', content: 'x'.repeat(1500) }],
      ...(kind === 'text' ? {} : { response_format: { type: 'json_schema', json_schema: { name: kind, strict: true, schema: { type: 'object', properties: { [kind]: { type: 'array' } } } } } }),
    })
  const bodies = kinds.map(bodyFor)
  const post = (body) =>
    new Promise((resolve, reject) => {
      const req = http.request(target, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume()
        res.on('end', resolve)
      })
      req.setNoDelay(true)
      req.on('error', reject)
      req.end(body)
    })
  return {
    async run() {
      for (const b of bodies) await post(b)
      return { score: 0 }
    },
  }
}

async function makeScorer() {
  if (lib === 'raw') return rawScorer()
  if (lib === 'oxeval') {
    const ox = require('../index.js')
    if (scorerName === 'answer-relevancy') return ox.createAnswerRelevancyScorer({ model })
    if (scorerName === 'factual-correctness') return ox.createFactualCorrectnessScorer({ model })
    if (scorerName === 'answer-accuracy') return ox.createAnswerAccuracyScorer({ model })
  }
  if (lib === 'mastra' && scorerName === 'answer-relevancy') {
    const { createAnswerRelevancyScorer } = await import('@mastra/evals/scorers/prebuilt')
    return createAnswerRelevancyScorer({ model })
  }
  throw new Error(`unknown ${lib}/${scorerName}`)
}

const scorer = await makeScorer()
// warm up: one run (module init, connection, JIT) not counted
await scorer.run({ ...dataset[0] })

let ok = 0
let failed = 0
let firstError
const scores = new Set()
const cpu0 = process.cpuUsage()
const t0 = performance.now()
let next = 0
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < runs) {
      const item = dataset[next++ % dataset.length]
      try {
        const r = await scorer.run({ ...item })
        if (typeof r.score === 'number' && Number.isFinite(r.score)) {
          ok++
          scores.add(r.score)
        } else failed++
      } catch (e) {
        failed++
        firstError ??= String(e?.message ?? e).slice(0, 300)
      }
    }
  }),
)
const wallMs = performance.now() - t0
const cpu = process.cpuUsage(cpu0)
console.log(
  JSON.stringify({
    lib,
    scorer: scorerName,
    runs,
    concurrency,
    ok,
    failed,
    firstError,
    wallMs: Math.round(wallMs),
    cpuMsPerRun: (cpu.user + cpu.system) / 1000 / runs,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    scores: [...scores].sort((a, b) => a - b),
  }),
)
process.exit(0)
