// oxeval public types (hand-written facade over the generated binding.d.ts).

/** A judge model: `'provider/model'` (key from the provider's env var) or a config object. */
export type ModelConfig =
  | string
  | ({ id: string } & ModelEndpointOptions)
  | ({ providerId: string; modelId: string } & ModelEndpointOptions)

export interface ModelEndpointOptions {
  /** Any OpenAI-compatible chat-completions base URL, e.g. `http://127.0.0.1:8080/v1`. */
  url?: string
  /** Overrides the provider's env var. Never echoed in results or errors. */
  apiKey?: string
  headers?: Record<string, string>
  /** How step schemas reach the judge: native OpenAI `json_schema` (strict) or described in the prompt. */
  structuredOutput?: 'json_schema' | 'prompt'
}

/** Mastra's `modelSettings` plus oxeval's reliability knobs. */
export interface ModelSettings {
  /** 0..2. Default 0. */
  temperature?: number
  /** Integer 1..1 000 000. */
  maxOutputTokens?: number
  /** Retries of retryable HTTP failures (408/409/429/5xx/network/timeout). Integer 0..20. Default 2. */
  maxRetries?: number
  /** Per HTTP attempt. Integer 1..3 600 000. Default 60000. */
  timeoutMs?: number
  /** First backoff step (doubles per retry, with jitter). Integer 0..600 000. Default 500. */
  retryDelayMs?: number
  /** Max requests in flight to this endpoint+model (shared by scorers with the same limits);
   * halves on HTTP 429 and grows back additively (AIMD). Integer 1..10 000. Default 128. */
  maxConcurrency?: number
  /** Requests-per-minute budget for this endpoint+model. Integer ≥ 1. */
  rpm?: number
  /** Tokens-per-minute budget (estimated from the prompt size plus maxOutputTokens). Integer ≥ 1. */
  tpm?: number
  /** Largest judge response body read, in bytes (1024..2^30); past it the call fails with
   * OXEVAL_JUDGE_RESPONSE_TOO_LARGE. Default 8 MiB. */
  maxResponseBytes?: number
}

/** Response cache: `true` (in memory), `{ dir }` (also on disk, shareable across processes),
 * `false` (off even if OXEVAL_CACHE_DIR is set). Only validated successful answers are stored. */
export type CacheOption =
  | boolean
  | {
      dir?: string
      memory?: boolean
      /** Bound of the process-wide memory layer in bytes (the largest asked for wins). Default 64 MiB; 0 = no memory layer. */
      memoryBytes?: number
      /** Each disk read/write gives up after this long (a miss / a skipped write, with a warning). Integer 1..600 000. Default 2000. */
      ioTimeoutMs?: number
    }

/** `scorer.cacheStats()`. */
export interface CacheStats {
  hits: number
  memoryHits: number
  diskHits: number
  misses: number
  writes: number
  errors: number
  timeouts: number
}

export interface LLMScorerOptions {
  model: ModelConfig
  modelSettings?: ModelSettings
  cache?: CacheOption
}

export interface JudgeUsage {
  inputTokens?: number
  outputTokens?: number
  totalTokens?: number
  reasoningTokens?: number
  cachedInputTokens?: number
}

/** One LLM call of a step (`result.judge[step].executions[i]`). */
export interface JudgeExecution<TOutput = unknown> {
  status: 'success' | 'failed'
  /** The user prompt sent to the judge. */
  prompt: string
  /** Parsed output: the step's JSON object, or the text for free-text steps. */
  output?: TOutput
  judgeModelId: string
  judgeProvider: string
  usage: JudgeUsage
  /** Format attempts: 1, or 2 when the schema fallback ran. */
  attemptCount: number
  /** HTTP requests sent, retries included. */
  modelCallCount: number
  durationMs: number
  finishReason?: string
  /** The judge's raw text (kept on failure). */
  rawOutput?: string
  error?: { name: string; message: string; code: string }
  /** True when the answer came from the response cache (no HTTP call, zero tokens). */
  cached?: boolean
  /** The judge's reasoning (a `<think>` block or a `reasoning_content` field): kept here, never parsed as the answer. */
  reasoning?: string
  /** What was accepted despite a problem, e.g. `1 verdict for 3 statements`. */
  warnings?: string[]
}

export type JudgeRecord = Record<string, { executions: JudgeExecution[] }>

/** Mastra's `ScorerRun`. Extra keys are echoed into the result. */
export interface ScorerRun {
  runId?: string
  input?: unknown
  output: unknown
  groundTruth?: unknown
  requestContext?: unknown
  [key: string]: unknown
}

export interface RunOptions {
  /** Cancels the run: in-flight HTTP is dropped and the promise rejects with an `AbortError`. */
  signal?: AbortSignal
  /** Overall deadline for the whole run, in ms. */
  deadlineMs?: number
}

/** Mastra's result shape: the run's fields echoed, then the eight step keys, then `judge`. */
export type ScorerResult<TPre = unknown, TAnalyze = unknown> = ScorerRun & {
  runId: string
  score: number
  generateScorePrompt: string | undefined
  reason: string | undefined
  generateReasonPrompt: string | undefined
  preprocessStepResult: TPre | undefined
  preprocessPrompt: string | undefined
  analyzeStepResult: TAnalyze | undefined
  analyzePrompt: string | undefined
  /** Present when at least one LLM step ran. */
  judge?: JudgeRecord
  /** `step: problem` for what was accepted despite a problem (e.g. `analyze: 1 verdict for 3 statements`); absent when none. */
  warnings?: string[]
}

export interface ScorerStep {
  name: string
  type: 'prompt' | 'function'
  description?: string
}

export interface Scorer<TResult extends ScorerResult = ScorerResult> {
  readonly id: string
  readonly name: string
  readonly description: string
  readonly type: 'agent' | string
  /** The judge's model id (never the key) and its system instructions. */
  readonly judge: { model: string; instructions: string } | undefined
  getSteps(): ScorerStep[]
  /** Response cache statistics, or `null` when caching is off. */
  cacheStats(): CacheStats | null
  run(run: ScorerRun, options?: RunOptions): Promise<TResult>
}

/** Every failed run rejects with this (wrong argument types reject with a TypeError instead). */
export declare class ScorerRunError extends Error {
  name: 'ScorerRunError'
  /** Stable code: OXEVAL_JUDGE_HTTP, OXEVAL_JUDGE_NETWORK, OXEVAL_JUDGE_TIMEOUT, OXEVAL_JUDGE_OUTPUT,
   * OXEVAL_JUDGE_TRUNCATED, OXEVAL_JUDGE_REFUSAL, OXEVAL_JUDGE_RESPONSE_TOO_LARGE, OXEVAL_MISSING_API_KEY, OXEVAL_DEADLINE, OXEVAL_NO_VALID_JUDGMENT, OXEVAL_INTERNAL. */
  code: string
  /** The step that failed (e.g. 'preprocess', 'analyze', 'generateReason'). */
  failedStep: string
  completedSteps: string[]
  /** The partial result: completed steps' prompts and results, and every judge execution. */
  result: Partial<ScorerResult> & { runId: string; judge?: JudgeRecord }
  cause?: Error & { code?: string; status?: number; rawOutput?: string }
}

/** Rejection of a run whose AbortSignal fired. */
export declare class AbortError extends Error {
  name: 'AbortError'
  code: 'OXEVAL_ABORTED'
  failedStep: string | undefined
  completedSteps: string[]
  result: (Partial<ScorerResult> & { runId: string; judge?: JudgeRecord }) | undefined
}

// ---------------------------------------------------------------------------------------
// Answer relevancy

export interface AnswerRelevancyScorerOptions extends LLMScorerOptions {
  /** Weight of an 'unsure' verdict. Default 0.3. */
  uncertaintyWeight?: number
  /** Multiplies the score. Default 1. */
  scale?: number
  /** Mastra's form; merged with the defaults (top-level keys win). */
  options?: { uncertaintyWeight?: number; scale?: number }
}

export interface AnswerRelevancyVerdict {
  result: 'yes' | 'unsure' | 'no' | string
  reason: string
}

export type AnswerRelevancyResult = ScorerResult<{ statements: string[] }, { results: AnswerRelevancyVerdict[] }>

/** Mastra-compatible answer relevancy: share of the output's statements relevant to the input. */
export declare function createAnswerRelevancyScorer(options: AnswerRelevancyScorerOptions): Scorer<AnswerRelevancyResult>

// ---------------------------------------------------------------------------------------
// Ragas metrics

/** Ragas's NLI verdict for one claim; any non-zero verdict counts as supported. */
export interface FactualCorrectnessVerdict {
  statement: string
  reason: string
  verdict: number
}

export interface FactualCorrectnessPreprocess {
  responseClaims: string[]
  /** null in precision mode (the reference is not decomposed). */
  referenceClaims: string[] | null
}

export interface FactualCorrectnessAnalysis {
  /** Response claims judged against the reference. */
  responseVerdicts: FactualCorrectnessVerdict[]
  /** Reference claims judged against the response; null in precision mode. */
  referenceVerdicts: FactualCorrectnessVerdict[] | null
  tp: number
  fp: number
  fn: number
  /** tp / (tp + fp + 1e-8), unrounded (Ragas). */
  precision: number
  /** tp / (tp + fn + 1e-8), unrounded (Ragas); `null` in precision mode (no reference side). */
  recall: number | null
  mode: 'f1' | 'precision' | 'recall'
  beta: number
}

export type FactualCorrectnessResult = ScorerResult<FactualCorrectnessPreprocess, FactualCorrectnessAnalysis>

export interface FactualCorrectnessScorerOptions extends LLMScorerOptions {
  /** Default 'f1'. */
  mode?: 'f1' | 'precision' | 'recall'
  /** F-beta's beta (> 0). Default 1. */
  beta?: number
  /** 'high' splits into single facts. Default 'low'. */
  atomicity?: 'low' | 'high'
  /** 'high' keeps every detail. Default 'low'. */
  coverage?: 'low' | 'high'
  /** Ask the judge to write the reason (one extra call). Default false: the reason is built from the counts. */
  llmReason?: boolean
  options?: { mode?: 'f1' | 'precision' | 'recall'; beta?: number; atomicity?: 'low' | 'high'; coverage?: 'low' | 'high'; llmReason?: boolean }
}

/** Ragas FactualCorrectness: claims of the output (response) vs `groundTruth` (reference), NLI, precision/recall/F-beta (rounded half to even). */
export declare function createFactualCorrectnessScorer(options: FactualCorrectnessScorerOptions): Scorer<FactualCorrectnessResult>

export interface NvJudgeRating {
  /** The valid rating (a quoted "4" is reported as 4); null when no attempt gave one. */
  rating: number | null
  /** rating / 4 (answer accuracy) or rating / 2. */
  normalized: number | null
  /** Calls made for this judge (1..maxRetries). */
  attempts: number
  /** The judge's reply text of every attempt that got a reply. */
  rawOutputs: string[]
  valid: boolean
}

export interface NvAnalysis {
  judges: [NvJudgeRating, NvJudgeRating]
}

/** NVIDIA metrics: score = mean of the valid normalized ratings, unrounded. */
export type NvResult = ScorerResult<undefined, NvAnalysis>

export interface NvScorerOptions extends LLMScorerOptions {
  /** Attempts per judge (an integer ≥ 1). Default 5. */
  maxRetries?: number
  options?: { maxRetries?: number }
}

export interface NvContextScorerOptions extends NvScorerOptions {
  /** Retrieved contexts used when the run has no `context` and no `contextExtractor` result. */
  context?: string[]
  /** Called with (run.input, run.output) when the run has no `context`. */
  contextExtractor?: (input: unknown, output: unknown) => string[] | Promise<string[]>
  options?: { maxRetries?: number; context?: string[] }
}

/** A run for the context scorers: `context` (retrieved passages) per item is the common case. */
export interface ContextScorerRun extends ScorerRun {
  context?: string[]
}

export interface ContextScorer extends Scorer<NvResult> {
  run(run: ContextScorerRun, options?: RunOptions): Promise<NvResult>
}

/** NVIDIA AnswerAccuracy: two judges rate output vs groundTruth (0/2/4), the second with roles swapped. */
export declare function createAnswerAccuracyScorer(options: NvScorerOptions): Scorer<NvResult>
/** NVIDIA ContextRelevance: two judges rate how relevant the retrieved contexts are to the input (0/1/2). */
export declare function createContextRelevanceScorer(options: NvContextScorerOptions): ContextScorer
/** NVIDIA ResponseGroundedness: two judges rate how well the contexts support the output (0/1/2). */
export declare function createResponseGroundednessScorer(options: NvContextScorerOptions): ContextScorer
