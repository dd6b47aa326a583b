// OpenAI Chat Completions (POST …/chat/completions) and Azure OpenAI
// (POST …/openai/deployments/{d}/chat/completions?api-version=…): the same body and reply.
import { contentToString, joinMessages, splitPieces } from './content.mjs'
import { openaiLogprobs } from './logprobs.mjs'

/** Default OpenAI-ish error `type`/`code` for an HTTP status. */
function errorShape(status) {
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded' }
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' }
  if (status === 404) return { type: 'invalid_request_error', code: 'not_found' }
  if (status >= 400 && status < 500) return { type: 'invalid_request_error', code: 'bad_request' }
  return { type: 'server_error', code: 'server_error' }
}

const chat = {
  name: 'openai',
  matches: (path) => path.endsWith('/chat/completions'),

  /** system / user / whole-prompt texts of a request body. */
  read(body) {
    const messages = Array.isArray(body?.messages) ? body.messages : []
    return {
      system: joinMessages(messages, (r) => r === 'system' || r === 'developer'),
      user: joinMessages(messages, (r) => r === 'user'),
      text: joinMessages(messages, () => true),
    }
  },

  /** Why the request is rejected with a 400 (undefined: valid). */
  invalid(rec) {
    if (!Array.isArray(rec.body.messages)) return 'judge-server: request body has no "messages" array'
    return undefined
  },

  stream: (body) => body?.stream === true,

  /** Characters of the prompt, for the usage estimate. */
  promptChars: (rec) => (Array.isArray(rec.body?.messages) ? rec.body.messages : []).reduce((n, m) => n + contentToString(m?.content).length, 0),

  /** The structured-output schema name and schema a body carries (`response_format.json_schema`). */
  schemaName: (body) => (typeof body?.response_format?.json_schema?.name === 'string' ? body.response_format.json_schema.name : undefined),
  schema(body) {
    const s = body?.response_format?.json_schema?.schema
    return s && typeof s === 'object' ? s : undefined
  },

  errorPayload(status, message, reply) {
    const shape = errorShape(status)
    return JSON.stringify({ error: { message, type: shape.type, param: reply.param ?? null, code: reply.errorCode ?? shape.code } })
  },

  /** A chat completion, or its SSE chunks when the request streams. */
  render(reply, rec, { content, finishReason, usage, status, extra }) {
    const body = rec.body ?? {}
    const id = `chatcmpl-judge${rec.index}`
    const created = Math.floor(Date.now() / 1000)
    const model = typeof body.model === 'string' ? body.model : 'oxeval-fake-judge'
    if (!rec.stream) {
      return {
        status,
        headers: { 'content-type': 'application/json', ...extra },
        payload: JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: openaiLogprobs(reply), finish_reason: finishReason }],
          usage,
        }),
      }
    }
    const chunk = (choices, more) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...more })}\n\n`
    const events = splitPieces(content, 4).map((piece, i) =>
      chunk([{ index: 0, delta: i === 0 ? { role: 'assistant', content: piece } : { content: piece }, finish_reason: null }]),
    )
    events.push(chunk([{ index: 0, delta: {}, finish_reason: finishReason }]))
    if (body.stream_options?.include_usage) events.push(chunk([], { usage }))
    events.push('data: [DONE]\n\n')
    return { status, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...extra }, payload: events }
  },
}

export const openai = Object.freeze(chat)

export const azure = Object.freeze({
  ...chat,
  name: 'azure',
  matches: (path) => /\/openai\/deployments\/[^/]+\/chat\/completions$/.test(path),
  invalid(rec) {
    return chat.invalid(rec) ?? (rec.query['api-version'] ? undefined : 'judge-server: Missing required query parameter: api-version')
  },
})
