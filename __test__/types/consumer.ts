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

// Ragas metrics
import {
  createAnswerAccuracyScorer,
  createContextRelevanceScorer,
  createFactualCorrectnessScorer,
  createResponseGroundednessScorer,
  type FactualCorrectnessResult,
  type NvResult,
} from 'oxeval'

async function ragas(): Promise<void> {
  const model = { id: 'openai/gpt-4o-mini', url: 'http://127.0.0.1:1/v1' }
  const fc = createFactualCorrectnessScorer({ model, mode: 'recall', beta: 2, atomicity: 'high', coverage: 'low', cache: { dir: '.cache' } })
  const r: FactualCorrectnessResult = await fc.run({ output: 'a', groundTruth: 'b' })
  const claims: string[] | null | undefined = r.preprocessStepResult?.referenceClaims
  const tp: number | undefined = r.analyzeStepResult?.tp
  const aa = createAnswerAccuracyScorer({ model, maxRetries: 3 })
  const a: NvResult = await aa.run({ input: 'q', output: 'a', groundTruth: 'g' })
  const rating: number | null | undefined = a.analyzeStepResult?.judges[1].rating
  const cr = createContextRelevanceScorer({ model, contextExtractor: async (input) => [String(input)] })
  const c = await cr.run({ input: 'q', output: 'a', context: ['ctx'] })
  const rg = createResponseGroundednessScorer({ model, context: ['x'], modelSettings: { rpm: 60, maxConcurrency: 4 } })
  const g = await rg.run({ output: 'a' }, { deadlineMs: 1000 })
  console.log(claims, tp, rating, c.score, g.judge?.analyze.executions.length)
}
void ragas()
