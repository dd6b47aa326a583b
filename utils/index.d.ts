// `oxeval/utils`: Mastra's `@mastra/evals/scorers/utils` helpers over oxeval's one
// implementation of agent data (the core's `agent` module).

/** A Mastra message (`MastraDBMessage`), or any message-like object. */
export type MessageLike = { role?: string; content?: unknown; [key: string]: unknown }
/** A run's output: a message array (oxeval also takes a string, `{ messages }`, a message object, UI messages). */
export type OutputLike = MessageLike[] | string | { messages: MessageLike[] } | MessageLike
export interface ToolInvocation {
  toolCallId?: string
  toolName?: string
  args?: unknown
  result?: unknown
  state?: 'call' | 'partial-call' | 'result' | 'output-error' | 'approval-requested' | 'approval-responded' | 'output-denied' | string
  errorText?: string
  isError?: boolean
  [key: string]: unknown
}
export interface ToolCallInfo {
  toolName: string
  toolCallId: string
  messageIndex: number
  invocationIndex: number
}
export interface TrajectoryStep {
  name: string
  stepType?: string
  durationMs?: number
  metadata?: Record<string, unknown>
  children?: TrajectoryStep[]
  [key: string]: unknown
}
export interface Trajectory {
  steps: TrajectoryStep[]
  totalDurationMs?: number
  rawOutput?: unknown
  [key: string]: unknown
}
export interface TrajectoryExpectation {
  steps?: Array<{ name: string; stepType?: string; children?: TrajectoryExpectation; [key: string]: unknown }>
  ordering?: 'strict' | 'relaxed' | 'unordered'
  allowRepeatedSteps?: boolean
  maxSteps?: number
  maxTotalTokens?: number
  maxTotalDurationMs?: number
  noRedundantCalls?: boolean
  blacklistedTools?: string[]
  blacklistedSequences?: string[][]
  maxRetriesPerTool?: number
}
export interface TrajectoryComparisonResult {
  score: number
  matchedSteps: number
  totalExpectedSteps: number
  totalActualSteps: number
  missingSteps: string[]
  extraSteps: string[]
  outOfOrderSteps: string[]
  repeatedSteps: string[]
}
export interface TrajectoryEfficiencyResult {
  score: number
  totalSteps: number
  overStepBudget: boolean
  totalTokens: number
  overTokenBudget: boolean
  totalDurationMs: number
  overDurationBudget: boolean
  redundantCalls: Array<{ name: string; index: number }>
}
export interface TrajectoryBlacklistResult {
  score: number
  violatedTools: string[]
  violatedSequences: string[][]
}
export interface ToolFailureAnalysisResult {
  score: number
  patterns: Array<{ toolName: string; retryCount: number; fellBackToAlternative: boolean; alternativeTool?: string; eventuallySucceeded: boolean }>
  totalRetries: number
  excessiveRetryTools: string[]
}

export declare function getTextContentFromMastraDBMessage(message: MessageLike): string
export declare function getUserMessageFromRunInput(input: unknown): string | undefined
export declare function getAssistantMessageFromRunOutput(output: unknown): string | undefined
export declare function getSystemMessagesFromRunInput(input: unknown): string[]
export declare function getCombinedSystemPrompt(input: unknown): string
export declare function getConversationHistoryFromRunInput(input: unknown, options?: { maxMessages?: number }): string | undefined
export declare function getReasoningFromRunOutput(output: OutputLike | undefined): string | undefined
export declare function extractInputMessages(runInput: unknown): string[]
export declare function extractAgentResponseMessages(runOutput: OutputLike): string[]
export declare function extractToolCalls(output: OutputLike): { tools: string[]; toolCallInfos: ToolCallInfo[] }
export declare function mergeToolInvocations(message: MessageLike): ToolInvocation[]
export declare function extractToolResults(output: OutputLike): Array<{ toolName: string; toolCallId: string; args: unknown; result: unknown }>
export declare function extractTrajectory(output: OutputLike): Trajectory
export declare function compareTrajectories(actual: Trajectory, expected: { steps: NonNullable<TrajectoryExpectation['steps']> }, options?: { ordering?: 'strict' | 'relaxed' | 'unordered'; allowRepeatedSteps?: boolean }): TrajectoryComparisonResult
export declare function checkTrajectoryEfficiency(trajectory: Trajectory, options?: { maxSteps?: number; maxTotalTokens?: number; maxTotalDurationMs?: number; noRedundantCalls?: boolean }): TrajectoryEfficiencyResult
export declare function checkTrajectoryBlacklist(trajectory: Trajectory, options?: { blacklistedTools?: string[]; blacklistedSequences?: string[][] }): TrajectoryBlacklistResult
export declare function analyzeToolFailures(trajectory: Trajectory, options?: { maxRetriesPerTool?: number }): ToolFailureAnalysisResult
export declare function isScorerRunInputForAgent(input: unknown): boolean
export declare function isScorerRunOutputForAgent(output: unknown): boolean
export declare function roundToTwoDecimals(n: number): number
export declare function isCloserTo(value: number, target1: number, target2: number): boolean

export declare function createToolInvocation(options: ToolInvocation & { toolCallId: string; toolName: string; args: unknown }): ToolInvocation
export declare function createTestMessage(options: { content: string; role: 'user' | 'assistant' | 'system'; id?: string; toolInvocations?: ToolInvocation[]; parts?: unknown[] }): MessageLike & { id: string; createdAt: Date }
export interface AgentTestRunOptions {
  inputMessages?: MessageLike[]
  rememberedMessages?: MessageLike[]
  systemMessages?: unknown[]
  taggedSystemMessages?: Record<string, unknown[]>
  requestContext?: unknown
  runId?: string
}
export declare function createAgentTestRun(options: AgentTestRunOptions & { output: unknown }): { input: { inputMessages: MessageLike[]; rememberedMessages: MessageLike[]; systemMessages: unknown[]; taggedSystemMessages: Record<string, unknown[]> }; output: any; requestContext: unknown; runId: string }
export declare function createTrajectoryTestRun(options: AgentTestRunOptions & { trajectory: Trajectory; expectedTrajectory?: TrajectoryExpectation }): { input: { inputMessages: MessageLike[]; rememberedMessages: MessageLike[]; systemMessages: unknown[]; taggedSystemMessages: Record<string, unknown[]> }; output: Trajectory; expectedTrajectory?: TrajectoryExpectation; requestContext: unknown; runId: string }
export declare function createTestRun(input: string, output: string, additionalContext?: Record<string, unknown>, requestContext?: Record<string, unknown>): { input: Array<{ role: 'user'; content: string }>; output: { role: 'assistant'; text: string }; additionalContext: Record<string, unknown>; requestContext: Record<string, unknown> }
