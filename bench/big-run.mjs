// `node --expose-gc bench/big-run.mjs [MB] [shape|heuristic]`: one answer-relevancy run on an
// output of MB megabytes (default 3.99: just under the 4 MB run limit), against a judge in its
// own process, so the figures are oxeval's alone. Prints the result's size (as JSON and as
// retained V8 heap, each as a multiple of the run's JSON size) and the peak RSS.
//   shape      the bench judge: a few statements, whatever the output (a realistic judge)
//   heuristic  one statement per sentence and a verdict each (the worst case: the judge's
//              replies are as large as the output)
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)
const { createAnswerRelevancyScorer } = require('../index.js')
const mb = Number(process.argv[2] || 3.99)
const kind = process.argv[3] || 'shape'
if (!global.gc) throw new Error('run with node --expose-gc')

const child =
  kind === 'heuristic'
    ? spawn(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(`${root}testing/judge-server.mjs`)}); const s = await m.startJudgeServer({ handler: m.heuristicJudge }); console.log(s.url)`], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, [`${root}bench/judge-proc.mjs`], { stdio: ['ignore', 'pipe', 'inherit'] })
process.on('exit', () => child.kill())
const url = (await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next()).value

const sentence = 'Paris is the capital of France and a large city. '
const output = sentence.repeat(Math.floor((mb * 1048576) / sentence.length) - 1)
const s = createAnswerRelevancyScorer({ model: { id: 'openai/big', url }, modelSettings: { maxResponseBytes: 1 << 30, timeoutMs: 600000 } })
const run = { input: 'What is the capital of France?', output }
const inSize = JSON.stringify(run).length
global.gc()
const base = process.memoryUsage().rss
let peak = base
const t = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss)
}, 1)
global.gc()
const h0 = process.memoryUsage().heapUsed
const r = await s.run(run)
global.gc()
const h1 = process.memoryUsage().heapUsed
clearInterval(t)
peak = Math.max(peak, process.memoryUsage().rss)
const mib = (n) => +(n / 1048576).toFixed(0)
console.log(
  JSON.stringify({
    judge: kind,
    runMB: +(inSize / 1048576).toFixed(2),
    statements: r.preprocessStepResult.statements.length,
    resultJsonX: +(JSON.stringify(r).length / inSize).toFixed(2),
    resultHeapX: +((h1 - h0) / inSize).toFixed(2),
    baseRssMB: mib(base),
    peakRssMB: mib(peak),
  }),
)
process.exit(0)
