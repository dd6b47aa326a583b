// A custom scorer (createScorer: two prompt steps with a Zod schema each, a function score)
// built with oxeval (release build) and with @mastra/core's createScorer, each library in its
// own worker process, both against the same local judge process over HTTP that answers by the
// prompt's text (so both compute the same score).
//
//   node bench/custom.mjs [--runs 300]        (npm run bench -- --suite custom)
//
// Prints CPU ms per run (user + system of the worker, judge latency 0, sequential runs, one
// warm-up run not counted), the ratio and each worker's peak RSS. Internal modes: `judge` and
// `worker <lib> <judgeUrl> <runs>`.
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { createRequire } from 'node:module'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const self = fileURLToPath(import.meta.url)
const [mode, ...rest] = process.argv.slice(2)

const RUN = { input: 'What is the capital of France, and how tall is the Eiffel Tower?', output: 'Paris is the capital. The Eiffel Tower is 330 metres tall.' }

if (mode === 'judge') {
  const { startJudgeServer } = await import('../testing/judge-server.mjs')
  const reply = (req) => {
    if (req.user.includes('List the claims')) return { json: { claims: ['Paris is the capital of France.', 'The Eiffel Tower is 330 metres tall.'] } }
    if (req.user.includes('Judge each claim')) return { json: { verdicts: [{ claim: 'Paris is the capital of France.', supported: true }, { claim: 'The Eiffel Tower is 330 metres tall.', supported: true }] } }
    return { status: 500, content: 'unexpected prompt' }
  }
  const server = await startJudgeServer({ handler: reply })
  console.log(server.url)
  process.on('SIGTERM', async () => {
    await server.close()
    process.exit(0)
  })
} else if (mode === 'worker') {
  const [lib, url, runsArg] = rest
  const runs = Number(runsArg)
  const require = createRequire(import.meta.url)
  const { z } = require('zod')
  const model = { id: 'openai/gpt-4o-mini', url, apiKey: 'bench-key' }
  const createScorer = lib === 'oxeval' ? require('../index.js').createScorer : (await import('@mastra/core/evals')).createScorer
  const scorer = createScorer({ id: 'bench-claims', description: 'claims supported', judge: { model, instructions: 'You check claims.' } })
    .preprocess({
      description: 'claims',
      outputSchema: z.object({ claims: z.array(z.string()) }),
      createPrompt: ({ run }) => `List the claims of this answer: ${run.output}`,
    })
    .analyze({
      description: 'verdicts',
      outputSchema: z.object({ verdicts: z.array(z.object({ claim: z.string(), supported: z.boolean() })) }),
      createPrompt: ({ results }) => `Judge each claim: ${JSON.stringify(results.preprocessStepResult.claims)}`,
    })
    .generateScore(({ results }) => results.analyzeStepResult.verdicts.filter((v) => v.supported).length / results.analyzeStepResult.verdicts.length)
  await scorer.run({ ...RUN })
  let ok = 0
  let failed = 0
  let firstError
  const scores = new Set()
  const cpu0 = process.cpuUsage()
  for (let i = 0; i < runs; i++) {
    try {
      scores.add((await scorer.run({ ...RUN })).score)
      ok++
    } catch (e) {
      failed++
      firstError ??= String(e?.message ?? e).slice(0, 300)
    }
  }
  const cpu = process.cpuUsage(cpu0)
  console.log(JSON.stringify({ lib, runs, ok, failed, firstError, cpuMsPerRun: (cpu.user + cpu.system) / 1000 / runs, peakRssMb: process.resourceUsage().maxRSS / 1024, scores: [...scores] }))
  process.exit(0)
} else {
  const argv = process.argv.slice(2)
  const i = argv.indexOf('--runs')
  const runs = Number(i >= 0 ? argv[i + 1] : 300)
  console.error('building the release addon…')
  if (spawnSync('node', ['scripts/ensure-built.mjs', '--release'], { cwd: root, stdio: 'inherit' }).status !== 0) process.exit(1)
  const child = spawn('node', [self, 'judge'], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] })
  const [url] = await once(createInterface({ input: child.stdout }), 'line')
  const rows = {}
  try {
    for (const lib of ['oxeval', 'mastra']) {
      console.error(`custom scorer ${lib}: ${runs} runs…`)
      const r = spawnSync('node', [self, 'worker', lib, url, String(runs)], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
      const row = JSON.parse(r.stdout.trim().split('\n').pop() || 'null')
      if (!row || row.failed) throw new Error(`${lib}: ${row ? row.firstError : r.stderr.slice(-2000)}`)
      rows[lib] = row
    }
  } finally {
    child.kill('SIGTERM')
  }
  const o = rows.oxeval
  const m = rows.mastra
  console.log(`\n| custom scorer (2 prompt steps, Zod, function score) | CPU ms/run oxeval | CPU ms/run @mastra/core createScorer | ratio | peak RSS MB oxeval | peak RSS MB Mastra | scores |`)
  console.log('|---|---|---|---|---|---|---|')
  console.log(`| ${runs} sequential runs | ${o.cpuMsPerRun.toFixed(3)} | ${m.cpuMsPerRun.toFixed(2)} | ${(m.cpuMsPerRun / o.cpuMsPerRun).toFixed(1)}× | ${o.peakRssMb.toFixed(1)} | ${m.peakRssMb.toFixed(1)} | ${o.scores.join(',')} / ${m.scores.join(',')} |`)
}
