// Google Gemini (POST …/models/{m}:generateContent): `contents` of `parts`, a
// `systemInstruction`, structured output as `generationConfig.responseJsonSchema` (or the
// OpenAPI-subset `responseSchema`) whose `title` is the schema name.
import { partsToString } from './content.mjs'
import { geminiLogprobs } from './logprobs.mjs'

/** Google's error `status` for an HTTP status. */
function errorStatus(status) {
  const known = {
    400: 'INVALID_ARGUMENT',
    401: 'UNAUTHENTICATED',
    403: 'PERMISSION_DENIED',
    404: 'NOT_FOUND',
    429: 'RESOURCE_EXHAUSTED',
    500: 'INTERNAL',
    503: 'UNAVAILABLE',
    504: 'DEADLINE_EXCEEDED',
  }
  return known[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION')
}

/** Gemini `finishReason` for a reply's finish reason (OpenAI names or Gemini's own). */
function finishReasonOf(finishReason) {
  if (finishReason === 'stop') return 'STOP'
  if (finishReason === 'length') return 'MAX_TOKENS'
  if (finishReason === 'content_filter' || finishReason === 'refusal') return 'SAFETY'
  return finishReason
}

const BLOCKED = ['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII']

export const google = Object.freeze({
  name: 'google',
  matches: (path) => path.endsWith(':generateContent'),

  read(body) {
    const contents = Array.isArray(body?.contents) ? body.contents : []
    const system = partsToString(body?.systemInstruction?.parts)
    return {
      system,
      user: contents
        .filter((c) => (c?.role ?? 'user') === 'user')
        .map((c) => partsToString(c?.parts))
        .join('\n'),
      text: [system, ...contents.map((c) => partsToString(c?.parts))].filter((t) => t !== '').join('\n'),
    }
  },

  invalid(rec) {
    if (!Array.isArray(rec.body.contents)) return 'judge-server: request body has no "contents" array'
    return undefined
  },

  stream: () => false,
  promptChars: (rec) => rec.text.length,

  schemaName(body) {
    const config = body?.generationConfig
    const title = config?.responseJsonSchema?.title ?? config?.responseSchema?.title
    return typeof title === 'string' ? title : undefined
  },
  schema(body) {
    const g = body?.generationConfig?.responseJsonSchema ?? body?.generationConfig?.responseSchema
    return g && typeof g === 'object' ? g : undefined
  },

  errorPayload: (status, message) => JSON.stringify({ error: { code: status, message, status: errorStatus(status) } }),

  /** A `generateContent` response; a blocked finish reason carries no content. */
  render(reply, rec, { content, finishReason, usage, status, extra }) {
    const reason = finishReasonOf(finishReason)
    const candidate = { index: 0, finishReason: reason }
    if (!BLOCKED.includes(reason)) candidate.content = { role: 'model', parts: content === '' ? [] : [{ text: content }] }
    const logprobsResult = geminiLogprobs(reply)
    if (logprobsResult) candidate.logprobsResult = logprobsResult
    const payload = {
      candidates: [candidate],
      usageMetadata: { promptTokenCount: usage.prompt_tokens, candidatesTokenCount: usage.completion_tokens, totalTokenCount: usage.total_tokens },
      modelVersion:
        rec.path
          .split('/')
          .pop()
          ?.replace(/:generateContent$/, '') ?? 'oxeval-fake-judge',
    }
    return { status, headers: { 'content-type': 'application/json', ...extra }, payload: JSON.stringify(payload) }
  },
})
