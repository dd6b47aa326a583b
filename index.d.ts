// oxeval public types (hand-written facade over the generated binding.d.ts).

/**
 * A judge model: `'provider/model'` (key from the provider's env var), a config object, an
 * AI SDK `LanguageModel` object (specification v2 or v3, e.g. `openai('gpt-4o-mini')`), or a
 * function (see `JudgeFunction`).
 */
export type ModelConfig =
  | string
  | ({ id: string } & ModelEndpointOptions)
  | ({ providerId: string; modelId: string } & ModelEndpointOptions)
  | LanguageModelLike
  | JudgeFunction

/** What oxeval needs of an AI SDK `LanguageModel` (v2: AI SDK 5; v3: AI SDK 6). */
export interface LanguageModelLike {
  readonly specificationVersion: 'v2' | 'v3'
  readonly provider: string
  readonly modelId: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  doGenerate(options: any): PromiseLike<unknown>
}

/** One judge request as a `JudgeFunction` receives it. */
export interface JudgeFunctionRequest {
  system: string
  prompt: string
  /** The step's JSON schema (structured steps; absent for free-text steps such as reasons). */
  schema?: Record<string, unknown>
  schemaName?: string
  temperature?: number
  maxOutputTokens?: number
  /** Aborts after the call's timeout (`modelSettings.timeoutMs`). */
  signal: AbortSignal
}

/**
 * A judge as a function, called per request: returns the answer text (or `{ text, usage }`),
 * or — like Mastra's dynamic models — a `LanguageModel` object that then answers the request.
 */
export type JudgeFunction = (
  request: JudgeFunctionRequest,
) =>
  | string
  | { text: string; usage?: JudgeUsage }
  | LanguageModelLike
  | PromiseLike<string | { text: string; usage?: JudgeUsage } | LanguageModelLike>

/**
 * What embeds texts (`createSemanticSimilarityScorer`'s `embedder`, docs/embeddings.md): a
 * `'provider/model'` string (e.g. `'openai/text-embedding-3-small'`, `'google/text-embedding-004'`,
 * `'azure/<deployment>'`), a config object like a judge model's (any OpenAI-compatible
 * `/embeddings` base URL), an AI SDK `EmbeddingModel` (v2 or v3), or a function of texts.
 */
export type EmbedderOption =
  | string
  | ({ id: string } & ModelEndpointOptions)
  | ({ providerId: string; modelId: string } & ModelEndpointOptions)
  | EmbeddingModelLike
  | EmbedderFunction

/** What oxeval needs of an AI SDK `EmbeddingModel` (v2: AI SDK 5; v3: AI SDK 6). */
export interface EmbeddingModelLike {
  readonly specificationVersion: 'v2' | 'v3'
  readonly provider: string
  readonly modelId: string
  /** When set, oxeval sends at most this many texts per `doEmbed` call. */
  readonly maxEmbeddingsPerCall?: number | PromiseLike<number | undefined> | undefined
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  doEmbed(options: any): PromiseLike<unknown>
}

/** An embedder as a function: one vector per text, in order (`signal`: the call's timeout). */
export type EmbedderFunction = (
  texts: string[],
  context: { signal: AbortSignal },
) => number[][] | PromiseLike<number[][]>

export interface ModelEndpointOptions {
  /** Any OpenAI-compatible chat-completions base URL, e.g. `http://127.0.0.1:8080/v1`. */
  url?: string
  /** Overrides the provider's env var. Never echoed in results or errors. */
  apiKey?: string
  headers?: Record<string, string>
  /** How step schemas reach the judge: native `json_schema` (strict), JSON mode (`json_object`, the
   * schema in the prompt) or described in the prompt only. Default: the capability table. */
  structuredOutput?: 'json_schema' | 'json_object' | 'prompt'
  /** Azure OpenAI only: the `api-version` query parameter (default `2024-10-21`, or `AZURE_API_VERSION`). */
  apiVersion?: string
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
  /** Reasoning models: passed as `reasoning_effort` (OpenAI, Azure) or a thinking budget (Gemini). */
  reasoningEffort?: 'minimal' | 'low' | 'medium' | 'high'
}

/** How a response cache answers (`cache.mode`, else `OXEVAL_CACHE_MODE`, else `'auto'`):
 * `'auto'` answers hits and asks the judge on a miss, storing the reply; `'record'` always asks
 * the judge and stores (overwrites) the reply; `'replay'` answers only from the cache and never
 * sends a request (no API key needed): a miss rejects with code `OXEVAL_CACHE_MISS`. */
export type CacheMode = 'auto' | 'record' | 'replay'

/** Response cache: `true` (in memory), `{ dir }` (also on disk, shareable across processes and
 * committable: see docs/cache.md), `false` (off even if OXEVAL_CACHE_DIR is set). Only validated
 * successful answers are stored. */
export type CacheOption =
  | boolean
  | {
      /** The disk layer's directory (default: OXEVAL_CACHE_DIR). Required for `mode: 'replay'`. */
      dir?: string
      /** Default: OXEVAL_CACHE_MODE, else 'auto'. */
      mode?: CacheMode
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
  /** Misses of a `'replay'` cache (each rejected its run with `OXEVAL_CACHE_MISS`). */
  replayMisses: number
  writes: number
  errors: number
  timeouts: number
}

export interface LLMScorerOptions {
  /** The scorer's id (default: the scorer's own, e.g. `answer-relevancy-scorer`, which Mastra's
   * scorer of the same kind shares: give one of them another id to use both in one eval). */
  id?: string
  /** The scorer's display name. */
  name?: string
  model: ModelConfig
  modelSettings?: ModelSettings
  cache?: CacheOption
  /** Send this scorer's judge requests as provider batches (half price; needs `cache: { dir }`):
   * concurrent runs of the scorer share one batch per step. In a dataset, prefer runEvals' `batch`. */
  batch?: true | BatchOptions
}

/** Batch mode (runEvals' `batch`, a scorer's `batch`): see docs/batch.md. */
export interface BatchOptions {
  /** The longest wait between two polls of a batch, ms (polls start at 1 s and double). Default 30 000. */
  pollMs?: number
  /** Past this (ms from the first poll), the waiting items fail with `OXEVAL_BATCH_TIMEOUT`; the
   * batch stays recorded and a rerun continues. Default: no limit (the run's deadline still applies). */
  maxWaitMs?: number
  /** The most requests of one batch (below the provider's own limit: OpenAI 50 000, Azure and
   * Anthropic 100 000, Gemini 50 000 and 19 MB of inline requests). */
  maxRequests?: number
  /** The longest a queued request waits for the other items before its batch goes, ms. Default 60 000. */
  flushMs?: number
  /** A failed or expired line is sent directly (full price, at once) instead of in the next batch. */
  retryDirect?: boolean
  /** Submit, record and stop waiting: the waiting items fail with `OXEVAL_BATCH_PENDING`; a rerun with
   * the same cache collects (the CLI's `--detach`). */
  detach?: boolean
}

/** runEvals' `batch.onProgress` argument: per stage (one per pipeline step), its batches and lines. */
export interface BatchProgress {
  /** Stages submitted by this run so far (resumed batches are stage 0). */
  stage: number
  queued: number
  /** Runs waiting on a batch. */
  waiting: number
  inFlight: number
  submitted: number
  completed: number
  failed: number
  stages: Array<{
    stage: number
    lines: number
    completed: number
    failed: number
    batches: Array<{ id: string; provider: 'openai' | 'azure' | 'anthropic' | 'google'; status: string; lines: number; completed: number; failed: number }>
  }>
}

/** `result.batch` of a runEvals in batch mode. */
export interface BatchRunInfo {
  progress: BatchProgress
  /** Batches still running (with `detach`, or past `maxWaitMs`): a rerun with the same cache continues them. */
  pending: Array<{ id: string; provider: string; status: string }>
  /** Batch records removed from `<cache dir>/batches/` (every answer is in the cache). */
  removed: string[]
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
  /** Batch mode: the id of the provider batch that answered this call (billed at half price). */
  batch?: string
  /** The judge's reasoning (a `<think>` block or a `reasoning_content` field): kept here, never parsed as the answer. */
  reasoning?: string
  /** What was accepted despite a problem, e.g. `1 verdict for 3 statements`. */
  warnings?: string[]
}

export type JudgeRecord = Record<string, { executions: JudgeExecution[] }>

/** Mastra's `ScorerRun`. Any other keys of the run object are echoed into the result (typed). */
export interface ScorerRun {
  runId?: string
  input?: unknown
  output: unknown
  groundTruth?: unknown
  requestContext?: unknown
}

export interface RunOptions {
  /** Cancels the run: in-flight HTTP is dropped and the promise rejects with an `AbortError`. */
  signal?: AbortSignal
  /** Overall deadline for the whole run (extractor callbacks and custom steps included), in ms. */
  deadlineMs?: number
  /** The bound of ONE call of a user callback (`contextExtractor`, a function option such as
   * `getContext`, a custom scorer's `prepareRun`), in ms: default 60 000, `Infinity` for none.
   * A callback past it fails its step (`OXEVAL_CONTEXT_EXTRACTOR`, `OXEVAL_CUSTOM_STEP` at
   * step `prepareRun`; cause `TimeoutError`). */
  callbackTimeoutMs?: number
  /** The data item (and trial) this run scores, e.g. `'q-17'` or `'q-17#2'` (1 to 256
   * characters). The response cache names it in a replay miss; without it, the item is a
   * digest of the run's input. */
  itemId?: string
}

/** The keys a result sets itself (anything else is the run's own field, echoed). */
export type ResultKey =
  | 'runId'
  | 'score'
  | 'generateScorePrompt'
  | 'reason'
  | 'generateReasonPrompt'
  | 'preprocessStepResult'
  | 'preprocessPrompt'
  | 'analyzeStepResult'
  | 'analyzePrompt'
  | 'judge'
  | 'warnings'

/**
 * Mastra's result shape: the run's own fields (`R`) echoed, then the eight step keys, then
 * `judge`. No index signature: a typo such as `r.scroe` does not compile.
 */
export type ScorerResult<R extends ScorerRun = ScorerRun, TPre = unknown, TAnalyze = unknown> = Omit<R, ResultKey> & {
  runId: string
  score: number
  generateScorePrompt: string | undefined
  reason: string
  generateReasonPrompt: string | undefined
  preprocessStepResult: TPre
  preprocessPrompt: string | undefined
  analyzeStepResult: TAnalyze
  analyzePrompt: string | undefined
  /** Present when at least one LLM step ran. */
  judge?: JudgeRecord
  /** `step: problem` for what was accepted despite a problem (e.g. `analyze: 1 verdict for 3 statements`); absent when none. */
  warnings?: string[]
}

/** The partial result a failure keeps: what completed before the failing step. */
export type PartialScorerResult = Partial<Omit<ScorerResult, 'runId'>> & { runId: string; judge?: JudgeRecord }

export interface ScorerStep {
  name: string
  type: 'prompt' | 'function'
  description?: string
}

/** `(run.input, run.output) => retrieved passages`; may be async. */
export type ContextExtractor = (input: unknown, output: unknown) => string[] | Promise<string[]>

/** `(run.input, run.output) => the text that was summarized`; may be async (summarization). */
export type SourceExtractor = (input: unknown, output: unknown) => string | Promise<string>

export interface Scorer<TPre = unknown, TAnalyze = unknown, TRun extends ScorerRun = ScorerRun> {
  readonly id: string
  readonly name: string
  readonly description: string
  /** Mastra's `type`: `'agent'`, `'trajectory'` (a trajectory scorer: `run.output` is a
   *  trajectory), or `undefined` (prompt alignment, rubric, multi-turn judge, as in Mastra). */
  readonly type: 'agent' | 'trajectory' | undefined
  /** The judge's model id (never the key) and its system instructions. */
  readonly judge: { model: string; instructions: string } | undefined
  /** Which way this scorer's score is better: `'lower'` for hallucination, else `'higher'`. */
  readonly direction: 'higher' | 'lower'
  /** Scores lie in `[0, scale]` (the `scale` option; 1 without one). */
  readonly scale: number
  getSteps(): ScorerStep[]
  /** Response cache statistics, or `null` when caching is off. */
  cacheStats(): CacheStats | null
  run<R extends TRun>(run: R, options?: RunOptions): Promise<ScorerResult<R, TPre, TAnalyze>>
}

/** Every failed run rejects with this (wrong argument types reject with a TypeError instead). */
export declare class ScorerRunError extends Error {
  name: 'ScorerRunError'
  code: OxevalErrorCode
  /** The step that failed (e.g. 'preprocess', 'analyze', 'generateReason', 'contextExtractor'). */
  failedStep: string
  completedSteps: string[]
  /** The partial result: completed steps' prompts and results, and every judge execution. */
  result: PartialScorerResult
  cause?: Error & { code?: OxevalErrorCode; status?: number; rawOutput?: string }
  // MastraError's fields, so error handling written for Mastra works:
  /** Mastra's ScorerRunError id. */
  id: 'MASTR_SCORER_FAILED_TO_RUN_WORKFLOW_FAILED'
  domain: 'SCORER'
  category: 'USER'
  details: { code: OxevalErrorCode; failedStep: string; completedSteps: string }
  toJSONDetails(): MastraErrorDetails
  /** MastraError's JSON (`code` is the Mastra id; oxeval's code is `details.code`). */
  toJSON(): MastraErrorJSONLike
}

/** `err.toJSONDetails()` of an oxeval error, as MastraError's. */
export interface MastraErrorDetails {
  message: string
  domain: string
  category: string
  details: Record<string, string | number | boolean | null>
}

/** `err.toJSON()` of an oxeval error, as MastraError's `MastraErrorJSON`. */
export interface MastraErrorJSONLike extends MastraErrorDetails {
  code: string
  cause?: { name?: string; message: string; code?: string; status?: number; rawOutput?: string }
}

/** Rejection of a run whose AbortSignal fired. */
export declare class AbortError extends Error {
  name: 'AbortError'
  code: 'OXEVAL_ABORTED'
  failedStep: string | undefined
  completedSteps: string[]
  result: PartialScorerResult | undefined
  // MastraError's fields
  id: 'OXEVAL_SCORER_RUN_ABORTED'
  domain: 'SCORER'
  category: 'USER'
  details: { code: 'OXEVAL_ABORTED'; failedStep: string | null; completedSteps: string }
  toJSONDetails(): MastraErrorDetails
  toJSON(): MastraErrorJSONLike
}

/** A TypeError raised for a wrong argument (options or run), with a stable code. */
export interface OxevalTypeError extends TypeError {
  code: 'OXEVAL_INVALID_OPTIONS' | 'OXEVAL_INVALID_INPUT'
}

import type { OxevalErrorCode } from './generated/scorers'
export * from './generated/scorers'

// ---------------------------------------------------------------------------------------
// Custom scorers: Mastra's createScorer builder on oxeval's engine

/** What a step returns to end the run without a score (`@mastra/core` 1.71's `notScorable`). */
export interface NotScorable {
  readonly reason?: string
}
/** `notScorable(reason?)`: return it from a step to say the run cannot be scored. */
export declare function notScorable(reason?: string): NotScorable
/** Whether a value is a `notScorable(...)` (oxeval's or Mastra's: the same registered symbol). */
export declare function isNotScorable(value: unknown): value is NotScorable

/** A step's output schema: a Zod 4 / Standard Schema with a JSON Schema export, an AI SDK `jsonSchema<T>()`, or a plain JSON Schema object. */
export type OutputSchema = { readonly '~standard': { readonly types?: { readonly output: unknown } } } | { readonly jsonSchema: object; readonly _type?: unknown } | Record<string, unknown>

/** The value a schema describes (Zod / Standard Schema output, AI SDK `jsonSchema<T>`), else `unknown`. */
export type SchemaOutput<S> = S extends { readonly '~standard': { readonly types?: { readonly output: infer O } } }
  ? O
  : S extends { readonly _type: infer T }
    ? T
    : unknown

/** A custom scorer's judge (Mastra's `ScorerJudgeConfig`): the model in any form oxeval takes. */
export interface CustomJudgeConfig {
  model: ModelConfig | LanguageModelLike | JudgeFunction
  instructions: string
  modelSettings?: ModelSettings
}

/** What a step function receives (Mastra's step context); `signal` is the run's (not enumerable). */
export interface StepContext<TRun extends ScorerRun, TResults> {
  run: TRun & { runId: string }
  results: TResults
  readonly signal?: AbortSignal
}

/** A prompt step: the judge answers `outputSchema` (preprocess / analyze), `{ score }` (generateScore) or text (generateReason). */
export interface PromptStep<TCtx, TSchema = undefined> {
  description: string
  outputSchema?: TSchema
  createPrompt: (ctx: TCtx) => string | Promise<string>
  /** Overrides the scorer's judge field by field. */
  judge?: Partial<CustomJudgeConfig>
}

type StepValue<T> = Exclude<Awaited<T>, NotScorable>

/** A result of a custom scorer: Mastra's shape, typed by its steps. */
export type CustomScorerResult<R extends ScorerRun, TResults> = Omit<R, ResultKey> & {
  runId: string
  generateScorePrompt: string | undefined
  reason: TResults extends { generateReasonStepResult: infer X } ? X : undefined
  generateReasonPrompt: string | undefined
  preprocessStepResult: TResults extends { preprocessStepResult: infer X } ? X : undefined
  preprocessPrompt: string | undefined
  analyzeStepResult: TResults extends { analyzeStepResult: infer X } ? X : undefined
  analyzePrompt: string | undefined
  judge?: JudgeRecord
  warnings?: string[]
} & ({ score: number; notScorable?: never } | { score?: never; notScorable: { step: string; reason?: string } })

/** A custom scorer: chain steps (each call returns a NEW scorer), then `run()`. */
export interface CustomScorer<TRun extends ScorerRun = ScorerRun, TResults = {}> {
  readonly id: string
  readonly name: string
  readonly description: string | undefined
  readonly type: unknown
  readonly judge: CustomJudgeConfig | undefined
  readonly direction: 'higher' | 'lower'
  readonly scale: number
  preprocess<S extends OutputSchema>(def: PromptStep<StepContext<TRun, TResults>, S>): CustomScorer<TRun, TResults & { preprocessStepResult: SchemaOutput<S> }>
  preprocess<T>(def: (ctx: StepContext<TRun, TResults>) => T): CustomScorer<TRun, TResults & { preprocessStepResult: StepValue<T> }>
  analyze<S extends OutputSchema>(def: PromptStep<StepContext<TRun, TResults>, S>): CustomScorer<TRun, TResults & { analyzeStepResult: SchemaOutput<S> }>
  analyze<T>(def: (ctx: StepContext<TRun, TResults>) => T): CustomScorer<TRun, TResults & { analyzeStepResult: StepValue<T> }>
  generateScore(
    def: ((ctx: StepContext<TRun, TResults>) => number | NotScorable | Promise<number | NotScorable>) | PromptStep<StepContext<TRun, TResults>, never>,
  ): CustomScorer<TRun, TResults & { generateScoreStepResult: number }>
  generateReason(
    def:
      | ((ctx: StepContext<TRun, TResults> & { score: number }) => string | Promise<string>)
      | PromptStep<StepContext<TRun, TResults> & { score: number }, never>,
  ): CustomScorer<TRun, TResults & { generateReasonStepResult: string }>
  getSteps(): ScorerStep[]
  run<R extends TRun>(run: R, options?: RunOptions): Promise<CustomScorerResult<R, TResults>>
}

/** Mastra's `createScorer` config, plus oxeval's `cache`, `direction` and `scale`. */
export interface CreateScorerConfig<TRun extends ScorerRun = ScorerRun> {
  id: string
  name?: string
  description: string
  judge?: CustomJudgeConfig
  /** Metadata, as Mastra's (`'agent'`, `'trajectory'`, …); `undefined` unless given. */
  type?: unknown
  /** Runs first and may rewrite the run (the result echoes what it returns). */
  prepareRun?: (run: TRun) => TRun | Promise<TRun>
  /** The response cache of every judge call of this scorer (as the built-in scorers' `cache`). */
  cache?: CacheOption
  /** Which way the score is better (for runEvals' reports); default `'higher'`. */
  direction?: 'higher' | 'lower'
  /** Scores lie in `[0, scale]` (default 1). */
  scale?: number
}

/** Mastra's `createScorer` builder, run by oxeval's engine. */
export declare function createScorer<TRun extends ScorerRun = ScorerRun>(config: CreateScorerConfig<TRun>): CustomScorer<TRun, {}>

// ---------------------------------------------------------------------------------------
// runEvals: the dataset runner

/** Anything `runEvals` can score: an oxeval scorer, a Mastra scorer, or any `{ id, run() }`. */
export interface EvalScorer {
  readonly id: string
  /** Mastra's metadata: `'trajectory'` routes a gate (and is required under `scorers.trajectory`). */
  readonly type?: unknown
  run(run: any, options?: any): Promise<{ score?: number } & Record<string, any>>
}

/** A number is a minimum; `{ min?, max? }` bounds (Mastra's `ThresholdConfig`). Each in [0, 1]. */
export type ThresholdConfig = number | { min?: number; max?: number }

export type EvalScorerEntry = EvalScorer | { scorer: EvalScorer; threshold: ThresholdConfig }

/**
 * Mastra's `AgentScorerConfig`: `agent` scorers receive the agent's messages; `trajectory`
 * scorers (type `'trajectory'`) the trajectory extracted from them (`{ steps, rawOutput }`)
 * and the item's `expectedTrajectory`. The means are `result.scores.agent` /
 * `result.scores.trajectory`. oxeval also takes `{ scorer, threshold }` entries here.
 */
export interface EvalAgentScorerConfig {
  agent?: EvalScorerEntry[]
  trajectory?: EvalScorerEntry[]
}

/**
 * One turn of a `turns` item (Mastra's `EvalTurn`): its input, sent in order on the
 * conversation's thread; its `gates` and `scorers` judge only this turn's input and output
 * (a gate of type `'trajectory'`: this turn's trajectory). Without a target, `output` is the
 * turn's recorded answer.
 */
export interface EvalTurn {
  input: unknown
  output?: unknown
  gates?: EvalScorer[]
  scorers?: EvalScorerEntry[]
}

/** One data item. With no `target`, `output` is what gets scored. */
export interface EvalItem {
  id?: string
  input?: unknown
  output?: unknown
  groundTruth?: unknown
  context?: string[]
  requestContext?: unknown
  /** Multi-turn: each input sent in order to the target on one thread (an Agent: one
   * `memory.thread` and resource); the scorers see the accumulated output and the first
   * input. With no target, `output` is the recorded conversation. */
  inputs?: unknown[]
  /** Multi-turn with per-turn assertions (not with `input`/`inputs`): see `EvalTurn`. */
  turns?: EvalTurn[]
  /** What trajectory scorers and gates compare against (`run.expectedTrajectory`). */
  expectedTrajectory?: unknown
  /** Your own labels per scorer id: a score, or `'pass'` / `'fail'` at the scorer's threshold.
   * The result's `agreement` then says how far the judge agrees with them. Not passed to the
   * scorers' runs. */
  expected?: Record<string, EvalLabel>
  /** Any other field is passed to every scorer's run (e.g. summarization's `source`). */
  [field: string]: unknown
}

/** A human label for one scorer on one item. */
export type EvalLabel = number | 'pass' | 'fail'

/**
 * How far a scorer's judge agrees with the items' `expected` labels (only scored items count;
 * an unscored item is never agreement). MAE and Spearman's ρ (ties by average ranks) over
 * numeric labels; Cohen's κ at the threshold over every label. An undefined statistic is
 * `null` with its reason, never NaN.
 */
export interface EvalAgreement {
  /** Items with a label for this scorer. */
  labeled: number
  /** Of those, items the scorer scored (the pairs). */
  scored: number
  unscored: number
  /** Scored items with a numeric label. */
  numeric: number
  /** Mean |judge score − label| over numeric labels. */
  mae: number | null
  spearman: number | null
  spearmanReason?: string
  /** The pass/fail line: the scorer's threshold, else half its scale (a gate: 1). */
  threshold: string
  kappa: number | null
  kappaReason?: string
  /** Share of scored items on the same side of the threshold. */
  observedAgreement: number | null
  /** Judge × label at the threshold. */
  confusion: { bothPass: number; bothFail: number; judgePassLabelFail: number; judgeFailLabelPass: number }
}

/**
 * What a function target gets as its second argument: the item's fields (so `(input, item) =>`
 * targets keep working), then `item`, `signal` and `index` (these win over item fields of the
 * same names).
 */
export type EvalTargetContext = EvalItem & {
  /** The data item, as given. */
  item: EvalItem
  /** Fires on the run's `abort()` and at `targetTimeoutMs`: pass it on to what the target calls. */
  signal: AbortSignal
  /** The item's position in `data` (0-based). */
  index: number
  /** A multi-turn item: which turn this call is (the target is called once per turn). */
  turn?: { index: number; count: number }
  /** A multi-turn item: the conversation's thread (the same for every turn) and resource. */
  threadId?: string
  resourceId?: string
}

/** A target produces the output of an item: an async function, or an Agent-style `generate()`
 * (called with `{ requestContext, abortSignal }`, the same signal as a function's `ctx.signal`). */
export type EvalTarget =
  | ((input: any, ctx: EvalTargetContext) => unknown)
  | { generate(input: any, options?: any): Promise<any> }

export interface EvalErrorJson {
  name: string
  message: string
  code?: string
  failedStep?: string
  /** The judge's HTTP status, when it answered with one. */
  status?: number
  /** A conversation's target error: the turn (0-based) that failed. */
  turn?: number
}

export interface EvalUsage {
  /** Requests sent to the judge (cache hits send none). */
  calls: number
  inputTokens: number
  outputTokens: number
  totalTokens: number
  reasoningTokens: number
  cachedInputTokens: number
  /** Batch mode: the calls and tokens answered through provider batches (billed at half price); absent when none. */
  batchCalls?: number
  batchInputTokens?: number
  batchOutputTokens?: number
  batchTotalTokens?: number
}

export interface EvalStats {
  n: number
  mean: number | null
  /** Sample standard deviation; null below two values. */
  std: number | null
  min: number | null
  max: number | null
  /** 95 % interval of the mean that stays inside the score's range `[0, scale]`: Wilson's score
   * interval (exactly Wilson's for 0/1 scores; with an effective sample size for scores in
   * between); null below two values. */
  ci95: [number, number] | null
}

export interface EvalItemResult {
  /** Position in `data` (0-based). */
  index: number
  id?: string
  input: unknown
  output: unknown
  groundTruth?: unknown
  /** The item's labels, as given. */
  expected?: Record<string, EvalLabel>
  /** The target threw (or the item was unusable): no scorer ran for it. */
  targetError?: EvalErrorJson
  /** Each scorer's full result (with trials, the first successful trial's). */
  results: Record<string, ScorerResult & Record<string, any>>
  /** Scorers whose every trial failed. */
  errors: Record<string, EvalErrorJson>
  /** Per scorer, when `trials > 1`: every trial's score (null = failed) and their statistics. */
  trials?: Record<string, EvalStats & { scores: Array<number | null> }>
  usage: Record<string, EvalUsage>
  /** A multi-turn item's inputs (`input` is then the first). */
  inputs?: unknown[]
  /** The trajectory the trajectory scorers and gates received (its steps). */
  trajectory?: unknown[]
  /** A `turns` item: per turn what was sent and answered and its assertions' results. */
  turns?: EvalTurnRecord[]
  durationMs: number
}

/** One turn of a `turns` item's result. */
export interface EvalTurnRecord {
  index: number
  input: unknown
  output: unknown
  /** The turn's assertions as declared (what `summarizeItems` recounts them from). */
  gates: Array<{ id: string; trajectory?: boolean; direction?: 'higher' | 'lower'; scale?: number }>
  scorers: Array<{ id: string; threshold?: ThresholdConfig; direction?: 'higher' | 'lower'; scale?: number }>
  results: Record<string, ScorerResult & Record<string, any>>
  errors: Record<string, EvalErrorJson>
  trials?: Record<string, EvalStats & { scores: Array<number | null> }>
  usage?: Record<string, EvalUsage>
  /** The turn's trajectory (its steps), when a trajectory gate judged it. */
  trajectory?: unknown[]
}

/** Per-turn results of `turns` items, by turn index across items (Mastra's `TurnResult`, plus
 * coverage, errors, statistics and scorer facts per turn with assertions). */
export interface EvalTurnResult {
  index: number
  gateResults?: Array<{ id: string; passed: boolean; score: number }>
  thresholdResults?: EvalThresholdResult[]
  /** Every turn scorer's mean (thresholded or not); null when none was scored. */
  scores?: Record<string, number | null>
  coverage?: Record<string, { scored: number; total: number }>
  errors?: Record<string, number>
  stats?: Record<string, EvalStats>
  scorerInfo?: Record<string, { direction: 'higher' | 'lower'; scale: number; gate: boolean }>
}

/** `result.scores` of the categorized form (`scorers: { agent, trajectory }`). */
export interface EvalCategorizedScores {
  agent?: Record<string, number | null>
  trajectory?: Record<string, number | null>
}

/** What `onItemComplete` receives: the item's result plus Mastra's `item`, `targetResult`, `scorerResults`. */
export interface EvalItemCompletion extends EvalItemResult {
  item: EvalItem
  targetResult: unknown
  scorerResults: Record<string, ScorerResult & Record<string, any>>
}

export interface RunEvalsOptions {
  data: EvalItem[] | Iterable<EvalItem> | AsyncIterable<EvalItem>
  /** Scorers, or Mastra's `{ agent, trajectory }` (see `EvalAgentScorerConfig`). */
  scorers?: EvalScorerEntry[] | EvalAgentScorerConfig
  /** Scorers that must score 1.0 on average (an errored gate run counts as 0); a gate of type
   * `'trajectory'` receives the item's trajectory. */
  gates?: EvalScorer[]
  target?: EvalTarget
  /** An Agent target's `generate()` options (Mastra's `targetOptions`: `maxSteps`,
   * `modelSettings`, …); `memory.resource` pins the resource of multi-turn items (runEvals
   * makes each conversation's thread). */
  targetOptions?: Record<string, unknown> & { memory?: { resource?: string; thread?: unknown } & Record<string, unknown> }
  /** Items in flight at once (default 8). An item's scorers run concurrently. */
  concurrency?: number
  /** Runs per (item, scorer) (default 1): item and scorer statistics over trials. */
  trials?: number
  /** Keep every item's result in `result.items` (default true). false: items only reach `onItemComplete`. */
  keepItems?: boolean
  /** Record the run in a results store (docs/store.md): a file path (SQLite, made if missing),
   * or `{ path, name?, tags?, dataset? }`; default `$OXEVAL_STORE` when set; `false`: never.
   * Items are recorded as they finish; a store that cannot be written never costs the run
   * (`result.store.error` says why). */
  store?: string | false | { path?: string; name?: string; tags?: string[]; dataset?: string }
  /** Keep the judge prompts in the store (once per distinct text; default true). */
  storePrompts?: boolean
  /** Called once per item, in completion order (awaited one after another). A call that throws
   * or does not settle within `callbackTimeoutMs` rejects the run (`OXEVAL_CALLBACK_TIMEOUT`). */
  onItemComplete?: (r: EvalItemCompletion) => void | Promise<void>
  /** Stops starting items and aborts runs in flight; resolves at once with what finished
   * (`aborted: true`, `summary.unfinishedItems`), never waiting for code that ignores the
   * signal; `onItemComplete` calls of finished items get up to 1 s. */
  signal?: AbortSignal
  /** One target call, in ms (none by default): past it the item's `targetError` is a
   * `TimeoutError` (`OXEVAL_TARGET_TIMEOUT`), its signal fires, and the run goes on. */
  targetTimeoutMs?: number
  /** One call of each user callback, in ms (default 60 000; `Infinity`: none): `onItemComplete`,
   * every scorer run's `contextExtractor` / `getContext` and a custom scorer's `prepareRun`
   * (passed on as the run option), and the whole run of a scorer that is not oxeval's (`{ id,
   * run }`, a Mastra scorer): past it, that item's error for the scorer is a `TimeoutError`
   * (`OXEVAL_CALLBACK_TIMEOUT`) and the run's signal given to it fires. */
  callbackTimeoutMs?: number
  /** How the response cache names an item in its records and replay misses (default: `item.id`, else `#<index>`). */
  itemId?: (item: EvalItem, index: number) => string
  /** Items that may go unscored (a scorer error, a target error, an unusable item) before the
   * run fails (default 0; `Infinity`: any number). A replay-cache miss fails it regardless. */
  maxErrors?: number
  /** The least share of items (0–1) each scorer must score, else the run fails. */
  minCoverage?: number
  /** The average a gate needs to pass (default 1, Mastra's rule). */
  gatePassRate?: number
  /** One shard of a larger run: decide only what a part can (errors, replay misses, gates at
   * pass rate 1); means, thresholds, coverage are decided on the merged items. */
  partial?: boolean
  /** Stop early when a scorer's first 5 runs all fail the same persistent way (no key,
   * connection refused, unknown host, HTTP 401/403/404): the rest are recorded as
   * `OXEVAL_RUN_STOPPED` items (default true). */
  stopEarly?: boolean
  /** A budget in US dollars for the judge calls (docs/cost.md): no new item starts once the
   * spend as billed (usage at `prices`, a provider batch's discount included, a response-cache
   * hit free) would pass it; the rest are recorded as `OXEVAL_BUDGET_EXHAUSTED` items and the
   * run fails with the reason `budget`. A judge model without a price is a TypeError before
   * the run starts. Not with `batch` (yet). */
  maxCost?: number
  /** Judge prices in USD per 1M tokens over oxeval's dated table: per model, and/or `{ in, out }`
   * for every model. */
  prices?: JudgePrices
  /** Batch mode: judge requests go out as provider batches (half price), one batch per pipeline
   * stage; up to `maxItems` items are in flight at once (`concurrency` bounds only the targets). Every judged
   * scorer needs a disk cache (`cache: { dir }`): else a TypeError naming it. */
  batch?: true | (BatchOptions & {
    onProgress?: (progress: BatchProgress) => void
    /** Items in flight at once (default 5 000: about 0.3 GB at ~60 KB per item in flight);
     * past it, items start as earlier ones finish, their requests joining the next batches. */
    maxItems?: number
  })
}

export type EvalVerdict = 'passed' | 'scored' | 'failed'

/**
 * Whether the run passed: the one decision every surface reads (the CLI's exit status and
 * summary line, the HTML badge, JUnit, the Vitest helpers). `failed`: nothing was evaluated, a
 * scorer scored none of its items, more items went unscored than `maxErrors` allows, a scorer's
 * coverage is under `minCoverage`, a replay-cache miss, the run stopped early or was aborted, or
 * a gate failed. `scored`: all that is fine but a threshold was missed (not a pass). `passed`.
 */
export interface EvalOutcome {
  status: EvalVerdict
  passed: boolean
  /** The status in plain words. */
  meaning: string
  reasons: Array<{
    kind: 'no-items' | 'no-scorers' | 'nothing-scored' | 'errors' | 'coverage' | 'cache-miss' | 'stopped' | 'budget' | 'aborted' | 'gate' | 'threshold'
    scorer?: string
    /** A per-turn assertion's turn index. */
    turn?: number
    message: string
  }>
  policy: { maxErrors: number; minCoverage: number | null; gatePassRate: number; partial: boolean; maxCost?: number }
}
/** Judge prices in USD per 1M tokens: `'provider/model': { input, output, batchDiscount? }`
 * (batchDiscount: the share a provider batch takes off, 0–1), `in` / `out`: every model. */
export type JudgePrices = { in?: number; out?: number } & {
  [model: string]: { input: number; output: number; batchDiscount?: number } | number | undefined
}
export interface EvalThresholdResult {
  id: string
  passed: boolean
  /** null when no item was scored (the threshold then fails). */
  averageScore: number | null
  threshold: ThresholdConfig
}

export interface RunEvalsResult<S = Record<string, number | null>> {
  /** Mean item score per scorer id over scored items; null when none was scored (the
   * categorized form: `{ agent?, trajectory? }`, each keyed by id). */
  scores: S
  summary: {
    totalItems: number
    failedItems: number
    /** Items left unscored by some scorer (or by their target, or unusable): what `maxErrors` counts. */
    erroredItems: number
    /** After `abort()`: items that had started and were cut off (in no other count). */
    unfinishedItems?: number
    /** Per scorer: items whose every run was not scorable (`notScorable`); absent when none. */
    notScorable?: Record<string, number>
  }
  /** Whether the run passed, and why not. */
  outcome: EvalOutcome
  /** Mastra's verdict, where gates or thresholds were set: the same word as `outcome.status`. */
  verdict?: EvalVerdict
  /** Per scorer: which way is better, its score range, whether it is a gate. */
  scorerInfo: Record<string, { direction: 'higher' | 'lower'; scale: number; gate: boolean }>
  /** Set when the run stopped early (see `stopEarly`). */
  stopped?: { code: 'OXEVAL_RUN_STOPPED'; message: string }
  /** With `maxCost`: the budget, the spend as billed (USD), the items not started for it, and
   * why (when some were not). */
  budget?: { maxCost: number; spent: number; notStarted: number; exhausted?: string }
  gateResults?: Array<{ id: string; passed: boolean; score: number }>
  thresholdResults?: EvalThresholdResult[]
  /** Per scorer with labels (items' `expected`): agreement of its judge with them. */
  agreement?: Record<string, EvalAgreement>
  /** Per turn index, when an item had `turns`: its gates, thresholds and scores. */
  turnResults?: EvalTurnResult[]
  /** What the run noticed and went on (e.g. an Agent without memory ran multi-turn items). */
  warnings?: string[]
  /** Failed runs per scorer (never turned into a 0). */
  errors: Record<string, number>
  coverage: Record<string, { scored: number; total: number }>
  usage: Record<string, EvalUsage>
  stats: Record<string, EvalStats>
  trials: number
  /** Present unless `keepItems: false`; sorted by index. */
  items?: EvalItemResult[]
  durationMs: number
  aborted?: true
  /** Batch mode: the batches, what is still pending, the records removed. */
  batch?: BatchRunInfo
  /** When the run was recorded (`store` option or $OXEVAL_STORE): where, its run id, and the
   * failure (code `OXEVAL_STORE_*`, a message naming the store) when it could not be written. */
  store?: { store: string; runId: string | null; error?: { code: string; message: string } }
}

/** Run scorers over a dataset (Mastra's `runEvals` signature and result, plus coverage, errors, usage, statistics). */
export declare function runEvals(options: RunEvalsOptions & { scorers: EvalAgentScorerConfig & { readonly length?: never } }): Promise<RunEvalsResult<EvalCategorizedScores>>
export declare function runEvals(options: RunEvalsOptions): Promise<RunEvalsResult>

/** `oxeval.config.ts` (`oxeval run` with no flags reads it; flags override; paths resolve from its folder). */
export interface OxevalConfig {
  /** A dataset file (.jsonl, .json, .csv) or the items themselves. */
  data: string | EvalItem[]
  /** Scorer objects (built-in factories' results, custom scorers, checks), built-in names as the CLI takes them, or `{ scorer, threshold }`;
   * or Mastra's categorized `{ agent, trajectory }` of scorer objects (`EvalAgentScorerConfig`). */
  scorers?: Array<EvalScorer | string | { scorer: EvalScorer | string; threshold: ThresholdConfig }> | EvalAgentScorerConfig
  gates?: Array<EvalScorer | string>
  /** The judge of the built-in scorers named by string. */
  model?: string | { id: string; url?: string; apiKey?: string }
  /** Makes the output of every item that has none: `(input, { item, signal }) => output`, or an Agent
   * (which also runs the data's multi-turn items, one thread per conversation). */
  target?: EvalTarget
  /** An Agent target's `generate()` options (runEvals' `targetOptions`). */
  targetOptions?: RunEvalsOptions['targetOptions']
  /** Bound of one target call, in ms (none by default). */
  targetTimeoutMs?: number
  /** Keep the target's outputs in this folder (one file per item): rescoring does not rerun the target. */
  cacheTargets?: string
  /**
   * Batch mode (`oxeval run --batch`): judge requests go as provider batches at half price;
   * needs `cache`. `pollMs`: the longest wait between two polls (`--batch-poll-ms`, default
   * 30 000); `detach`: submit the current stage and exit (`--detach`), a rerun continues.
   */
  batch?: boolean | { pollMs?: number; detach?: boolean }
  concurrency?: number
  trials?: number
  cache?: string | { dir: string; mode?: CacheMode }
  out?: string
  html?: string
  junit?: string
  maxErrors?: number
  minCoverage?: number
  /** Dollars per 1M tokens: `{ in, out }` for the cost columns and every model; per model
   * `'provider/model': { input, output }` over oxeval's table (docs/cost.md). */
  prices?: JudgePrices
  /** The run's budget in US dollars (`--max-cost`, docs/cost.md). */
  maxCost?: number
}
/** An `OxevalConfig` field `T` does not have: `never`, so an unknown or misspelled field fails to compile. */
export type OxevalConfigNoExtra<T> = { [K in Exclude<keyof T, keyof OxevalConfig>]: never }
/** Types an `oxeval.config.ts` (returns the config as it is): a field of the wrong type or an
 * unknown field fails `tsc`, also in a config returned by a (sync or async) function. */
export declare function defineConfig<T extends OxevalConfig>(config: T & OxevalConfigNoExtra<T>): T
export declare function defineConfig<T extends OxevalConfig>(config: () => (T & OxevalConfigNoExtra<T>) | Promise<T & OxevalConfigNoExtra<T>>): () => T | Promise<T>

/** The aggregates of per-item results (e.g. shards' items merged): the same numbers `runEvals` reports. */
/** A low..high range (min: minimal judge replies; max: a stated typical reply). */
export interface CostRange {
  min: number
  max: number
}
/** One scorer's share of a cost estimate (docs/cost.md). */
export interface ScorerCostEstimate {
  id: string
  /** `provider/model` of its judge (null: it calls no judge). */
  model: string | null
  /** How its tokens were counted: 'o200k_base' | 'cl100k_base' (OpenAI's tokenizer) | 'chars/4' (an approximation). */
  tokenizer: string | null
  /** Its judged steps. */
  steps: string[]
  /** Items it was estimated on. */
  items: number
  /** Judge calls to pay (the cache's hits not counted). */
  calls: CostRange
  /** Calls the response cache already holds (free). */
  cachedCalls: number
  inputTokens: CostRange
  outputTokens: CostRange
  price?: { input: number; output: number; batchDiscount: number }
  /** USD, direct and through a provider batch; null: no judge call, or no price (`noPrice` says so). */
  cost: { direct: CostRange; batch: CostRange } | null
  noPrice?: string
  /** Runs the estimate could not finish (a step refused the estimating judge's reply). */
  failures?: Array<{ itemId: string; mode: 'minimal' | 'typical'; code?: string; message: string }>
  skipped?: string
}
export interface CostEstimate {
  /** Items estimated. */
  items: number
  /** Items not estimated (no output: targets are not run; multi-turn items), and why. */
  skipped: Array<{ index: number; id?: unknown; reason: string }>
  trials: number
  scorers: ScorerCostEstimate[]
  total: {
    calls: CostRange
    cachedCalls: number
    inputTokens: CostRange
    outputTokens: CostRange
    /** The priced scorers' sum; `complete`: every judged scorer had a price. */
    cost: { direct: CostRange; batch: CostRange; complete: boolean } | null
  }
  /** The date of oxeval's price table. */
  pricesDate: string
  notes: string[]
}
/**
 * What a runEvals config would cost, without calling the judge: each scorer's real pipeline
 * walks against an estimating judge that counts each request's tokens (docs/cost.md).
 */
export declare function estimateCost(options: RunEvalsOptions): Promise<CostEstimate>
export declare function summarizeItems(options: {
  items: EvalItemResult[]
  /** `category`: the categorized form's (`scores` is then `{ agent?, trajectory? }`). */
  scorers: Array<string | { id: string; threshold?: ThresholdConfig; direction?: 'higher' | 'lower'; scale?: number; category?: 'agent' | 'trajectory' }>
  gates?: Array<string | { id: string }>
  trials?: number
  maxErrors?: number
  minCoverage?: number
  gatePassRate?: number
  partial?: boolean
  aborted?: boolean
}): Omit<RunEvalsResult<Record<string, any>>, 'items' | 'durationMs' | 'aborted'>
