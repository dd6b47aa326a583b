// The embeddings endpoints of the judge server: OpenAI `POST …/embeddings`, Azure OpenAI
// `POST …/deployments/{d}/embeddings?api-version=…` and Gemini `POST …:batchEmbedContents`.
// Each request is recorded like a chat request (`api`: `openai-embeddings`,
// `azure-embeddings`, `google-embeddings`; `texts`: the texts it carried). The answer: the
// first matching `onEmbeddings` rule's reply, else a vector per text — a scripted one
// (`scriptEmbedding(text, vector)`) or the default: a bag of seeded hashed word vectors
// (deterministic, float32-exact, similar texts get similar vectors). The chat faults apply.

/** The embeddings wire of a request path (undefined: not an embeddings request). */
export function embeddingsApi(path) {
  if (/:batchEmbedContents$/.test(path)) return 'google-embeddings'
  if (/\/deployments\/[^/]+\/embeddings$/.test(path)) return 'azure-embeddings'
  if (/\/embeddings$/.test(path)) return 'openai-embeddings'
  return undefined
}

/** The texts of an embeddings request body (OpenAI `input`: a string or strings; Gemini `requests[].content.parts[].text`). */
export function embeddingTexts(api, body) {
  if (!body || typeof body !== 'object') return []
  if (api === 'google-embeddings') {
    const reqs = Array.isArray(body.requests) ? body.requests : []
    return reqs.map((r) => (r?.content?.parts ?? []).map((p) => (typeof p?.text === 'string' ? p.text : '')).join(''))
  }
  const input = body.input
  if (typeof input === 'string') return [input]
  return Array.isArray(input) ? input.map((t) => (typeof t === 'string' ? t : JSON.stringify(t))) : []
}

/** The 400 an embeddings request gets, if any. */
export function invalidEmbeddings(rec) {
  if (rec.api === 'google-embeddings') {
    if (!Array.isArray(rec.body?.requests) || rec.body.requests.length === 0) return 'judge-server: `requests` must be a non-empty list'
    if (rec.body.requests.length > 100) return 'judge-server: at most 100 requests are allowed per batch'
    return undefined
  }
  if (rec.body?.model === undefined && rec.api === 'openai-embeddings') return 'judge-server: `model` is required'
  const input = rec.body?.input
  if (typeof input !== 'string' && !(Array.isArray(input) && input.length > 0)) return 'judge-server: `input` must be a string or a non-empty list'
  if (Array.isArray(input) && input.length > 2048) return 'judge-server: at most 2048 inputs are allowed per request'
  if (rec.texts.some((t) => t === '')) return "judge-server: '$.input' is invalid: an input must not be empty"
  return undefined
}

/** FNV-1a over the UTF-8 bytes of `s`, then a xorshift stream. */
function stream(s) {
  let h = 0x811c9dc5
  for (const b of Buffer.from(s, 'utf8')) h = Math.imul(h ^ b, 0x01000193) >>> 0
  let x = h || 1
  return () => {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    return x
  }
}

/**
 * The default vector of `text` (`dims` numbers): the sum over its lower-cased words (letters
 * and digits) of a seeded vector of integers in [-64, 64] per word (the whole text when it has
 * no word), divided by 64: exact in float32, never all zero.
 */
export function defaultEmbedding(text, dims = 16) {
  const v = new Array(dims).fill(0)
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [text]
  for (const w of words) {
    const next = stream(w)
    for (let i = 0; i < dims; i++) v[i] += (next() % 129) - 64
  }
  if (v.every((x) => x === 0)) v[0] = 64
  return v.map((x) => x / 64)
}

/** A float vector as OpenAI's `encoding_format: 'base64'` (little-endian float32). */
const base64 = (v) => Buffer.from(new Float32Array(v).buffer).toString('base64')

/**
 * The reply to an embeddings request: `reply.embeddings` (vectors as given), else a vector
 * per text (`scripted` first, then the default). Returns { status, headers, payload }.
 */
export function renderEmbeddings(reply, rec, { scripted, dims }) {
  const headers = { 'content-type': 'application/json', ...(reply.headers ?? {}) }
  if (typeof reply.body === 'string') return { status: reply.status ?? 200, headers, payload: reply.body }
  if (reply.status != null && reply.status >= 400) {
    const message = reply.content ?? `judge-server: scripted HTTP ${reply.status}`
    const error = rec.api === 'google-embeddings' ? { code: reply.status, message, status: 'ERROR' } : { message, type: 'error', code: null }
    return { status: reply.status, headers, payload: JSON.stringify({ error }) }
  }
  if (reply.fault === 'empty') return { status: 200, headers, payload: '' }
  // a content reply (e.g. the invalid-json fault) is the body as it is
  if (typeof reply.content === 'string' && reply.embeddings === undefined) return { status: reply.status ?? 200, headers, payload: reply.content }
  const vectors = Array.isArray(reply.embeddings) ? reply.embeddings : rec.texts.map((t) => scripted.get(t) ?? defaultEmbedding(t, dims))
  if (rec.api === 'google-embeddings') {
    return { status: 200, headers, payload: JSON.stringify({ embeddings: vectors.map((values) => ({ values })) }) }
  }
  const b64 = rec.body?.encoding_format === 'base64'
  const tokens = rec.texts.reduce((n, t) => n + Math.max(1, Math.ceil(t.length / 4)), 0)
  return {
    status: 200,
    headers,
    payload: JSON.stringify({
      object: 'list',
      data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding: b64 && Array.isArray(embedding) ? base64(embedding) : embedding })),
      model: rec.body?.model ?? 'judge-server-embedding',
      usage: { prompt_tokens: tokens, total_tokens: tokens, ...reply.usage },
    }),
  }
}
