// `npm run demo`: score the bundled Q&A dataset with EVERY LLM scorer of the registry, through the
// same path a user takes from a terminal: `oxeval run` (cli/oxeval.mjs) → runEvals → the Rust
// pipelines. It prints the CLI's summary table and writes the results (JSONL) and the HTML
// report under .demo/. Then the tool-calling agent runs of examples/tool-calls.json go through
// Mastra's checks as gates and the code scorers (no judge), and multi-turn conversations run
// on a real @mastra/core Agent (examples/agent.config.mjs).
//
// With OXEVAL_MODEL set (e.g. OXEVAL_MODEL=openai/gpt-4o-mini plus OPENAI_API_KEY) it uses that
// real judge. Without it, it starts oxeval's local SCRIPTED judge on 127.0.0.1 (a word-overlap
// heuristic speaking the OpenAI wire format) so the whole pipeline runs offline.
import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { heuristicJudge, startJudgeServer } from '../testing/judge-server.mjs'

const require = createRequire(import.meta.url)
const SCORERS = require('../generated/scorers.js')
const root = fileURLToPath(new URL('..', import.meta.url))
const outDir = fileURLToPath(new URL('../.demo/', import.meta.url))
mkdirSync(outDir, { recursive: true })
// every run of the demo is recorded in its own results store (oxeval history --store .demo/store.db)
process.env.OXEVAL_STORE = `${outDir}store.db`

let server
const modelArgs = []
if (process.env.OXEVAL_MODEL) {
  console.log(`Judge: ${process.env.OXEVAL_MODEL} (real LLM judge from OXEVAL_MODEL)\n`)
  modelArgs.push('--model', process.env.OXEVAL_MODEL)
} else {
  server = await startJudgeServer({ handler: heuristicJudge })
  modelArgs.push('--model', 'openai/scripted-judge', '--model-url', server.url, '--api-key-env', 'OXEVAL_DEMO_KEY')
  console.log('*** SCRIPTED JUDGE: OXEVAL_MODEL is not set, so the judgments below come from a local scripted')
  console.log(`*** judge (word-overlap heuristic) at ${server.url}, not from an LLM. Set OXEVAL_MODEL=provider/model`)
  console.log('*** and the provider API key (e.g. OPENAI_API_KEY) to use a real judge.\n')
}

// every LLM scorer but the classifier scorer, whose `state` is a function (not a CLI option)
const DEMO_LLM = SCORERS.filter((s) => s.kind !== 'code' && s.id !== 'classifier-scorer')
const args = [
  'cli/oxeval.mjs',
  'run',
  '--data',
  'examples/dataset.json',
  ...DEMO_LLM.flatMap((s) => ['--scorer', s.id]),
  // the options the agent scorers cannot do without
  '--option',
  'multi-turn-judge-scorer.criterion=The assistant answers the question it was asked.',
  '--option',
  'llm-tool-call-accuracy-scorer.availableTools=[{"id":"search","description":"Search the web for facts"}]',
  '--option',
  'rubric-scorer.criteria=- Answers the question\n- Is one or two sentences',
  ...modelArgs,
  '--concurrency',
  '8',
  '--out',
  `${outDir}results.jsonl`,
  '--html',
  `${outDir}report.html`,
  '--junit',
  `${outDir}junit.xml`,
  '--worst',
  '2',
]
console.log(`$ oxeval ${args.slice(1).join(' ')}\n`)
const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, OXEVAL_DEMO_KEY: 'scripted-judge-needs-no-key' } })
const [code] = await new Promise((resolve) => child.on('exit', (...a) => resolve(a)))
await server?.close()
const judged = DEMO_LLM.length
console.log(`\n${judged} LLM scorers over the bundled dataset; open ${outDir}report.html for the per-item report.`)

// tool-calling items: checks as gates, the code scorers and a check as scorers (no judge, no --model)
const toolArgs = [
  'cli/oxeval.mjs',
  'run',
  '--data',
  'examples/tool-calls.json',
  '--gate',
  'calledTool(get_weather)',
  '--gate',
  'didNotCall(delete_user)',
  '--gate',
  'maxToolCalls(3)',
  '--gate',
  'matches(/\\d+°[FC]/)',
  '--scorer',
  'noToolErrors()',
  '--scorer',
  'code-tool-call-accuracy-scorer',
  '--option',
  'code-tool-call-accuracy-scorer.expectedTool=get_weather',
  '--scorer',
  'code-trajectory-accuracy-scorer',
  '--scorer',
  'code-trajectory-scorer',
  '--worst',
  '1',
  '--out',
  `${outDir}tool-calls.jsonl`,
]
console.log(`\n$ oxeval ${toolArgs.slice(1).map((a) => (/[\s()"]/.test(a) ? `'${a}'` : a)).join(' ')}\n`)
const tools = spawn(process.execPath, toolArgs, { cwd: root, stdio: 'inherit' })
const [toolCode] = await new Promise((resolve) => tools.on('exit', (...a) => resolve(a)))

// Ragas's no-judge metrics (oxeval/ragas, exact to ragas 0.4.3): BLEU and ROUGE-L of each
// output against its groundTruth, no judge, no --model
const ragasArgs = ['cli/oxeval.mjs', 'run', '--data', 'examples/dataset.json', '--scorer', 'bleu', '--scorer', 'rouge', '--worst', '1', '--no-progress', '--out', `${outDir}ragas.jsonl`]
console.log(`\n$ oxeval ${ragasArgs.slice(1).join(' ')}\n`)
const [ragasCode] = await new Promise((resolve) => spawn(process.execPath, ragasArgs, { cwd: root, stdio: 'inherit' }).on('exit', (...a) => resolve(a)))

// multi-turn items on a real @mastra/core Agent with memory (examples/agent.config.mjs over
// examples/conversations.json): `inputs` sent on one thread, `turns` with per-turn gates and
// scorers, categorized scorers with a trajectory scorer. @mastra/core and ai are dev
// dependencies of this repository (a user's own project brings its agent)
let agentCode = 0
const haveAgents = ['@mastra/core/agent', 'ai/test'].every((m) => {
  try {
    require.resolve(m)
    return true
  } catch {
    return false
  }
})
if (haveAgents) {
  const agentServer = process.env.OXEVAL_MODEL ? null : await startJudgeServer({ handler: heuristicJudge })
  const agentArgs = ['cli/oxeval.mjs', 'run', '--config', 'examples/agent.config.mjs', '--out', `${outDir}agent.jsonl`, '--html', `${outDir}agent.html`, '--no-progress']
  console.log(`\n$ oxeval ${agentArgs.slice(1).join(' ')}\n`)
  const env = agentServer ? { ...process.env, OXEVAL_DEMO_JUDGE_URL: agentServer.url } : process.env
  ;[agentCode] = await new Promise((resolve) => spawn(process.execPath, agentArgs, { cwd: root, stdio: 'inherit', env }).on('exit', (...a) => resolve(a)))
  await agentServer?.close()
} else {
  console.log('\n(the multi-turn agent run needs @mastra/core and ai, dev dependencies of this repository: skipped)')
}

// the eval loop: a config (examples/oxeval.config.mjs) with a target, a custom scorer and a
// gate; run it, swap in a worse target, run again, and compare the two runs
let loopServer
const loopEnv = { ...process.env }
if (!process.env.OXEVAL_MODEL) {
  loopServer = await startJudgeServer({ handler: heuristicJudge })
  loopEnv.OXEVAL_DEMO_JUDGE_URL = loopServer.url
}
const cli = (argv, env = loopEnv) =>
  new Promise((resolve) => {
    console.log(`\n$ ${Object.entries(env).filter(([k]) => k === 'OXEVAL_DEMO_TARGET').map(([k, v]) => `${k}=${v} `).join('')}oxeval ${argv.join(' ')}\n`)
    spawn(process.execPath, ['cli/oxeval.mjs', ...argv], { cwd: root, stdio: 'inherit', env }).on('exit', (c) => resolve(c))
  })
const base = await cli(['run', '--config', 'examples/oxeval.config.mjs', '--out', `${outDir}loop-base.jsonl`, '--no-progress'])
const head = await cli(['run', '--config', 'examples/oxeval.config.mjs', '--out', `${outDir}loop-head.jsonl`, '--no-progress'], { ...loopEnv, OXEVAL_DEMO_TARGET: 'v2' })
const cmp = await cli(['compare', `${outDir}loop-base.jsonl`, `${outDir}loop-head.jsonl`])
await loopServer?.close()
console.log(`\nBrowse every run of .demo/ with: npx oxeval view .demo (and their history: npx oxeval history --store .demo/store.db)`)
// the second run is the worse target on purpose: its verdict is the comparison's subject, not the demo's
process.exit(code || toolCode || ragasCode || agentCode || base || cmp || (head === 0 || head === 1 ? 0 : head) || 0)
