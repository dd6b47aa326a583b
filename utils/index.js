'use strict'
// `oxeval/utils`: the helpers Mastra users import from `@mastra/evals/scorers/utils`. The
// logic is the core's (crates/oxeval-core/src/agent: ONE implementation, the one the code
// scorers and checks run); this file marshals: arguments as JSON text, the answer back,
// a failure as a TypeError (a bad argument) or an Error (Mastra's own throws, e.g. an
// invalid trajectory budget). mergeToolInvocations and extractTrajectory hand back the
// caller's own objects (the core answers with positions). The test-data builders are plain
// data construction.

const native = require('../load-binding.js')
const { toJson } = require('../lib/json.js')

function call(name, args) {
  const t = toJson(args)
  if (t.error !== undefined) throw new TypeError(`${name}(): its arguments must be JSON-serializable data (${t.error})`)
  const r = JSON.parse(native.agentUtil(name, t.json))
  if (r.ok) return r.value
  const E = r.name === 'TypeError' ? TypeError : Error
  throw new E(r.message)
}

const helper = (name) => {
  const f = { [name]: (...args) => call(name, args) }[name]
  return f
}

const names = [
  'getTextContentFromMastraDBMessage',
  'getUserMessageFromRunInput',
  'getAssistantMessageFromRunOutput',
  'getSystemMessagesFromRunInput',
  'getCombinedSystemPrompt',
  'getConversationHistoryFromRunInput',
  'getReasoningFromRunOutput',
  'extractInputMessages',
  'extractAgentResponseMessages',
  'extractToolCalls',
  'extractToolResults',
  'compareTrajectories',
  'checkTrajectoryEfficiency',
  'checkTrajectoryBlacklist',
  'analyzeToolFailures',
  'isScorerRunInputForAgent',
  'isScorerRunOutputForAgent',
  'roundToTwoDecimals',
  'isCloserTo',
]
for (const n of names) exports[n] = helper(n)

/** Mastra's merge of `content.parts` tool invocations and the legacy `content.toolInvocations` (the caller's objects). */
exports.mergeToolInvocations = function mergeToolInvocations(message) {
  const order = call('mergeToolInvocations', [message])
  const c = message && message.content
  return order.map(([from, i]) => (from === 'part' ? c.parts[i].toolInvocation : c.toolInvocations[i]))
}

/** `@mastra/core`'s extractTrajectory: one tool_call step per call; `rawOutput` is the output itself. */
exports.extractTrajectory = function extractTrajectory(output) {
  const { steps } = call('extractTrajectory', [output])
  return { steps, rawOutput: output }
}

// ---- test-data builders (Mastra's shapes) ----

exports.createToolInvocation = function createToolInvocation({ toolCallId, toolName, args, result, state = 'result', errorText, isError }) {
  return {
    toolCallId,
    toolName,
    args,
    result,
    state,
    ...(errorText !== undefined && { errorText }),
    ...(isError !== undefined && { isError }),
  }
}

exports.createTestMessage = function createTestMessage({ content, role, id = 'test-message', toolInvocations = [], parts }) {
  return {
    id,
    role,
    content: {
      format: 2,
      parts: parts ?? [{ type: 'text', text: content }],
      content,
      ...(toolInvocations.length > 0 && {
        toolInvocations: toolInvocations.map((ti) => ({ toolCallId: ti.toolCallId, toolName: ti.toolName, args: ti.args, result: ti.result, state: ti.state })),
      }),
    },
    createdAt: new Date(),
  }
}

/** Mastra's default requestContext is a `RequestContext` of @mastra/core (an optional peer): used when installed. */
function defaultRequestContext() {
  try {
    const { RequestContext } = require('@mastra/core/request-context')
    return new RequestContext()
  } catch {
    return undefined
  }
}

exports.createAgentTestRun = function createAgentTestRun({ inputMessages = [], output, rememberedMessages = [], systemMessages = [], taggedSystemMessages = {}, requestContext = defaultRequestContext(), runId = crypto.randomUUID() }) {
  return { input: { inputMessages, rememberedMessages, systemMessages, taggedSystemMessages }, output, requestContext, runId }
}

exports.createTrajectoryTestRun = function createTrajectoryTestRun({ inputMessages = [], trajectory, rememberedMessages = [], systemMessages = [], taggedSystemMessages = {}, requestContext = defaultRequestContext(), runId = crypto.randomUUID(), expectedTrajectory }) {
  return { input: { inputMessages, rememberedMessages, systemMessages, taggedSystemMessages }, output: trajectory, expectedTrajectory, requestContext, runId }
}

exports.createTestRun = function createTestRun(input, output, additionalContext, requestContext) {
  return { input: [{ role: 'user', content: input }], output: { role: 'assistant', text: output }, additionalContext: additionalContext ?? {}, requestContext: requestContext ?? {} }
}
