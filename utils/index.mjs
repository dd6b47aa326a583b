// `oxeval/utils`, ESM: re-exports the CommonJS entry.
import m from './index.js'

export const {
  getTextContentFromMastraDBMessage,
  getUserMessageFromRunInput,
  getAssistantMessageFromRunOutput,
  getSystemMessagesFromRunInput,
  getCombinedSystemPrompt,
  getConversationHistoryFromRunInput,
  getReasoningFromRunOutput,
  extractInputMessages,
  extractAgentResponseMessages,
  extractToolCalls,
  extractToolResults,
  compareTrajectories,
  checkTrajectoryEfficiency,
  checkTrajectoryBlacklist,
  analyzeToolFailures,
  isScorerRunInputForAgent,
  isScorerRunOutputForAgent,
  roundToTwoDecimals,
  isCloserTo,
  mergeToolInvocations,
  extractTrajectory,
  createToolInvocation,
  createTestMessage,
  createAgentTestRun,
  createTrajectoryTestRun,
  createTestRun,
} = m
export default m
