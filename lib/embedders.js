'use strict'
// Embedders given as JS values (the `embedder` option): an AI SDK `EmbeddingModel`
// (specificationVersion v2/v3, `doEmbed({ values, abortSignal })`) or a plain function
// `(texts, { signal }) => number[][] | Promise<number[][]>`. The core calls them through the
// host channel (kind `embed`: `{ texts, timeoutMs, runKey? }` → `{ ok, embeddings, usage }`)
// and checks the vectors; `embedderOf` says how `options.embedder` reaches the core.

const { jsType } = require('./json.js')
const { callSignal } = require('./host.js')

function errorReply(e) {
  const error = {
    name: (e && e.name) || 'Error',
    message: e && e.message !== undefined ? String(e.message) : String(e),
    retryable: Boolean(e && e.isRetryable === true),
  }
  return JSON.stringify({ ok: false, error })
}

/** A vector as a plain array (a typed array too); anything else as it is, for the core to refuse. */
const plain = (v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)

/** The reply of `embeddings` (checked by the core: count, finite numbers, one dimension). */
function reply(embeddings, tokens) {
  if (!Array.isArray(embeddings)) {
    return errorReply(new TypeError(`the embedder returned ${jsType(embeddings)}; expected an array of vectors (number[][])`))
  }
  // a non-finite number becomes null in JSON: the core refuses it by name
  const usage = typeof tokens === 'number' && Number.isFinite(tokens) ? { inputTokens: tokens, totalTokens: tokens } : undefined
  return JSON.stringify({ ok: true, embeddings: embeddings.map(plain), usage })
}

const isEmbeddingModel = (m) => m !== null && typeof m === 'object' && typeof m.doEmbed === 'function'

function modelCaller(model) {
  return async (req) => {
    try {
      const signal = callSignal(req.runKey, req.timeoutMs)
      const most = Number.isInteger(model.maxEmbeddingsPerCall) && model.maxEmbeddingsPerCall > 0 ? model.maxEmbeddingsPerCall : req.texts.length
      const embeddings = []
      let tokens = 0
      for (let i = 0; i < req.texts.length; i += most) {
        const r = await model.doEmbed({ values: req.texts.slice(i, i + most), abortSignal: signal })
        if (!r || !Array.isArray(r.embeddings)) return reply(r && r.embeddings)
        embeddings.push(...r.embeddings)
        const t = r.usage && r.usage.tokens
        if (typeof t === 'number') tokens += t
      }
      return reply(embeddings, tokens || undefined)
    } catch (e) {
      return errorReply(e)
    }
  }
}

function functionCaller(fn) {
  return async (req) => {
    try {
      return reply(await fn(req.texts.slice(), { signal: callSignal(req.runKey, req.timeoutMs) }))
    } catch (e) {
      return errorReply(e)
    }
  }
}

/** How `options.embedder` reaches the core: as data, or as a caller plus its name. */
function embedderOf(m) {
  if (isEmbeddingModel(m)) {
    const v = m.specificationVersion
    if (v !== 'v2' && v !== 'v3') return { kind: 'unsupportedEmbeddingModel', provider: '', modelId: String(v) }
    return { kind: 'embeddingModel', provider: String(m.provider || 'ai-sdk'), modelId: String(m.modelId || 'embedding'), caller: modelCaller(m) }
  }
  if (typeof m === 'function') return { kind: 'function', provider: 'function', modelId: m.name || 'anonymous', caller: functionCaller(m) }
  return { kind: 'data' }
}

module.exports = { embedderOf }
