// Batch mode against the offline test judge (`node examples/batch.mjs`, after a build): the
// bundled dataset scored by answer relevancy through OpenAI's Batch API as the scripted judge
// speaks it (each batch ends 1 s after it was created), then the same items again in direct
// mode, to show the scores are the same and the bill is half. In your own project, import
// from 'oxeval' and 'oxeval/testing'.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { heuristicJudge, startJudgeServer } from '../testing/judge-server.mjs'

const { createAnswerRelevancyScorer, runEvals } = createRequire(import.meta.url)('../index.js')
const data = JSON.parse(readFileSync(new URL('./dataset.json', import.meta.url), 'utf8'))

const judge = await startJudgeServer({ handler: heuristicJudge, batchDelayMs: 1000 })
const model = { id: 'openai/scripted-judge', url: judge.url, apiKey: 'sk-offline' }
const dir = mkdtempSync(join(tmpdir(), 'oxeval-batch-example-'))
try {
  const scorer = createAnswerRelevancyScorer({ model, cache: { dir: join(dir, 'batched') } })
  const batched = await runEvals({
    data,
    scorers: [scorer],
    batch: {
      pollMs: 200,
      onProgress: (p) => {
        const s = p.stages[p.stages.length - 1]
        if (s) console.log(`stage ${s.stage}: ${s.completed}/${s.lines} answered (${s.batches.map((b) => `${b.id} ${b.status}`).join(', ')})`)
      },
    },
  })
  const direct = await runEvals({ data, scorers: [createAnswerRelevancyScorer({ model, cache: { dir: join(dir, 'direct') } })] })
  const u = batched.usage[scorer.id]
  const billed = u.totalTokens - 0.5 * u.batchTotalTokens
  console.log(`batched: mean ${batched.scores[scorer.id].toFixed(3)}, ${u.batchCalls}/${u.calls} calls in ${batched.batch.progress.stage} batches, ${u.totalTokens} tokens billed as ${billed}`)
  console.log(`direct:  mean ${direct.scores[scorer.id].toFixed(3)}, ${direct.usage[scorer.id].calls} calls, ${direct.usage[scorer.id].totalTokens} tokens`)
} finally {
  await judge.close()
  rmSync(dir, { recursive: true, force: true })
}
