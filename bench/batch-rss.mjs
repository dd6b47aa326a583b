// The peak RSS of `oxeval run --batch` on a run sized for several full batches (issue 34):
//   node bench/batch-rss.mjs [--items 120000] [--max-requests 20000] [--max-items N] [--poll-ms 200]
// writes `items` distinct rows (answer relevancy: three judge requests each, so 360 000 batch
// lines at the default), starts the benchmark judge (bench/judge-proc.mjs, its own process:
// its memory is not counted; every batch is ready when created) and runs the real CLI on them
// with --batch, a config capping each batch at `max-requests` lines (so a stage of the items
// in flight goes as several batches) and the default --batch-max-items unless given. The
// CLI's peak RSS is its VmHWM (read from /proc every 100 ms until it exits). Prints one JSON
// line: { items, maxRequests, maxItems, code, wallMs, peakRssMb, scored, batches, batchLines }
// (batches: how many the judge was sent, batchLines: their lines).
import { spawn } from 'node:child_process'
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const flag = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] : dflt
}
const n = Number(flag('items', 120000))
const maxRequests = Number(flag('max-requests', 20000))
const maxItems = flag('max-items', undefined)
const pollMs = Number(flag('poll-ms', 200))

const dir = mkdtempSync(join(tmpdir(), 'oxeval-batch-rss-'))
const dataset = JSON.parse(readFileSync(join(root, 'examples/dataset.json'), 'utf8'))
const data = join(dir, 'items.jsonl')
await new Promise((resolve, reject) => {
  const w = createWriteStream(data)
  w.on('error', reject)
  for (let i = 0; i < n; i++) {
    const d = dataset[i % dataset.length]
    w.write(`${JSON.stringify({ id: `i${i}`, input: `${d.input} (#${i})`, output: `${d.output} (#${i})` })}\n`)
  }
  w.end(resolve)
})
const out = join(dir, 'out.jsonl')
const config = join(dir, 'batch.config.mjs')
writeFileSync(config, `export default { data: ${JSON.stringify(data)}, scorers: ['answer-relevancy'], cache: ${JSON.stringify(join(dir, 'cache'))}, out: ${JSON.stringify(out)}, batch: { pollMs: ${pollMs}, maxRequests: ${maxRequests} } }\n`)

const stats = join(dir, 'judge-stats.json')
const judge = spawn(process.execPath, [join(root, 'bench/judge-proc.mjs')], { env: { ...process.env, JUDGE_STATS_FILE: stats }, stdio: ['ignore', 'pipe', 'inherit'] })
const url = await new Promise((resolve, reject) => {
  let text = ''
  judge.stdout.on('data', (d) => {
    text += d
    if (text.includes('\n')) resolve(text.split('\n')[0].trim())
  })
  judge.on('exit', (c) => reject(new Error(`the judge exited (${c})`)))
})

const args = [join(root, 'cli/oxeval.mjs'), 'run', '--config', config, '--model', 'openai/gpt-4o-mini', '--model-url', url, '--api-key-env', 'BENCH_KEY', '--batch', '--no-progress', ...(maxItems ? ['--batch-max-items', maxItems] : [])]
const t0 = performance.now()
const child = spawn(process.execPath, args, { cwd: dir, env: { ...process.env, BENCH_KEY: 'bench-key' }, stdio: ['ignore', 'pipe', 'pipe'] })
let peakKb = 0
let stderr = ''
child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)))
child.stdout.resume()
const sample = setInterval(() => {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))
    if (m) peakKb = Math.max(peakKb, Number(m[1]))
  } catch {}
}, 100)
const code = await new Promise((resolve) => child.on('exit', (c) => resolve(c)))
clearInterval(sample)
const wallMs = Math.round(performance.now() - t0)
const judgeDone = new Promise((resolve) => judge.on('exit', resolve))
judge.kill()
await judgeDone
// the batches the judge was sent (its stats, written as it exits)
const { batches, batchLines } = JSON.parse(readFileSync(stats, 'utf8'))
// line by line: the output of a long run is larger than a string may be
let scored = 0
for await (const line of createInterface({ input: createReadStream(out), crlfDelay: Infinity })) {
  if (!line.includes('"type":"item"') || line.includes('"errors":{"')) continue
  const r = JSON.parse(line)
  if (r.type === 'item' && r.results && Object.keys(r.results).length) scored++
}
if (code !== 0) process.stderr.write(stderr)
console.log(JSON.stringify({ items: n, maxRequests, maxItems: maxItems ? Number(maxItems) : 'default', code, wallMs, peakRssMb: Math.round(peakKb / 1024), scored, batches, batchLines }))
rmSync(dir, { recursive: true, force: true })
