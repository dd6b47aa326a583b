// Type-checked (tsc --strict, NodeNext) in `npm test`: the public API as a user writes it.
import {
  createAnswerRelevancyScorer,
  ScorerRunError,
  type AnswerRelevancyResult,
  type JudgeExecution,
  type Scorer,
} from 'oxeval'

async function main(): Promise<number> {
  const scorer: Scorer<AnswerRelevancyResult> = createAnswerRelevancyScorer({
    model: { id: 'openai/gpt-4o-mini', url: 'http://127.0.0.1:1/v1' },
    uncertaintyWeight: 0.3,
    modelSettings: { temperature: 0, maxRetries: 1, timeoutMs: 1000 },
  })
  const alt = createAnswerRelevancyScorer({ model: 'openai/gpt-4o-mini', options: { scale: 10 } })
  const steps: string[] = alt.getSteps().map((s) => `${s.name}:${s.type}`)
  try {
    const r = await scorer.run({ input: 'What is the capital of France?', output: 'Paris.' }, { signal: AbortSignal.timeout(5000) })
    const score: number = r.score
    const statements: string[] | undefined = r.preprocessStepResult?.statements
    const verdict: string | undefined = r.analyzeStepResult?.results[0]?.result
    const exec: JudgeExecution | undefined = r.judge?.analyze?.executions[0]
    const tokens: number | undefined = exec?.usage.totalTokens
    console.log(score, statements, verdict, tokens, r.runId, r.reason, steps)
    return score
  } catch (e) {
    if (e instanceof ScorerRunError) {
      const step: string = e.failedStep
      const done: string[] = e.completedSteps
      console.log(step, done, e.code, e.result.judge)
    }
    return -1
  }
}

void main()
