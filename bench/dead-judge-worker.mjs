// The mid-run dead-judge stop (issue 34), in its own process:
//   node bench/dead-judge-worker.mjs <items> <concurrency> <dieAfter>
// runEvals over <items> items × answer relevancy against an in-process scripted judge that is
// closed (listener and connections: every later call is refused) once <dieAfter> items have
// completed. Prints one JSON line: { items, concurrency, dieAfter, scored, network, stopped,
// msToDeath, msDeathToOutcome, peakRssMb, stoppedMessage }.
import { createRequire } from 'node:module'
import { heuristicJudge, startJudgeServer } from '../testing/judge-server.mjs'

const [itemsArg, concArg, dieArg] = process.argv.slice(2)
const n = Number(itemsArg)
const concurrency = Number(concArg)
const dieAfter = Number(dieArg)
const require = createRequire(import.meta.url)
const ox = require('../index.js')

const judge = await startJudgeServer({ handler: heuristicJudge })
const scorer = ox.createAnswerRelevancyScorer({ model: { id: 'openai/scripted-judge', url: `${judge.url}/v1`, apiKey: 'bench-key' } })
function* items() {
  for (let i = 0; i < n; i++) yield { input: `What is ${i} + ${i}?`, output: `${i + i}.` }
}
let done = 0
let network = 0
let stopped = 0
let diedAt = 0
const t0 = performance.now()
const result = await ox.runEvals({
  data: items(),
  scorers: [scorer],
  concurrency,
  keepItems: false,
  onItemComplete: (it) => {
    if (it.errors?.[scorer.id]?.code === 'OXEVAL_JUDGE_NETWORK') network++
    if (it.targetError?.code === 'OXEVAL_RUN_STOPPED') stopped++
    if (++done === dieAfter) {
      diedAt = performance.now()
      void judge.close()
    }
  },
})
const end = performance.now()
console.log(JSON.stringify({
  items: n,
  concurrency,
  dieAfter,
  completed: done,
  scored: result.coverage[scorer.id].scored,
  network,
  stopped,
  msToDeath: Math.round(diedAt - t0),
  msDeathToOutcome: Math.round(end - diedAt),
  peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  stoppedMessage: result.stopped?.message?.slice(0, 140),
}))
