// `oxeval/mastra`: oxeval's factories returning real Mastra scorers (@mastra/core is an
// optional peer dependency of oxeval; this entry needs it installed).
import type { MastraScorer, ScorerConfig, ScorerRun as MastraScorerRun, ScorerRunResult, ScorerRunError as MastraScorerRunError } from '@mastra/core/evals'
import type { MastraError } from '@mastra/core/error'
import type {
  AnswerAccuracyAnalysis,
  AnswerAccuracyPreprocess,
  AnswerAccuracyScorerOptions,
  AnswerRelevancyAnalysis,
  AnswerRelevancyPreprocess,
  AnswerRelevancyScorerOptions,
  AnswerSimilarityAnalysis,
  AnswerSimilarityPreprocess,
  AnswerSimilarityScorerOptions,
  CacheStats,
  ContextRelevanceLLMAnalysis,
  ContextRelevanceLLMPreprocess,
  ContextRelevanceLLMScorerOptions,
  ContextRelevanceAnalysis,
  ContextRelevancePreprocess,
  ContextRelevanceScorerOptions,
  FactualCorrectnessAnalysis,
  FactualCorrectnessPreprocess,
  FactualCorrectnessScorerOptions,
  JudgeRecord,
  NoiseSensitivityLLMAnalysis,
  NoiseSensitivityLLMPreprocess,
  NoiseSensitivityLLMScorerOptions,
  OxevalErrorCode,
  PartialScorerResult,
  ResponseGroundednessAnalysis,
  ResponseGroundednessPreprocess,
  ResponseGroundednessScorerOptions,
  RunOptions,
  ScorerStep,
  SummarizationAnalysis,
  SummarizationPreprocess,
  SummarizationScorerOptions,
} from './index'

/** Mastra-side identity and hooks, accepted by every factory of `oxeval/mastra`. */
export interface MastraScorerOptions<TID extends string = string> {
  /** The scorer's id in Mastra (registration, saved scores, runEvals' keys). Default: oxeval's id. */
  id?: TID
  name?: string
  description?: string
  /** Mastra's `prepareRun` (e.g. `filterRun({ … })`): runs before the scorer_run span. */
  prepareRun?: ScorerConfig<TID>['prepareRun']
}

/** The accumulated step results Mastra's types read the result's fields from. */
export type OxevalStepResults<TPre, TAnalyze> = {
  preprocessStepResult: TPre
  analyzeStepResult: TAnalyze
  generateScoreStepResult: number
  generateReasonStepResult: string
}

/** Mastra's result plus oxeval's judge records (`judge[step].executions[i]`) and warnings. */
export type OxevalMastraResult<TPre, TAnalyze> = ScorerRunResult<OxevalStepResults<TPre, TAnalyze>, any, any> & {
  judge?: JudgeRecord
  warnings?: string[]
}

/** A real `MastraScorer` whose pipeline is oxeval's. */
export declare class OxevalMastraScorer<TID extends string = string, TPre = unknown, TAnalyze = unknown> extends MastraScorer<
  TID,
  any,
  any,
  OxevalStepResults<TPre, TAnalyze>
> {
  /** oxeval's steps (an LLM step is `type: 'prompt'`). */
  getSteps(): ScorerStep[]
  /** Response cache statistics, or `null` when caching is off. */
  cacheStats(): CacheStats | null
  /** Mastra's run (spans, scoreTraceId, observability score) around oxeval's pipeline. */
  run(input: MastraScorerRun<any, any>, options?: RunOptions): Promise<OxevalMastraResult<TPre, TAnalyze>>
}

export declare function createAnswerRelevancyScorer<TID extends string = 'answer-relevancy-scorer'>(
  options: AnswerRelevancyScorerOptions & MastraScorerOptions<TID>,
): OxevalMastraScorer<TID, AnswerRelevancyPreprocess, AnswerRelevancyAnalysis>
export declare function createFactualCorrectnessScorer<TID extends string = 'factual-correctness-scorer'>(
  options: FactualCorrectnessScorerOptions & MastraScorerOptions<TID>,
): OxevalMastraScorer<TID, FactualCorrectnessPreprocess, FactualCorrectnessAnalysis>
export declare function createAnswerAccuracyScorer<TID extends string = 'answer-accuracy-scorer'>(
  options: AnswerAccuracyScorerOptions & MastraScorerOptions<TID>,
): OxevalMastraScorer<TID, AnswerAccuracyPreprocess, AnswerAccuracyAnalysis>
export declare function createContextRelevanceScorer<TID extends string = 'nv-context-relevance-scorer'>(
  options: ContextRelevanceScorerOptions & MastraScorerOptions<TID>,
): OxevalMastraScorer<TID, ContextRelevancePreprocess, ContextRelevanceAnalysis>
export declare function createResponseGroundednessScorer<TID extends string = 'response-groundedness-scorer'>(
  options: ResponseGroundednessScorerOptions & MastraScorerOptions<TID>,
): OxevalMastraScorer<TID, ResponseGroundednessPreprocess, ResponseGroundednessAnalysis>
export declare function createContextRelevanceScorerLLM<TID extends string = 'context-relevance-scorer'>(
  options: ContextRelevanceLLMScorerOptions & MastraScorerOptions<TID>,
): OxevalMastraScorer<TID, ContextRelevanceLLMPreprocess, ContextRelevanceLLMAnalysis>
export declare function createAnswerSimilarityScorer<TID extends string = 'answer-similarity-scorer'>(
  options: AnswerSimilarityScorerOptions & MastraScorerOptions<TID>,
): OxevalMastraScorer<TID, AnswerSimilarityPreprocess, AnswerSimilarityAnalysis>
export declare function createSummarizationScorer<TID extends string = 'summarization-scorer'>(
  options: SummarizationScorerOptions & MastraScorerOptions<TID>,
): OxevalMastraScorer<TID, SummarizationPreprocess, SummarizationAnalysis>
export declare function createNoiseSensitivityScorerLLM<TID extends string = 'noise-sensitivity-scorer'>(
  options: NoiseSensitivityLLMScorerOptions & MastraScorerOptions<TID>,
): OxevalMastraScorer<TID, NoiseSensitivityLLMPreprocess, NoiseSensitivityLLMAnalysis>

/** A failed step: Mastra's own `ScorerRunError` (a MastraError) with oxeval's fields. */
export declare class ScorerRunError extends MastraScorerRunError {
  name: 'ScorerRunError'
  code: OxevalErrorCode
  /** oxeval's step name (may also be 'contextExtractor'). */
  readonly failedStep: any
  readonly result?: any
  cause?: any
}

/** The run's AbortSignal fired (a MastraError, id `OXEVAL_SCORER_RUN_ABORTED`). */
export declare class AbortError extends MastraError {
  name: 'AbortError'
  code: 'OXEVAL_ABORTED'
  failedStep: string | undefined
  completedSteps: string[]
  result: PartialScorerResult | undefined
}
