// `npm run soak`: ≥ 10 000 answer-relevancy runs at concurrency 64 against the fault-injecting
// judge (20 % of requests fail: 429/5xx/reset/hang/truncated/invalid/schema-invalid/empty/length,
// seeded). Reports runs succeeded, runs failed with typed errors, lost runs (must be 0), crashes
// (must be 0) and RSS over time (must stay flat).
//   npm run soak [-- --runs 10000 --concurrency 64 --rate 0.2 --seed 7]
//   SOAK_NODE_FLAGS='--max-semi-space-size=1' npm run soak …   (Node flags for the measured process)
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const argv = process.argv.slice(2)
const flag = (name, dflt) => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : dflt
}

if (!process.env.OXEVAL_SOAK_CHILD) {
  // parent: start the judge, run the soak in a child (so a crash is observed, not suffered)
  const judge = spawn('node', ['bench/judge-proc.mjs'], {
    cwd: root,
    env: { ...process.env, JUDGE_FAULT_RATE: flag('rate', '0.2'), JUDGE_FAULT_SEED: flag('seed', '7'), JUDGE_HANG_MS: '2000' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const [url] = await once(createInterface({ input: judge.stdout }), 'line')
  const child = spawn(process.execPath, [...(process.env.SOAK_NODE_FLAGS ? process.env.SOAK_NODE_FLAGS.split(' ') : []), '--expose-gc', fileURLToPath(import.meta.url), ...argv], {
    cwd: root,
    env: { ...process.env, OXEVAL_SOAK_CHILD: '1', OXEVAL_SOAK_URL: url },
    stdio: 'inherit',
  })
  const [code, signal] = await once(child, 'exit')
  judge.kill('SIGTERM')
  const crashed = code !== 0
  console.log(`crashes: ${crashed ? `1 (exit code ${code}, signal ${signal})` : 0}`)
  process.exit(crashed ? 1 : 0)
}

const { createAnswerRelevancyScorer, ScorerRunError } = await import('../index.js').then((m) => m.default ?? m)
const runs = Number(flag('runs', 10000))
const concurrency = Number(flag('concurrency', 64))
const scorer = createAnswerRelevancyScorer({
  model: { id: 'openai/gpt-4o-mini', url: process.env.OXEVAL_SOAK_URL, apiKey: 'soak-key' },
  modelSettings: { timeoutMs: 500, maxRetries: 2, retryDelayMs: 10 },
})
const DEADLINE_MS = 8000
const mb = () => process.memoryUsage().rss / 1048576

let started = 0
let settled = 0
let ok = 0
let badScore = 0
const typed = {}
const untyped = []
const rss = []
const inflight = new Set()

// warm-up, then the baseline RSS
await Promise.allSettled(Array.from({ length: 64 }, (_, i) => scorer.run({ input: 'q', output: `warm ${i}` })))
globalThis.gc?.()
const rssStart = mb()
const t0 = performance.now()

async function one(i) {
  const id = `soak-${i}`
  inflight.add(id)
  try {
    const r = await scorer.run({ runId: id, input: 'What is the capital of France?', output: `Paris is the capital. Item ${i}.` }, { deadlineMs: DEADLINE_MS })
    if (typeof r.score === 'number' && Number.isFinite(r.score) && r.runId === id) ok++
    else badScore++
  } catch (e) {
    if (e instanceof ScorerRunError && typeof e.code === 'string' && e.failedStep) typed[e.code] = (typed[e.code] ?? 0) + 1
    else untyped.push(String(e?.stack ?? e).slice(0, 300))
  } finally {
    inflight.delete(id)
    settled++
    if (settled % 1000 === 0) rss.push(Math.round(mb()))
  }
}

let next = 0
const workers = Array.from({ length: concurrency }, async () => {
  while (next < runs) {
    const i = next++
    started++
    await one(i)
  }
})
// watchdog: every run has an 8 s deadline; anything unsettled long after that is lost
const watchdog = new Promise((resolve) => setTimeout(resolve, Math.max(120_000, (runs / concurrency) * DEADLINE_MS)).unref())
await Promise.race([Promise.all(workers), watchdog])
const wallS = (performance.now() - t0) / 1000
globalThis.gc?.()
const rssEnd = mb()
const failedTyped = Object.values(typed).reduce((a, b) => a + b, 0)
console.log(`soak: ${runs} runs at concurrency ${concurrency}, ${flag('rate', '0.2')} fault rate (seed ${flag('seed', '7')}), ${wallS.toFixed(1)} s`)
console.log(`runs succeeded: ${ok}`)
console.log(`runs failed with typed errors: ${failedTyped} ${JSON.stringify(typed)}`)
console.log(`runs failed untyped: ${untyped.length}${untyped.length ? `\n  ${untyped.slice(0, 3).join('\n  ')}` : ''}`)
console.log(`results without a finite score: ${badScore}`)
console.log(`lost runs: ${runs - settled} (started ${started}, settled ${settled}, still in flight ${inflight.size})`)
console.log(`RSS: start ${rssStart.toFixed(1)} MB, end ${rssEnd.toFixed(1)} MB, per 1000 runs: ${rss.join(', ')}`)
process.exit(runs - settled === 0 && untyped.length === 0 && badScore === 0 ? 0 : 2)
