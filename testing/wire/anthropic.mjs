// Anthropic Messages (POST …/messages): `system` beside the messages, a forced tool
// (`tool_choice: { type: 'tool', name }`) for structured output, `tool_use` blocks in the reply.
import { contentToString, joinMessages } from './content.mjs'

/** Anthropic's error `type` for an HTTP status. */
function errorType(status) {
  if (status === 400) return 'invalid_request_error'
  if (status === 401) return 'authentication_error'
  if (status === 403) return 'permission_error'
  if (status === 404) return 'not_found_error'
  if (status === 413) return 'request_too_large'
  if (status === 429) return 'rate_limit_error'
  if (status === 529) return 'overloaded_error'
  return status >= 500 ? 'api_error' : 'invalid_request_error'
}

/** Anthropic `stop_reason` for a reply's finish reason (OpenAI names or Anthropic's own). */
function stopReason(finishReason, toolUse) {
  if (finishReason === 'stop') return toolUse ? 'tool_use' : 'end_turn'
  if (finishReason === 'length') return 'max_tokens'
  if (finishReason === 'content_filter') return 'refusal'
  return finishReason
}

const forcedTool = (body) => (body?.tool_choice?.type === 'tool' && typeof body.tool_choice.name === 'string' ? body.tool_choice.name : undefined)

export const anthropic = Object.freeze({
  name: 'anthropic',
  matches: (path) => path.endsWith('/messages'),

  read(body) {
    const messages = Array.isArray(body?.messages) ? body.messages : []
    const system = contentToString(body?.system)
    return {
      system,
      user: joinMessages(messages, (r) => r === 'user'),
      text: [system, joinMessages(messages, () => true)].filter((t) => t !== '').join('\n'),
    }
  },

  invalid(rec) {
    if (!Array.isArray(rec.body.messages)) return 'judge-server: request body has no "messages" array'
    if (typeof rec.body.max_tokens !== 'number') return 'judge-server: max_tokens: Field required'
    return undefined
  },

  stream: () => false,
  promptChars: (rec) => rec.text.length,

  /** The forced tool's name and its `input_schema`. */
  schemaName: forcedTool,
  schema(body) {
    const name = forcedTool(body)
    if (name === undefined || !Array.isArray(body.tools)) return undefined
    return body.tools.find((t) => t?.name === name)?.input_schema || undefined
  },

  errorPayload: (status, message) => JSON.stringify({ type: 'error', error: { type: errorType(status), message } }),

  /** A message: a forced tool call answers with a `tool_use` block when the content is a JSON object. */
  render(reply, rec, { content, finishReason, usage, status, extra }) {
    const body = rec.body ?? {}
    const forced = body.tool_choice?.type === 'tool' ? body.tool_choice.name : undefined
    let input
    if (forced !== undefined && reply.fault !== 'empty') {
      let value = reply.json
      if (value === undefined) {
        try {
          value = JSON.parse(content)
        } catch {
          value = undefined
        }
      }
      if (value && typeof value === 'object' && !Array.isArray(value)) input = value
    }
    const blocks = input !== undefined ? [{ type: 'tool_use', id: `toolu_judge${rec.index}`, name: forced, input }] : content === '' ? [] : [{ type: 'text', text: content }]
    const payload = {
      id: `msg_judge${rec.index}`,
      type: 'message',
      role: 'assistant',
      model: typeof body.model === 'string' ? body.model : 'oxeval-fake-judge',
      content: blocks,
      stop_reason: stopReason(finishReason, input !== undefined),
      stop_sequence: null,
      usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens },
    }
    return { status, headers: { 'content-type': 'application/json', ...extra }, payload: JSON.stringify(payload) }
  },
})
