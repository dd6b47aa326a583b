// Type-checked (tsc --strict, NodeNext) in `npm test`: the public API as a user writes it.
// The `@ts-expect-error` lines are the negative cases: if a type becomes too loose, the
// directive is unused and the build fails.
import {
  createAnswerRelevancyScorer,
  createAnswerAccuracyScorer,
  createAnswerSimilarityScorer,
  createContextRelevanceScorer,
  createContextRelevanceScorerLLM,
  createContextPrecisionScorer,
  createFaithfulnessScorer,
  createNoiseSensitivityScorerLLM,
  createSummarizationScorer,
  createFactualCorrectnessScorer,
  createResponseGroundednessScorer,
  ScorerRunError,
  AbortError,
  type AnswerRelevancyAnalysis,
  type AnswerRelevancyResult,
  type AnswerRelevancyScorer,
  type FactualCorrectnessResult,
  type JudgeExecution,
  type ContextRelevanceLLMResult,
  type NoiseSensitivityLLMAnalysis,
  type OxevalErrorCode,
  type Scorer,
} from 'oxeval'

const model = { id: 'openai/gpt-4o-mini', url: 'http://127.0.0.1:1/v1' }

async function positive(): Promise<number> {
  const scorer: AnswerRelevancyScorer = createAnswerRelevancyScorer({
    model,
    uncertaintyWeight: 0.3,
    modelSettings: { temperature: 0, maxRetries: 1, timeoutMs: 1000, maxResponseBytes: 1 << 20 },
    cache: { dir: '.cache', memoryBytes: 1 << 20, ioTimeoutMs: 500 },
  })
  const generic: Scorer = scorer
  const alt = createAnswerRelevancyScorer({ model: 'openai/gpt-4o-mini', options: { scale: 10 } })
  const steps: string[] = alt.getSteps().map((s) => `${s.name}:${s.type}`)
  try {
    const r = await scorer.run({ input: 'What is the capital of France?', output: 'Paris.', tag: 'echoed' }, { signal: AbortSignal.timeout(5000) })
    const score: number = r.score
    const reason: string = r.reason
    const statements: string[] = r.preprocessStepResult.statements
    const verdict: 'yes' | 'unsure' | 'no' = r.analyzeStepResult.results[0].result
    const tag: string = r.tag // the run's own fields are echoed, typed
    const exec: JudgeExecution | undefined = r.judge?.analyze?.executions[0]
    const tokens: number | undefined = exec?.usage.totalTokens
    const typed: AnswerRelevancyResult = r
    console.log(score, reason, statements, verdict, tag, tokens, typed.runId, steps, generic.id)
    return score
  } catch (e) {
    if (e instanceof ScorerRunError) {
      const step: string = e.failedStep
      const done: string[] = e.completedSteps
      const code: OxevalErrorCode = e.code
      if (e.code === 'OXEVAL_JUDGE_REFUSAL') console.log('refused')
      console.log(step, done, code, e.result.judge, e.result.score)
    } else if (e instanceof AbortError) {
      const code: 'OXEVAL_ABORTED' = e.code
      console.log(code, e.result?.runId)
    }
    return -1
  }
}

async function models(): Promise<void> {
  const fn = createAnswerRelevancyScorer({ model: async ({ prompt, schema }) => (schema ? '{"statements":[]}' : `reason for ${prompt.length}`) })
  const usage = createAnswerRelevancyScorer({ model: () => ({ text: 'x', usage: { inputTokens: 1 } }) })
  const lm = {
    specificationVersion: 'v3' as const,
    provider: 'mine',
    modelId: 'judge',
    doGenerate: async () => ({ content: [], finishReason: 'stop', usage: {}, warnings: [] }),
  }
  const viaLm = createAnswerRelevancyScorer({ model: lm })
  createAnswerRelevancyScorer({ model: { id: 'azure/my-deployment', apiVersion: '2024-10-21', structuredOutput: 'json_object' }, modelSettings: { reasoningEffort: 'low' } })
  createAnswerRelevancyScorer({ model: 'anthropic/claude-sonnet-4-5' })
  // @ts-expect-error an effort that does not exist
  createAnswerRelevancyScorer({ model: 'openai/o4-mini', modelSettings: { reasoningEffort: 'extreme' } })
  console.log(fn.id, usage.id, viaLm.judge?.model)
  // @ts-expect-error a function must return text, { text } or a model
  createAnswerRelevancyScorer({ model: () => 42 })
}

async function ragas(): Promise<void> {
  const fc = createFactualCorrectnessScorer({ model, mode: 'recall', beta: 2, atomicity: 'high', coverage: 'low', cache: { dir: '.cache' } })
  const r: FactualCorrectnessResult = await fc.run({ output: 'a', groundTruth: 'b' })
  const claims: string[] | null = r.preprocessStepResult.referenceClaims
  const tp: number = r.analyzeStepResult.tp
  const recall: number | null = r.analyzeStepResult.recall
  const aa = createAnswerAccuracyScorer({ model, maxRetries: 3 })
  const a = await aa.run({ input: 'q', output: 'a', groundTruth: 'g' })
  const rating: number | null = a.analyzeStepResult.judges[1].rating
  const none: undefined = a.preprocessStepResult
  const cr = createContextRelevanceScorer({ model, contextExtractor: async (input) => [String(input)] })
  const c = await cr.run({ input: 'q', output: 'a', context: ['ctx'] })
  const rg = createResponseGroundednessScorer({ model, context: ['x'], modelSettings: { rpm: 60, maxConcurrency: 4 } })
  const g = await rg.run({ output: 'a' }, { deadlineMs: 1000 })
  console.log(claims, tp, recall, rating, none, c.score, g.judge?.analyze.executions.length)
}

async function mastraRag(): Promise<void> {
  const cr = createContextRelevanceScorerLLM({ model, options: { penalties: { missingContextPerItem: 0.1 } }, contextExtractor: () => ['a'] })
  const c: ContextRelevanceLLMResult = await cr.run({ input: 'q', output: 'a', context: ['ctx'] })
  const level: 'high' | 'medium' | 'low' | 'none' = c.analyzeStepResult.evaluations[0].relevanceLevel
  const missing: string[] = c.analyzeStepResult.missingContext
  const as = createAnswerSimilarityScorer({ model, requireGroundTruth: false, options: { scale: 10 } })
  const a = await as.run({ output: 'a', groundTruth: 'g' })
  const unit: string | null = a.analyzeStepResult.matches[0].outputUnit
  const su = createSummarizationScorer({ model, maxQuestions: 5, source: 'text' })
  const s = await su.run({ output: 'summary', source: 'the source' })
  const questions: string[] = s.preprocessStepResult.questions
  const ns = createNoiseSensitivityScorerLLM({ model, scoring: { impactWeights: { minimal: 0.9 }, penalties: { majorIssuePerItem: 0.2 } } })
  const n = await ns.run({ input: 'q', output: 'a', baselineResponse: 'b', noisyQuery: 'nq', noiseType: 'distraction' })
  const impact: NoiseSensitivityLLMAnalysis['dimensions'][number]['impactLevel'] = n.analyzeStepResult.dimensions[0].impactLevel
  // @ts-expect-error a relevance level that does not exist
  const bad: ContextRelevanceLLMResult['analyzeStepResult']['evaluations'][number]['relevanceLevel'] = 'very'
  // @ts-expect-error a typo in a nested option
  createNoiseSensitivityScorerLLM({ model, scoring: { impactWeight: { none: 1 } } })
  // @ts-expect-error source is a string
  createSummarizationScorer({ model, source: ['a'] })
  // Mastra's sourceExtractor, top-level or nested
  createSummarizationScorer({ model, sourceExtractor: (_input, _output) => 'x' })
  createSummarizationScorer({ model, options: { sourceExtractor: async () => 'x', maxQuestions: 3 } })
  createContextPrecisionScorer({ model, options: { contextExtractor: () => ['p'] } })
  // @ts-expect-error a sourceExtractor returns the source text
  createSummarizationScorer({ model, sourceExtractor: () => 3 })
  // @ts-expect-error faithfulness takes no sourceExtractor
  createFaithfulnessScorer({ model, sourceExtractor: () => 'x' })
  // @ts-expect-error baselineResponse is a string
  await ns.run({ input: 'q', output: 'a', baselineResponse: 1 })
  console.log(level, missing, unit, questions, impact, bad)
}

async function negative(): Promise<void> {
  const s = createAnswerRelevancyScorer({ model })
  const r = await s.run({ input: 'q', output: 'a' })
  // @ts-expect-error a typo in a result key
  console.log(r.scroe)
  // @ts-expect-error a verdict literal that does not exist
  const v: AnswerRelevancyAnalysis['results'][number]['result'] = 'maybe'
  // @ts-expect-error an option of the wrong type
  createAnswerRelevancyScorer({ model, uncertaintyWeight: '0.3' })
  // @ts-expect-error a typo in an option name
  createAnswerRelevancyScorer({ model, uncertaintyWieght: 0.3 })
  // @ts-expect-error model is required
  createAnswerRelevancyScorer({ scale: 2 })
  // @ts-expect-error a mode that does not exist
  createFactualCorrectnessScorer({ model, mode: 'f2' })
  // @ts-expect-error contextExtractor belongs to the context scorers only
  createAnswerAccuracyScorer({ model, contextExtractor: () => ['x'] })
  // @ts-expect-error a run without output
  await s.run({ input: 'q' })
  // @ts-expect-error a signal that is not an AbortSignal
  await s.run({ input: 'q', output: 'a' }, { signal: { aborted: false } })
  try {
    await s.run({ input: 'q', output: 'a' })
  } catch (e) {
    if (e instanceof ScorerRunError) {
      // @ts-expect-error an error code that does not exist
      if (e.code === 'OXEVAL_NOPE') console.log(e)
    }
  }
  console.log(v)
}

void positive()
void ragas()
void mastraRag()
void models()
void negative()
