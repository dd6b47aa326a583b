'use strict'
// Judge models supplied as JS values: the `judgeModel` handler of the host channel (host.js),
// `(request) => replyJson`, never rejecting, over an AI SDK LanguageModel (specification
// v2/v3) or a plain function. `modelOf` says how `options.model` reaches the core.

const { jsType, toJson } = require('./json.js')
const { runContexts, callSignal } = require('./host.js')

function errorReply(e) {
  const error = {
    name: (e && e.name) || 'Error',
    message: e && e.message !== undefined ? String(e.message) : String(e),
    retryable: Boolean(e && e.isRetryable === true),
  }
  const status = e && (e.statusCode ?? e.status)
  if (Number.isInteger(status) && status >= 400 && status <= 599) error.status = status
  return JSON.stringify({ ok: false, error })
}

/**
 * One reported token count as the core reads it: a finite number as it is (the core rounds
 * a fraction, caps a huge one, drops a negative one, with a warning); a non-finite number or
 * a string as (short) text, so the core can say what it dropped; anything else left out.
 */
function count(x) {
  if (typeof x === 'number') return Number.isFinite(x) ? x : String(x)
  if (typeof x === 'string') return x.slice(0, 40)
  if (typeof x === 'bigint') return x.toString()
  return undefined
}

/** AI SDK usage (v2: numbers; v3: `{ inputTokens: { total, cacheRead }, outputTokens: { total, reasoning } }`). */
function usageOf(u) {
  if (!u || typeof u !== 'object') return undefined
  const inp = u.inputTokens
  const out = u.outputTokens
  return {
    inputTokens: count(typeof inp === 'object' && inp ? inp.total : inp),
    outputTokens: count(typeof out === 'object' && out ? out.total : out),
    totalTokens: count(u.totalTokens),
    reasoningTokens: count(typeof out === 'object' && out ? out.reasoning : u.reasoningTokens),
    cachedInputTokens: count(typeof inp === 'object' && inp ? inp.cacheRead : u.cachedInputTokens),
  }
}

async function generateWith(model, req) {
  const prompt = []
  if (req.system) prompt.push({ role: 'system', content: req.system })
  prompt.push({ role: 'user', content: [{ type: 'text', text: req.prompt }] })
  // the run's abort or the call's timeout, whichever comes first, cancels the model's request
  const call = { prompt, abortSignal: callSignal(req.runKey, req.timeoutMs) }
  if (req.schema) call.responseFormat = { type: 'json', schema: req.schema.schema, name: req.schema.name }
  if (req.temperature !== undefined) call.temperature = req.temperature
  if (req.maxOutputTokens !== undefined) call.maxOutputTokens = req.maxOutputTokens
  const r = await model.doGenerate(call)
  const content = r && Array.isArray(r.content) ? r.content : []
  const text = content.filter((p) => p && p.type === 'text').map((p) => p.text).join('')
  const reasoning = content.filter((p) => p && p.type === 'reasoning').map((p) => p.text).join('')
  const finish = r && (typeof r.finishReason === 'string' ? r.finishReason : r.finishReason && r.finishReason.unified)
  return JSON.stringify({
    ok: true,
    text,
    reasoning: reasoning || undefined,
    // the engine's vocabulary: 'length' means cut off by the output budget
    finishReason: finish === 'content-filter' ? 'content_filter' : finish,
    refusal: finish === 'content-filter' && !text ? "the model's content filter blocked the answer" : undefined,
    usage: usageOf(r && r.usage),
  })
}

const isLanguageModel = (m) => m !== null && typeof m === 'object' && typeof m.doGenerate === 'function'

function languageModelCaller(model) {
  return async (req) => {
    try {
      return await generateWith(model, req)
    } catch (e) {
      return errorReply(e)
    }
  }
}

/**
 * A function judge: called per request with `{ requestContext, system, prompt, schema,
 * schemaName, temperature, maxOutputTokens, signal }` (`requestContext`: the run's own object,
 * as given); returns the answer (a string or `{ text, usage? }`) — or, like Mastra's dynamic
 * models (`({ requestContext }) => model`), a language model object, which then answers.
 */
function functionCaller(fn) {
  return async (req) => {
    try {
      const r = await fn({
        requestContext: req.runKey !== undefined ? runContexts.get(req.runKey) : undefined,
        system: req.system,
        prompt: req.prompt,
        schema: req.schema ? req.schema.schema : undefined,
        schemaName: req.schema ? req.schema.name : undefined,
        temperature: req.temperature,
        maxOutputTokens: req.maxOutputTokens,
        signal: callSignal(req.runKey, req.timeoutMs),
      })
      if (isLanguageModel(r)) return await generateWith(r, req)
      if (typeof r === 'string') return JSON.stringify({ ok: true, text: r })
      if (r && typeof r === 'object' && typeof r.text === 'string') {
        return JSON.stringify({ ok: true, text: r.text, usage: usageOf(r.usage), finishReason: r.finishReason })
      }
      return errorReply(
        new TypeError(`the judge function returned ${jsType(r)}; expected a string, { text, usage? } or a language model object`),
      )
    } catch (e) {
      return errorReply(e)
    }
  }
}

/** An evaluation model (AI SDK's experimental `EvaluationModelV4`, Mastra's `MastraEvaluationModel`). */
const isEvaluationModel = (m) => m !== null && typeof m === 'object' && typeof m.doEvaluate === 'function'

/**
 * The `evaluationModel` handler: request `{ runKey, state, questions, providerOptions }` →
 * `doEvaluate` once (the core retries) → `{ ok: true, result }` with the response's timestamp
 * as ISO text and without its headers and body (the evidence keeps id, timestamp, modelId);
 * a failure `{ ok: false, error: { name, message, retryable } }`. Never rejects.
 */
function evaluationCaller(model) {
  return async (req) => {
    try {
      const call = { state: req.state, questions: req.questions, abortSignal: callSignal(req.runKey) }
      if (req.providerOptions !== undefined && req.providerOptions !== null) call.providerOptions = req.providerOptions
      const r = await model.doEvaluate(call)
      const res = r && typeof r.response === 'object' && r.response !== null ? r.response : undefined
      const ts = res && res.timestamp
      const response = res && { id: res.id, modelId: res.modelId, timestamp: ts instanceof Date ? ts.toISOString() : ts }
      const t = toJson({ ok: true, result: r && typeof r === 'object' ? { ...r, response } : r })
      if (t.error !== undefined) throw new TypeError(`the evaluation model returned a result that is not JSON data (${t.error})`)
      return t.json
    } catch (e) {
      return errorReply(e)
    }
  }
}

/** How `options.model` reaches the core: as data, or as a caller plus its name. */
function modelOf(m) {
  if (isEvaluationModel(m)) {
    return { kind: 'evaluationModel', provider: String(m.provider || 'evaluation'), modelId: String(m.modelId || 'model'), caller: evaluationCaller(m) }
  }
  if (isLanguageModel(m)) {
    const v = m.specificationVersion
    if (v !== 'v2' && v !== 'v3') return { kind: 'unsupportedLanguageModel', provider: '', modelId: String(v) }
    return { kind: 'languageModel', provider: String(m.provider || 'ai-sdk'), modelId: String(m.modelId || 'model'), caller: languageModelCaller(m) }
  }
  if (typeof m === 'function') return { kind: 'function', provider: 'function', modelId: m.name || 'anonymous', caller: functionCaller(m) }
  return { kind: 'data' }
}

module.exports = { modelOf, isEvaluationModel }
