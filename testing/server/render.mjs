// From a selected reply object to { status, headers, payload } in the request's wire format:
// a raw `body` as it is, an HTTP error in the format's error shape, else the format's reply.
import { estimateTokens } from '../wire/content.mjs'
import { wireNamed } from '../wire/index.mjs'
import { replyContent } from './faults.mjs'

/** Normalizes a resolved reply value (string | object) to a reply object. */
export function normalizeReply(value) {
  if (typeof value === 'string') return { content: value }
  if (value && typeof value === 'object') return value
  return {
    status: 500,
    content: `judge-server: reply resolved to ${value === undefined ? 'undefined' : typeof value}, expected a string or reply object`,
  }
}

/** Builds {status, headers, payload (string | string[] of SSE events)} for a reply. */
export function render(reply, rec) {
  const extra = reply.headers ?? {}
  if (typeof reply.body === 'string') {
    return {
      status: reply.status ?? 200,
      headers: { 'content-type': rec.stream ? 'text/event-stream' : 'application/json', ...extra },
      payload: reply.body,
    }
  }
  const wire = wireNamed(rec.api)
  if (reply.status != null && reply.status >= 400) {
    const message = reply.content ?? `judge-server: scripted HTTP ${reply.status}`
    return { status: reply.status, headers: { 'content-type': 'application/json', ...extra }, payload: wire.errorPayload(reply.status, message, reply) }
  }
  const content = replyContent(reply)
  const usage = { prompt_tokens: estimateTokens(wire.promptChars(rec)), completion_tokens: estimateTokens(content.length), ...reply.usage }
  if (reply.usage?.total_tokens == null) usage.total_tokens = usage.prompt_tokens + usage.completion_tokens
  return wire.render(reply, rec, { content, finishReason: reply.finishReason ?? 'stop', usage, status: reply.status ?? 200, extra })
}
