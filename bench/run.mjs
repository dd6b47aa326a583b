// `npm run bench`: oxeval (release build) vs @mastra/evals and vs ragas 0.4.3 (Python), side by
// side in one run against the same local judge process over HTTP.
// Usage: npm run bench [-- --runs 1000] [--only oxeval|mastra|ragas] [--suite mastra,throughput,rag,runevals,ragas,code,agent,custom,classifier,batch,deadjudge,store|all]
//        [--dead-items 2000,20000,100000]
//        [--batch-items 10000] [--batch-delay-ms 3000] [--batch-poll-ms 250] [--batch-concurrency 64]
//        [--code-runs 5000] [--code-items 1000] [--custom-runs 300] [--classifier-runs 300] [--agent-runs 300] [--agent-evals-items 200]
//        [--rag-runs 300]
//        [--evals-items 1000] [--evals-concurrency 16] [--evals-big-items 100000]
//        [--ragas-runs 200]
// The ragas suite creates (or reuses) a Python venv in .bench/venv from bench/ragas/requirements.txt.
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const argv = process.argv.slice(2)
const flag = (name, dflt) => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : dflt
}
const runs = Number(flag('runs', 1000))
const only = flag('only', '')

console.log('building the release addon…')
const b = spawnSync('node', ['scripts/ensure-built.mjs', '--release'], { cwd: root, stdio: 'inherit' })
if (b.status !== 0) process.exit(1)

async function startJudge(latencyMs, env = {}) {
  const child = spawn('node', ['bench/judge-proc.mjs'], { cwd: root, env: { ...process.env, ...env, JUDGE_LATENCY_MS: String(latencyMs) }, stdio: ['ignore', 'pipe', 'inherit'] })
  const [url] = await once(createInterface({ input: child.stdout }), 'line')
  const exited = once(child, 'exit')
  return {
    url,
    stop: () => child.kill('SIGTERM'),
    stopAndWait: async () => {
      child.kill('SIGTERM')
      await exited
    },
  }
}

function worker(lib, scorer, url, n, conc) {
  const r = spawnSync('node', ['bench/worker.mjs', lib, scorer, url, String(n), String(conc)], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  const line = r.stdout.trim().split('\n').pop()
  try {
    return JSON.parse(line)
  } catch {
    throw new Error(`${lib} worker failed: ${r.stderr.slice(-2000)}`)
  }
}

const suites = flag('suite', 'all').split(',')
const want = (name) => suites.includes('all') || suites.includes(name)

const rows = []
const judge = await startJudge(0)
try {
  if (want('mastra'))
  for (const conc of [1, 50]) {
    for (const lib of ['oxeval', 'mastra']) {
      if (only && lib !== only) continue
      process.stdout.write(`answer-relevancy ${lib} ×${runs} at concurrency ${conc}… `)
      const r = worker(lib, 'answer-relevancy', judge.url, runs, conc)
      console.log(`${r.wallMs} ms${r.failed ? ` (${r.failed} failed: ${r.firstError})` : ''}`)
      rows.push(r)
    }
  }
} finally {
  judge.stop()
}

const f = (n, d = 2) => Number(n).toFixed(d)
if (rows.length) {
  console.log('\n| scorer | concurrency | library | runs ok | wall (ms) | CPU ms/run | peak RSS (MB) |')
  console.log('|---|---|---|---|---|---|---|')
  for (const r of rows) {
    console.log(`| ${r.scorer} | ${r.concurrency} | ${r.lib} | ${r.ok}/${r.runs} | ${r.wallMs} | ${f(r.cpuMsPerRun, 3)} | ${f(r.peakRssMb, 1)} |`)
  }
}
const ratios = []
for (const conc of [1, 50]) {
  const o = rows.find((r) => r.lib === 'oxeval' && r.concurrency === conc)
  const m = rows.find((r) => r.lib === 'mastra' && r.concurrency === conc)
  if (o && m) ratios.push(`concurrency ${conc}: mastra/oxeval CPU per run ${f(m.cpuMsPerRun / o.cpuMsPerRun, 1)}×, wall ${f(m.wallMs / o.wallMs, 1)}×, peak RSS ${f(m.peakRssMb / o.peakRssMb, 1)}×`)
}
if (ratios.length) console.log(`\n${ratios.join('\n')}`)

// Throughput against a judge with 50 ms latency: 1000 runs × 3 sequential calls × 50 ms / 64
// concurrent runs = 2.34 s is the floor; the target is ≤ 1.05× that.
if (want('throughput')) {
  const statsFile = join(tmpdir(), `oxeval-bench-throughput-${process.pid}.json`)
  rmSync(statsFile, { force: true })
  const slow = await startJudge(50, { JUDGE_STATS_FILE: statsFile })
  const n = Number(flag('throughput-runs', 1000))
  const conc = 64
  let r
  let raw
  try {
    raw = worker('raw', 'answer-relevancy', slow.url, n, conc)
    r = worker('oxeval', 'answer-relevancy', slow.url, n, conc)
  } finally {
    await slow.stopAndWait()
  }
  const stats = existsSync(statsFile) ? JSON.parse(readFileSync(statsFile, 'utf8')) : {}
  rmSync(statsFile, { force: true })
  const bound = (n * 3 * 50) / conc
  const service = stats.meanServiceMs ?? 50
  const effective = (n * 3 * service) / conc
  console.log(
    `\nthroughput: ${n} answer-relevancy runs, 50 ms judge latency, concurrency ${conc}: wall ${r.wallMs} ms vs bound ${bound.toFixed(0)} ms = ${(r.wallMs / bound).toFixed(3)}×` +
      `; the judge's own measured service time was ${service.toFixed(2)} ms per call, so the bound for this judge is ${effective.toFixed(0)} ms = ${(r.wallMs / effective).toFixed(3)}×` +
      ` (${r.ok} ok, ${r.failed} failed, CPU ${r.cpuMsPerRun.toFixed(3)} ms/run, peak RSS ${r.peakRssMb.toFixed(1)} MB)`,
  )
  console.log(
    `  floor for this judge, measured: a raw node:http client making the same 3 sequential POSTs per run at concurrency ${conc} took ${raw.wallMs} ms → oxeval at ${(r.wallMs / raw.wallMs).toFixed(3)}× of it`,
  )
}

// The Mastra RAG and answer-quality scorers, each side by side with @mastra/evals on the same
// judge (bench/rag-a.mjs: faithfulness, hallucination, context precision, context recall;
// bench/rag-b.mjs: context relevance (LLM), answer similarity, summarization, noise sensitivity).
if (want('rag')) {
  for (const [script, args] of [
    ['bench/rag-a.mjs', ['--runs', flag('rag-runs', '300'), '--slow-runs', '20']],
    ['bench/rag-b.mjs', ['--runs', flag('rag-runs', '300'), '--latency-runs', '30']],
  ]) {
    console.log(`\n${script} ${args.join(' ')}`)
    const r = spawnSync('node', [script, ...args], { cwd: root, stdio: 'inherit' })
    if (r.status !== 0) console.log(`${script} failed (status ${r.status})`)
  }
}

// The classifier scorer (createClassifierScorer) built with oxeval and with @mastra/core 1.71's
// on the same judge (bench/classifier.mjs).
if (want('classifier')) {
  console.log(`\nbench/classifier.mjs --runs ${flag('classifier-runs', '300')}`)
  const r = spawnSync('node', ['bench/classifier.mjs', '--runs', flag('classifier-runs', '300')], { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) console.log(`bench/classifier.mjs failed (status ${r.status})`)
}

// A custom scorer (createScorer) built with oxeval and with @mastra/core's createScorer on the
// same judge (bench/custom.mjs).
if (want('custom')) {
  console.log(`\nbench/custom.mjs --runs ${flag('custom-runs', '300')}`)
  const r = spawnSync('node', ['bench/custom.mjs', '--runs', flag('custom-runs', '300')], { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) console.log(`bench/custom.mjs failed (status ${r.status})`)
}

// The text code scorers (no judge), oxeval vs @mastra/evals on the same generated runs, CPU per
// run (bench/code-text.mjs; the addon is already the release build here).
if (want('code')) {
  for (const inputs of ['typical', 'stress']) {
    const r = spawnSync('node', ['bench/code-text.mjs', '--no-build', '--runs', flag('code-runs', '2000'), '--inputs', inputs], { cwd: root, stdio: 'inherit' })
    if (r.status !== 0) console.log(`bench/code-text.mjs failed (status ${r.status})`)
  }
}

// Mastra's seven agent and safety LLM scorers, each side by side with @mastra/evals on the same
// judge (bench/agent.mjs).
if (want('agent')) {
  const args = ['--runs', flag('agent-runs', '300'), '--slow-runs', '20']
  console.log(`\nbench/agent.mjs ${args.join(' ')}`)
  const r = spawnSync('node', ['bench/agent.mjs', ...args], { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) console.log(`bench/agent.mjs failed (status ${r.status})`)
  // a multi-turn runEvals, oxeval's vs Mastra's, on the same Agent target and mock model
  const evalArgs = ['--items', flag('agent-evals-items', '200'), '--concurrency', '8', '--repeat', flag('agent-evals-repeat', '3')]
  console.log(`\nbench/agent-evals.mjs ${evalArgs.join(' ')}`)
  const e = spawnSync('node', ['bench/agent-evals.mjs', ...evalArgs], { cwd: root, stdio: 'inherit' })
  if (e.status !== 0) console.log(`bench/agent-evals.mjs failed (status ${e.status})`)
}

// runEvals: 1 000 items × 2 scorers (answer relevancy + faithfulness) against the 50 ms judge,
// oxeval's runEvals (no target) vs Mastra's runEvals (a mock-model Agent target, the lightest it
// accepts), same concurrency; then 100 000 items with keepItems: false against the instant judge
// at concurrency 8 (the default) and 64 (RSS sampled every second: the plateau is the median of
// the second half).
if (want('batch')) {
  // batch mode (issue 24): 10 000 items × answer relevancy through a judge that ends each batch a
  // fixed delay after its creation; batch vs direct runs of the same items
  const n = Number(flag('batch-items', 10000))
  const delay = Number(flag('batch-delay-ms', 3000))
  const poll = Number(flag('batch-poll-ms', 250))
  const conc = Number(flag('batch-concurrency', 64))
  const judgeB = await startJudge(0, { JUDGE_BATCH_DELAY_MS: String(delay) })
  const res = {}
  try {
    for (const mode of ['batch', 'direct-cache', 'direct']) {
      process.stdout.write(`batch suite: ${mode}, ${n} items × answer relevancy… `)
      const dir = join(tmpdir(), `oxeval-bench-batch-${process.pid}-${mode}`)
      const r = spawnSync('node', ['bench/batch-worker.mjs', mode, judgeB.url, String(n), String(conc), String(poll), dir], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
      const line = r.stdout.trim().split('\n').pop()
      try {
        res[mode] = JSON.parse(line)
      } catch {
        throw new Error(`batch worker (${mode}) failed: ${r.stderr.slice(-2000)}`)
      }
      const x = res[mode]
      console.log(`${x.wallMs} ms wall, ${x.cpuMs} ms CPU (${x.cpuMsPerItem.toFixed(3)} ms/item), peak RSS ${x.peakRssMb} MB, ${x.scored}/${n} scored, ${x.usage.calls} calls${x.stages ? `, ${x.stages} stages (batches per stage ${x.batches.join('/')})` : ''}`)
    }
  } finally {
    await judgeB.stopAndWait()
  }
  const bt = res.batch
  const billed = (u) => u.totalTokens - 0.5 * (u.batchTotalTokens || 0)
  console.log(`\n| mode | wall (ms) | CPU ms/item | peak RSS (MB) | judge calls | tokens | billed tokens |`)
  console.log('|---|---|---|---|---|---|---|')
  for (const m of ['batch', 'direct-cache', 'direct']) {
    const x = res[m]
    console.log(`| ${m} | ${x.wallMs} | ${x.cpuMsPerItem.toFixed(3)} | ${x.peakRssMb} | ${x.usage.calls} | ${x.usage.totalTokens} | ${Math.round(billed(x.usage))} |`)
  }
  console.log(`batch wall / (stages × delay) = ${bt.wallMs} / (${bt.stages} × ${delay}) = ${(bt.wallMs / (bt.stages * delay)).toFixed(3)}`)
  console.log(`CPU per item, batch / direct with the same disk cache = ${(bt.cpuMsPerItem / res['direct-cache'].cpuMsPerItem).toFixed(2)}× (/ direct without a cache: ${(bt.cpuMsPerItem / res.direct.cpuMsPerItem).toFixed(2)}×)`)
  console.log(`billed tokens, batch / direct = ${(billed(bt.usage) / billed(res.direct.usage)).toFixed(3)}`)
  console.log(`scores: batch ${JSON.stringify(bt.scores)}, direct ${JSON.stringify(res.direct.scores)}`)
}

// a judge that dies mid-run (issue 34): the time from its death (after 200 items) to runEvals'
// outcome, at several item counts, concurrency 8 (the default)
if (want('deadjudge')) {
  const counts = flag('dead-items', '2000,20000,100000').split(',').map(Number)
  console.log('\n| items | died after | scored | items that tried the dead judge | recorded as not run | death → outcome (ms) | peak RSS (MB) |')
  console.log('|---|---|---|---|---|---|---|')
  for (const n of counts) {
    const r = spawnSync('node', ['bench/dead-judge-worker.mjs', String(n), '8', '200'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    let x
    try {
      x = JSON.parse(r.stdout.trim().split('\n').pop())
    } catch {
      throw new Error(`dead-judge worker failed: ${r.stderr.slice(-2000)}`)
    }
    console.log(`| ${x.items} | ${x.dieAfter} | ${x.scored} | ${x.network} | ${x.stopped} | ${x.msDeathToOutcome} | ${x.peakRssMb} |`)
  }
}

// the results store (bench/store.mjs): recording overhead on a large runEvals, history reads
if (suites.includes('store')) {
  const r = spawnSync('node', ['bench/store.mjs', '--items', String(flag('store-items', 100000)), '--runs', String(flag('store-runs', 1000))], { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) process.exitCode = 1
}

if (want('runevals')) {
  const evalsWorker = (lib, url, items, conc, keep, nodeFlags = []) => {
    const r = spawnSync('node', [...nodeFlags, 'bench/run-evals-worker.mjs', lib, url, String(items), String(conc), String(keep)], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    const line = r.stdout.trim().split('\n').pop()
    try {
      return JSON.parse(line)
    } catch {
      throw new Error(`${lib} runEvals worker failed: ${r.stderr.slice(-2000)}`)
    }
  }
  const n = Number(flag('evals-items', 1000))
  const conc = Number(flag('evals-concurrency', 16))
  const slow = await startJudge(50)
  const rows = []
  try {
    for (const lib of ['oxeval', 'mastra']) {
      if (only && lib !== only) continue
      process.stdout.write(`runEvals ${lib}: ${n} items × 2 scorers, concurrency ${conc}, 50 ms judge… `)
      const r = evalsWorker(lib, slow.url, n, conc, true)
      rows.push(r)
      console.log(`${r.wallMs} ms wall, ${r.cpuMs} ms CPU, peak RSS ${r.peakRssMb} MB, ${r.totalItems} items, scores ${JSON.stringify(r.scores)}`)
    }
  } finally {
    await slow.stopAndWait()
  }
  const o = rows.find((r) => r.lib === 'oxeval')
  const m = rows.find((r) => r.lib === 'mastra')
  if (o && m) console.log(`runEvals ${n} items: Mastra/oxeval wall ${(m.wallMs / o.wallMs).toFixed(1)}×, CPU ${(m.cpuMs / o.cpuMs).toFixed(1)}×, peak RSS ${(m.peakRssMb / o.peakRssMb).toFixed(1)}×`)
  const big = Number(flag('evals-big-items', 100000))
  if (big > 0 && (!only || only === 'oxeval')) {
    const fast = await startJudge(0)
    try {
      // the default concurrency (8), then 64 items in flight
      for (const [c, flags] of [[8, []], [64, []], [8, ['--max-semi-space-size=4']]]) {
        process.stdout.write(`runEvals oxeval: ${big} items × 2 scorers, keepItems: false, concurrency ${c}${flags.length ? ` (node ${flags.join(' ')})` : ''}, instant judge… `)
        const r = evalsWorker('oxeval', fast.url, big, c, false, flags)
        const tail = r.rssSamplesMb.slice(Math.floor(r.rssSamplesMb.length / 2)).sort((a, b) => a - b)
        const plateau = tail.length ? tail[Math.floor(tail.length / 2)] : r.peakRssMb
        console.log(`${r.wallMs} ms, ${r.totalItems} items, coverage ${JSON.stringify(Object.values(r.coverage).map((x) => `${x.scored}/${x.total}`))}, RSS plateau ${plateau} MB (second-half median; max ${Math.max(...tail)} MB), peak ${r.peakRssMb} MB`)
      }
    } finally {
      await fast.stopAndWait()
    }
  }
}

// The code scorers and checks (bench/code.mjs): each oxeval vs @mastra/evals on the same
// generated inputs, CPU per run; then runEvals with four checks as gates over 1 000 items.
if (want('code')) {
  const n = flag('code-runs', '5000')
  const items = flag('code-items', '1000')
  const lines = (args) => {
    const r = spawnSync('node', ['bench/code.mjs', ...args], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    if (r.status !== 0) throw new Error(`bench/code.mjs ${args.join(' ')} failed: ${r.stderr.slice(-2000)}`)
    return r.stdout.trim().split('\n').map((l) => JSON.parse(l))
  }
  for (const inputs of ['typical', 'stress']) {
    const ox = lines(['scorers', 'oxeval', n, inputs])
    const ma = lines(['scorers', 'mastra', n, inputs])
    console.log(`\ncode scorers and checks, ${inputs} inputs: ${n} runs each (sequential, awaited; after 1 000 warm-up runs; the median of five rounds), CPU µs per run`)
    console.log('| scorer | oxeval CPU µs/run | Mastra CPU µs/run | Mastra/oxeval | same mean score (runs both reject) |')
    console.log('|---|---|---|---|---|')
    for (const o of ox) {
      const m = ma.find((x) => x.scorer === o.scorer)
      console.log(`| ${o.scorer} | ${f(o.cpuUsPerRun, 1)} | ${f(m.cpuUsPerRun, 1)} | ${f(m.cpuUsPerRun / o.cpuUsPerRun, 1)}× | ${Math.abs(o.meanScore - m.meanScore) < 1e-9 ? 'yes' : `no (${o.meanScore} vs ${m.meanScore})`} (${o.errors} / ${m.errors}) |`)
    }
  }
  const [nat] = lines(['native', '200000'])
  console.log(`the N-API crossing: a bare native call ${f(nat.bareCallUs, 2)} µs, a utils helper on one message ${f(nat.helperCallUs, 2)} µs`)
  for (const inputs of ['typical', 'stress']) {
    const [eo] = lines(['evals', 'oxeval', items, inputs])
    const [em] = lines(['evals', 'mastra', items, inputs])
    console.log(`runEvals, ${items} items (${inputs} outputs), gates calledTool/includes/noToolErrors/maxToolCalls, concurrency 8: oxeval ${f(eo.cpuMs, 0)} ms CPU (${f(eo.wallMs, 0)} ms wall); Mastra ${f(em.cpuMs, 0)} ms CPU (${f(em.wallMs, 0)} ms wall, its mock-Agent target included; the same run with one trivial gate: ${f(em.targetOnlyCpuMs, 0)} ms CPU) → Mastra/oxeval CPU ${f(em.cpuMs / eo.cpuMs, 1)}×, gates alone ${f((em.cpuMs - em.targetOnlyCpuMs) / eo.cpuMs, 1)}×`)
  }
}

// oxeval vs ragas 0.4.3 (ragas.metrics.collections, Python): FactualCorrectness (mode f1) and
// NVIDIA AnswerAccuracy, N sequential scorings each against the instant judge and against a judge
// with 50 ms latency. Both libraries get byte-identical canned replies (judge-proc.mjs), so they
// must compute the same score; each worker gets its own judge, which counts the calls it answered.
if (want('ragas')) {
  const n = Number(flag('ragas-runs', 200))
  const python = ensureRagasVenv()
  const statsFile = join(tmpdir(), `oxeval-bench-judge-${process.pid}.json`)
  const ragasRows = []
  for (const latency of [0, 50]) {
    for (const scorer of ['factual-correctness', 'answer-accuracy']) {
      for (const lib of ['oxeval', 'ragas']) {
        if (only && lib !== only) continue
        process.stdout.write(`${scorer} ${lib} ×${n} sequential, judge latency ${latency} ms… `)
        rmSync(statsFile, { force: true })
        const judge = await startJudge(latency, { JUDGE_STATS_FILE: statsFile })
        let r
        try {
          r = lib === 'oxeval' ? worker('oxeval', scorer, judge.url, n, 1) : ragasWorker(python, scorer, judge.url, n)
        } finally {
          await judge.stopAndWait()
        }
        const calls = existsSync(statsFile) ? JSON.parse(readFileSync(statsFile, 'utf8')).calls : {}
        rmSync(statsFile, { force: true })
        // the judge also answered the worker's warm-up scoring
        r.callsPerScoring = Object.values(calls).reduce((a, b) => a + b, 0) / (n + 1)
        r.calls = calls
        r.latency = latency
        console.log(`${r.wallMs} ms${r.failed ? ` (${r.failed} failed: ${r.firstError})` : ''}, judge calls ${JSON.stringify(calls)}`)
        ragasRows.push(r)
      }
    }
  }

  const name = { 'factual-correctness': 'FactualCorrectness f1', 'answer-accuracy': 'AnswerAccuracy' }
  console.log('\n| scorer | judge latency | library | scorings ok | wall (ms) | wall ms/scoring | CPU ms/scoring | judge calls/scoring | peak RSS (MB) |')
  console.log('|---|---|---|---|---|---|---|---|---|')
  for (const r of ragasRows) {
    console.log(
      `| ${name[r.scorer]} | ${r.latency} ms | ${r.lib} | ${r.ok}/${r.runs} | ${r.wallMs} | ${f(r.wallMs / r.runs)} | ${f(r.cpuMsPerRun, 3)} | ${f(r.callsPerScoring)} | ${f(r.peakRssMb, 1)} |`,
    )
  }
  const find = (lib, scorer, latency) => ragasRows.find((r) => r.lib === lib && r.scorer === scorer && r.latency === latency)
  const ratios = []
  for (const latency of [0, 50]) {
    for (const scorer of ['factual-correctness', 'answer-accuracy']) {
      const o = find('oxeval', scorer, latency)
      const g = find('ragas', scorer, latency)
      if (o && g)
        ratios.push(
          `${name[scorer]}, judge latency ${latency} ms: ragas/oxeval CPU per scoring ${f(g.cpuMsPerRun / o.cpuMsPerRun, 1)}×, wall per scoring ${f(g.wallMs / o.wallMs, 1)}×, peak RSS ${f(g.peakRssMb / o.peakRssMb, 1)}×`,
        )
    }
  }
  if (ratios.length) console.log(`\n${ratios.join('\n')}`)

  // score cross-check: identical replies → identical scores (each worker reports the distinct
  // scores of its scorings; every sample gets the same replies, so one value per worker)
  const checks = []
  for (const scorer of ['factual-correctness', 'answer-accuracy']) {
    const o = ragasRows.filter((r) => r.lib === 'oxeval' && r.scorer === scorer).flatMap((r) => r.scores ?? [])
    const g = ragasRows.filter((r) => r.lib === 'ragas' && r.scorer === scorer).flatMap((r) => r.scores ?? [])
    if (!o.length || !g.length) continue
    const uo = [...new Set(o)]
    const ug = [...new Set(g)]
    const match = uo.length === 1 && ug.length === 1 && Math.abs(uo[0] - ug[0]) < 1e-12
    checks.push(`${name[scorer]}: oxeval ${uo.join(', ')} vs ragas ${ug.join(', ')} → ${match ? 'match' : 'MISMATCH'}`)
  }
  if (checks.length) console.log(`\nscore cross-check (identical judge replies):\n${checks.join('\n')}`)
}

// Ragas's no-judge metrics: oxeval vs ragas 0.4.3 CPU per run on the parity samples
// (bench/ragas-nonllm.mjs; its table prints the ratios with and without ragas's import)
if (want('ragas') && only !== 'oxeval' && only !== 'ragas') {
  const python = ensureRagasVenv()
  console.log('\nRagas no-judge metrics (bench/ragas-nonllm.mjs)…')
  const r = spawnSync('node', ['bench/ragas-nonllm.mjs', '--python', python], { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) process.exitCode = 1
}

/** Creates .bench/venv from bench/ragas/requirements.txt, or reuses it when it already has those pins. */
function ensureRagasVenv() {
  const venv = join(root, '.bench', 'venv')
  const python = join(venv, 'bin', 'python')
  const reqFile = join(root, 'bench', 'ragas', 'requirements.txt')
  const pins = readFileSync(reqFile, 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((l) => l.split('=='))
  const check = `import importlib.metadata as m, sys
def version(name):
    try:
        return m.version(name)
    except m.PackageNotFoundError:
        return 'missing'
want = ${JSON.stringify(Object.fromEntries(pins))}
bad = [f'{k} {version(k)} (want {v})' for k, v in want.items() if version(k) != v]
print('; '.join(bad))
sys.exit(1 if bad else 0)`
  if (existsSync(python)) {
    const r = spawnSync(python, ['-c', check], { encoding: 'utf8' })
    if (r.status === 0) return python
    console.log(`ragas venv ${venv}: ${(r.stdout || r.stderr).trim()} → reinstalling`)
  } else {
    const base = process.env.PYTHON || 'python3'
    console.log(`creating the ragas venv ${venv} (${base} -m venv)…`)
    mkdirSync(join(root, '.bench'), { recursive: true })
    const v = spawnSync(base, ['-m', 'venv', venv], { stdio: 'inherit' })
    if (v.status !== 0) {
      console.error(`could not create ${venv}: set PYTHON to a Python ≥ 3.9 with the venv module`)
      process.exit(1)
    }
  }
  console.log(`pip install -r bench/ragas/requirements.txt (once; reused afterwards)…`)
  const pip = spawnSync(python, ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '-r', reqFile], { stdio: 'inherit' })
  if (pip.status !== 0 || spawnSync(python, ['-c', check], { stdio: 'inherit' }).status !== 0) {
    console.error('installing ragas failed')
    process.exit(1)
  }
  return python
}

function ragasWorker(python, scorer, url, n) {
  const r = spawnSync(python, ['bench/ragas/worker.py', scorer, url, String(n)], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, RAGAS_DO_NOT_TRACK: 'true' },
  })
  const line = r.stdout.trim().split('\n').pop()
  try {
    return JSON.parse(line)
  } catch {
    throw new Error(`ragas worker failed: ${r.stderr.slice(-2000)}`)
  }
}
