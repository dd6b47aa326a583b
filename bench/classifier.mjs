// The classifier scorer (createClassifierScorer, a choice question) built with oxeval (release
// build, an oxeval judge) and with @mastra/core 1.71's (its Classifier over an evaluation model
// that asks the same judge through the AI SDK's OpenAI chat model), each library in its own
// worker process, both against the same local judge process over HTTP answering the same JSON.
//
//   node bench/classifier.mjs [--runs 300]        (npm run bench -- --suite classifier)
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

const RUN = { input: 'How do I reset my password?', output: 'Fine. Click "Forgot password" and stop asking me.' }
const QUESTIONS = { tone: { type: 'choice', instructions: 'Which tone does the reply take?', criteria: { calm: 'measured', curt: 'short and cold', angry: 'hostile' } } }
const SCORES = { calm: 1, curt: 0.5, angry: 0 }
// the judge's JSON: oxeval's reply shape and the evaluation model's (both from one judge)
const STATED = { answer: 'curt', probabilities: [{ label: 'calm', probability: 0.2 }, { label: 'curt', probability: 0.7 }, { label: 'angry', probability: 0.1 }] }

if (mode === 'judge') {
  const { startJudgeServer } = await import('../testing/judge-server.mjs')
  const server = await startJudgeServer({ handler: () => ({ json: STATED }) })
  console.log(server.url)
  process.on('SIGTERM', async () => {
    await server.close()
    process.exit(0)
  })
} else if (mode === 'worker') {
  const [lib, url, runsArg] = rest
  const runs = Number(runsArg)
  const require = createRequire(import.meta.url)
  const state = ({ run }) => ({ question: run.input, reply: run.output })
  let scorer
  if (lib === 'oxeval') {
    const { createClassifierScorer } = require('../index.js')
    const model = { id: 'openai/gpt-4o-mini', url, apiKey: 'bench-key' }
    scorer = createClassifierScorer({ id: 'tone', model, cache: false, classifier: { id: 'reply', questions: QUESTIONS }, question: 'tone', state, scores: SCORES })
  } else {
    const { createClassifierScorer } = await import('@mastra/core/evals')
    const { Classifier } = await import('@mastra/core/classifier')
    const { createOpenAI } = await import('@ai-sdk/openai')
    const chat = createOpenAI({ baseURL: url, apiKey: 'bench-key' }).chat('gpt-4o-mini')
    // an evaluation model as a provider would write one: one chat call per evaluation
    const model = {
      specificationVersion: 'v4',
      provider: 'bench',
      modelId: 'gpt-4o-mini',
      supportedQuestionTypes: ['choice', 'score', 'boolean'],
      async doEvaluate({ state: s, questions }) {
        const prompt = [{ role: 'user', content: [{ type: 'text', text: JSON.stringify({ state: s, questions }) }] }]
        const r = await chat.doGenerate({ prompt, responseFormat: { type: 'json' } })
        const text = r.content.filter((p) => p.type === 'text').map((p) => p.text).join('')
        const stated = JSON.parse(text)
        const probabilities = Object.fromEntries(stated.probabilities.map((p) => [p.label, p.probability]))
        return { answers: { tone: { type: 'choice', choice: stated.answer, probabilities } }, usage: { inputTokens: r.usage.inputTokens.total, outputTokens: r.usage.outputTokens.total }, warnings: [] }
      },
    }
    scorer = createClassifierScorer({ id: 'tone', classifier: new Classifier({ id: 'reply', model, questions: QUESTIONS }), question: 'tone', state, scores: SCORES })
  }
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
      console.error(`classifier scorer ${lib}: ${runs} runs…`)
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
  console.log(`\n| classifier scorer (choice question, one judge call) | CPU ms/run oxeval | CPU ms/run @mastra/core 1.71 | ratio | peak RSS MB oxeval | peak RSS MB Mastra | scores |`)
  console.log('|---|---|---|---|---|---|---|')
  console.log(`| ${runs} sequential runs | ${o.cpuMsPerRun.toFixed(3)} | ${m.cpuMsPerRun.toFixed(2)} | ${(m.cpuMsPerRun / o.cpuMsPerRun).toFixed(1)}× | ${o.peakRssMb.toFixed(1)} | ${m.peakRssMb.toFixed(1)} | ${o.scores.join(',')} / ${m.scores.join(',')} |`)
}
