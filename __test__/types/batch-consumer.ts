// Type-checked in `npm test`: batch mode as a user writes it (runEvals' `batch`, a scorer's
// `batch`, the progress and the result), and what the types refuse.
import { createAnswerRelevancyScorer, runEvals, type BatchOptions, type BatchProgress, type JudgeExecution, type OxevalErrorCode } from 'oxeval'
import { heuristicJudge, startJudgeServer } from 'oxeval/testing'

export async function offline(): Promise<number> {
  const judge = await startJudgeServer({ handler: heuristicJudge, batchDelayMs: 1000, batchOrder: 'input' })
  judge.scriptBatch({ final: 'expired', answered: 2 }).scriptBatch({ createStatus: 400, createMessage: 'quota' })
  const lines = judge.requests.filter((r) => r.batch !== undefined).map((r) => r.customId)
  const sizes = [...judge.batches.values()].map((b) => b.lines.length)
  // @ts-expect-error final is one of the provider's end states
  judge.scriptBatch({ final: 'done' })
  await judge.close()
  return lines.length + sizes.length
}

export async function batched(): Promise<number | undefined> {
  const model = 'openai/gpt-4o-mini'
  const own: BatchOptions = { pollMs: 60_000, maxWaitMs: 3_600_000, retryDirect: true }
  const scorer = createAnswerRelevancyScorer({ model, cache: { dir: '.oxeval-cache' }, batch: own })
  const plain = createAnswerRelevancyScorer({ model, cache: { dir: '.oxeval-cache' }, batch: true })
  const r = await runEvals({
    data: [{ input: 'q', output: 'a' }],
    scorers: [scorer, plain],
    batch: { pollMs: 30_000, maxRequests: 10_000, flushMs: 5_000, detach: false, onProgress: (p: BatchProgress) => void p.stages[0]?.batches[0]?.status },
  })
  const pending: string[] = r.batch?.pending.map((b) => b.id) ?? []
  void pending
  const ex: JudgeExecution | undefined = r.items?.[0]?.results[scorer.id]?.judge?.analyze?.executions[0]
  const id: string | undefined = ex?.batch
  void id
  const code: OxevalErrorCode = 'OXEVAL_BATCH_TIMEOUT'
  void code
  // @ts-expect-error pollMs is a number of milliseconds
  await runEvals({ data: [], scorers: [scorer], batch: { pollMs: '30s' } })
  // @ts-expect-error batch is true or the options object
  await runEvals({ data: [], scorers: [scorer], batch: 'yes' })
  return r.usage[scorer.id].batchCalls
}
