'use strict'
// oxeval's public entry point: a thin facade over the generated napi binding (binding.js).
// Rust owns the run contract (argument checks and their messages, runId, deadline, the
// failure shape). This file only (1) marshals JS values into JSON text and describes what
// cannot cross (functions, AbortSignals) as data, (2) calls user callbacks (contextExtractor,
// and function options such as getContext when the core asks) under the deadline Rust
// started, (3) shapes results into Mastra's object, and (4) defines the error classes. The
// factory list is generated from the core's scorer registry (generated/scorers.js,
// `npm run generate`).

const native = require('./load-binding.js')
const SCORERS = require('./generated/scorers.js')

/** The eight step keys of Mastra's result, always present (undefined when not applicable). */
const STEP_KEYS = [
  'score',
  'generateScorePrompt',
  'reason',
  'generateReasonPrompt',
  'preprocessStepResult',
  'preprocessPrompt',
  'analyzeStepResult',
  'analyzePrompt',
]

function causeError(c) {
  if (!c) return undefined
  const e = new Error(c.message)
  e.name = c.name || 'Error'
  if (c.code !== undefined) e.code = c.code
  if (c.status !== undefined) e.status = c.status
  if (c.rawOutput !== undefined) e.rawOutput = c.rawOutput
  return e
}

/**
 * The fields Mastra's errors carry (MastraError: `id`, `domain`, `category`, `details`,
 * `toJSON()`), so error handling written for Mastra works on oxeval's errors. Kept in this
 * file (no import of @mastra/core: the main entry does not depend on it).
 */
function mastraFields(err, id, details) {
  err.id = id
  err.domain = 'SCORER'
  err.category = 'USER'
  err.details = details
}

/** `toJSON()` of a cause, as Mastra serializes one: name and message plus oxeval's fields. */
function causeJson(c) {
  if (!c || typeof c !== 'object') return c === undefined ? undefined : { message: String(c) }
  if (typeof c.toJSON === 'function') return c.toJSON()
  const j = { name: c.name, message: c.message }
  for (const k of ['code', 'status', 'rawOutput']) if (c[k] !== undefined) j[k] = c[k]
  return j
}

/** MastraError's methods, shared by both error classes. */
const mastraMethods = {
  /** Mastra's `toJSONDetails()`: message, domain, category, details. */
  toJSONDetails() {
    return { message: this.message, domain: this.domain, category: this.category, details: this.details }
  },
  /** Mastra's `toJSON()` (`code` is Mastra's error id; oxeval's code is `details.code`). */
  toJSON() {
    return {
      message: this.message,
      domain: this.domain,
      category: this.category,
      code: this.id,
      details: this.details,
      cause: causeJson(this.cause),
    }
  },
}

function withMastraMethods(cls) {
  for (const [k, fn] of Object.entries(mastraMethods)) {
    Object.defineProperty(cls.prototype, k, { value: fn, writable: true, configurable: true, enumerable: false })
  }
}

/** Thrown (as a rejection of `scorer.run()`) when a step fails. */
class ScorerRunError extends Error {
  constructor(failure, run) {
    super(failure.message, { cause: causeError(failure.cause) })
    this.name = 'ScorerRunError'
    this.code = failure.code
    this.failedStep = failure.failedStep
    this.completedSteps = failure.completedSteps || []
    this.result = shapeResult(run, failure.result || {})
    // Mastra's ScorerRunError id (MastraError fields), so Mastra-style handling matches
    mastraFields(this, 'MASTR_SCORER_FAILED_TO_RUN_WORKFLOW_FAILED', {
      code: this.code,
      failedStep: this.failedStep,
      completedSteps: this.completedSteps.join(', '),
    })
  }
}
withMastraMethods(ScorerRunError)

/** Rejection of `scorer.run()` when its AbortSignal fired. Keeps the partial result. */
class AbortError extends Error {
  constructor(message, failure, run, reason) {
    super(message, reason !== undefined ? { cause: reason } : undefined)
    this.name = 'AbortError'
    this.code = 'OXEVAL_ABORTED'
    this.failedStep = failure && failure.failedStep !== null ? failure.failedStep : undefined
    this.completedSteps = failure ? failure.completedSteps || [] : []
    this.result = failure && failure.result ? shapeResult(run, failure.result) : undefined
    mastraFields(this, 'OXEVAL_SCORER_RUN_ABORTED', {
      code: this.code,
      failedStep: this.failedStep ?? null,
      completedSteps: this.completedSteps.join(', '),
    })
  }
}
withMastraMethods(AbortError)

function typeError(message, code) {
  const e = new TypeError(message)
  e.code = code
  return e
}

/** Raise a core outcome `{ ok: false, kind, … }` as the matching error class. */
function raise(outcome, run, signal) {
  if (outcome.kind === 'type') throw typeError(outcome.message, outcome.code)
  if (outcome.kind === 'abort') throw new AbortError(outcome.error.message, outcome.error, run, signal ? signal.reason : undefined)
  throw new ScorerRunError(outcome.error, run)
}

function jsType(v) {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v
}

function wellFormed(_key, value) {
  // Lone UTF-16 surrogates cannot cross into Rust as text: replace them with U+FFFD.
  return typeof value === 'string' && !value.isWellFormed() ? value.toWellFormed() : value
}

/** JSON text of `value` (lone surrogates replaced), or `{ error }` when it has none. */
function toJson(value) {
  try {
    // Fast path: JSON.stringify escapes a lone surrogate as \udXXX, which Rust cannot
    // decode, so only text containing such an escape takes the replacer path.
    const json = JSON.stringify(value)
    if (json === undefined || !/\\u[dD][89a-fA-F]/.test(json)) return { json }
    return { json: JSON.stringify(value, wellFormed) }
  } catch (e) {
    return { error: e && e.message ? e.message : String(e) }
  }
}

// ---------------------------------------------------------------------------------------
// Judge models supplied as JS values. Rust calls ONE async function `(requestJson) =>
// replyJson` that never rejects; these wrap an AI SDK LanguageModel (specification v2/v3)
// or a plain function into that shape.

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
  const call = { prompt, abortSignal: AbortSignal.timeout(Math.max(1, req.timeoutMs)) }
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
  return async (json) => {
    try {
      return await generateWith(model, JSON.parse(json))
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
  return async (json) => {
    try {
      const req = JSON.parse(json)
      const r = await fn({
        requestContext: req.runId !== undefined ? runContexts.get(req.runId) : undefined,
        system: req.system,
        prompt: req.prompt,
        schema: req.schema ? req.schema.schema : undefined,
        schemaName: req.schema ? req.schema.name : undefined,
        temperature: req.temperature,
        maxOutputTokens: req.maxOutputTokens,
        signal: AbortSignal.timeout(Math.max(1, req.timeoutMs)),
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

/** The `requestContext` of each run in flight (by runId), for judge functions. */
const runContexts = new Map()

/** Each run in flight (by runId) of a scorer with function options, as those functions get it. */
const liveRuns = new Map()

/** Options that are functions handled elsewhere (the judge model, contextExtractor). */
const HANDLED_FUNCTIONS = new Set(['model', 'contextExtractor'])

/**
 * Names of the other function-valued options, top-level or under `options` (Mastra's form):
 * e.g. `getContext`. The core decides which it takes; it calls them through one caller.
 */
function functionOptionNames(options) {
  const names = []
  for (const obj of [options, options.options]) {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) continue
    for (const k of Object.keys(obj)) {
      if (typeof obj[k] === 'function' && !HANDLED_FUNCTIONS.has(k) && !names.includes(k)) names.push(k)
    }
  }
  return names
}

/**
 * The one caller of a scorer's function options: request `{ name, runId, args }` → the
 * option (top-level wins over `options.`) called with `{ run, ...args }`, `run` being the
 * run in flight; reply `{ ok: true, value }` or `{ ok: false, error }`. Never rejects.
 */
function functionsCaller(options) {
  return async (json) => {
    try {
      const req = JSON.parse(json)
      const own = options[req.name]
      const fn = typeof own === 'function' ? own : options.options && options.options[req.name]
      if (typeof fn !== 'function') throw new TypeError(`options.${req.name} is no longer a function`)
      const value = await fn({ run: liveRuns.get(req.runId), ...req.args })
      const t = toJson({ ok: true, value: value === undefined ? null : value })
      if (t.error !== undefined) throw new TypeError(`${req.name} returned a value that is not JSON-serializable data (${t.error})`)
      return t.json
    } catch (e) {
      return JSON.stringify({
        ok: false,
        error: { name: (e && e.name) || 'Error', message: e && e.message !== undefined ? String(e.message) : String(e) },
      })
    }
  }
}

/** How `options.model` reaches the core: as data, or as a caller plus its name. */
function modelOf(m) {
  if (isLanguageModel(m)) {
    const v = m.specificationVersion
    if (v !== 'v2' && v !== 'v3') return { kind: 'unsupportedLanguageModel', provider: '', modelId: String(v) }
    return { kind: 'languageModel', provider: String(m.provider || 'ai-sdk'), modelId: String(m.modelId || 'model'), caller: languageModelCaller(m) }
  }
  if (typeof m === 'function') return { kind: 'function', provider: 'function', modelId: m.name || 'anonymous', caller: functionCaller(m) }
  return { kind: 'data' }
}

/** `contextExtractor`, top-level or under `options` (Mastra's form); top-level wins. */
function extractorOption(options) {
  if (options.contextExtractor !== undefined) return options.contextExtractor
  const nested = options.options
  return nested !== null && typeof nested === 'object' ? nested.contextExtractor : undefined
}

/** Factory options as JSON text plus a descriptor of what JSON cannot say. */
function describeOptions(options) {
  const d = { type: jsType(options) }
  if (d.type !== 'object') return { json: 'null', d }
  const model = modelOf(options.model)
  d.model = model.kind
  if (model.kind !== 'data') {
    d.modelProvider = model.provider
    d.modelId = model.modelId
    // the object itself never crosses as data (it may hold keys in its config)
    options = { ...options, model: `${model.provider}/${model.modelId}` }
  }
  d.contextExtractor = jsType(extractorOption(options))
  d.functions = functionOptionNames(options)
  let json
  try {
    json = JSON.stringify(options, (key, value) => {
      // NaN/Infinity would silently become null (= "use the default"): report them instead
      if (typeof value === 'number' && !Number.isFinite(value) && d.nonFinite === undefined) {
        d.nonFinite = key
        d.nonFiniteValue = String(value)
      }
      return typeof value === 'function' ? undefined : wellFormed(key, value)
    })
  } catch (e) {
    d.serializeError = e && e.message ? e.message : String(e)
  }
  return { json: json ?? 'null', d, caller: model.caller, functions: d.functions.length ? functionsCaller(options) : undefined }
}

/** `scorer.run()`'s options as data for the core. */
function describeRunOptions(options) {
  const d = { type: jsType(options) }
  if (d.type !== 'object') return d
  const ms = options.deadlineMs
  // JSON has no NaN/Infinity: Infinity means "no deadline", anything else non-finite is an error
  d.deadlineMs = typeof ms === 'number' && !Number.isFinite(ms) ? (ms === Infinity ? 1e308 : String(ms)) : ms
  const s = options.signal
  d.signal = s === undefined || s === null ? 'absent' : s instanceof AbortSignal ? (s.aborted ? 'AbortSignal:aborted' : 'AbortSignal') : jsType(s)
  // every other option crosses as data for the core to check (e.g. itemId); a value JSON
  // cannot carry is described by its type
  d.data = {}
  for (const [k, v] of Object.entries(options)) {
    if (k === 'signal' || k === 'deadlineMs' || v === undefined) continue
    const plain = typeof v === 'string' || typeof v === 'boolean' || v === null || (typeof v === 'number' && Number.isFinite(v))
    // a non-finite number says which (callbackTimeoutMs: Infinity means no bound)
    d.data[k] = plain ? wellFormed(k, v) : typeof v === 'number' ? { jsType: 'number', nonFinite: String(v) } : { jsType: jsType(v) }
  }
  return d
}

/**
 * The core sends an execution's prompt/output that repeats its step's field as `promptOf` /
 * `outputOf` (the field's name): point it at the same string/object (shared, not copied),
 * keeping Mastra's key order (status, prompt, output, …).
 */
function linkShared(out, judge) {
  for (const step of Object.values(judge)) {
    step.executions = step.executions.map((e) => {
      if (e.promptOf === undefined && e.outputOf === undefined) return e
      const linked = {}
      for (const k of Object.keys(e)) {
        if (k === 'promptOf' || k === 'outputOf') continue
        linked[k] = k === 'prompt' && e.promptOf !== undefined ? out[e.promptOf] : e[k]
        if (k === 'prompt' && e.outputOf !== undefined) linked.output = out[e.outputOf]
      }
      return linked
    })
  }
  return judge
}

function shapeResult(run, r) {
  const out = run !== null && typeof run === 'object' && !Array.isArray(run) ? { ...run } : {}
  // Mastra's internal bookkeeping on a run is not part of the result
  delete out._internal
  out.runId = r.runId
  for (const k of STEP_KEYS) out[k] = r[k]
  if (r.judge !== undefined) out.judge = linkShared(out, r.judge)
  if (r.warnings !== undefined) out.warnings = r.warnings
  return out
}

/**
 * Call a user callback under the run's signal and the bound the core gives
 * (`ticket.callbackBound()`: the run's deadline or the callback bound `callbackTimeoutMs`,
 * whichever comes first). Resolves to `{ value }` or to `{ outcome }` (the core's failure
 * for `step`).
 */
function callBounded(fn, ticket, signal, step) {
  return new Promise((resolve) => {
    let timer
    let settled = false
    const done = (r) => {
      if (settled) return
      settled = true
      if (timer) clearTimeout(timer)
      if (signal) signal.removeEventListener('abort', onAbort)
      resolve(r)
    }
    const onAbort = () => done({ outcome: ticket.fail(step, 'aborted', '', '') })
    if (signal) signal.addEventListener('abort', onAbort, { once: true })
    const bound = ticket.callbackBound()
    if (bound && bound.ms !== null) timer = setTimeout(() => done({ outcome: ticket.fail(step, bound.kind, '', '') }), Math.max(0, bound.ms))
    Promise.resolve()
      .then(fn)
      .then(
        (value) => done({ value }),
        (e) => done({ outcome: ticket.fail(step, 'threw', e && e.message ? String(e.message) : String(e), (e && e.name) || 'Error') }),
      )
  })
}

class Scorer {
  #native
  #meta
  #extractor
  #keepRun
  constructor(nativeScorer, extractor, keepRun = false) {
    this.#native = nativeScorer
    this.#meta = nativeScorer.meta
    this.#extractor = extractor
    this.#keepRun = keepRun
  }
  get id() {
    return this.#meta.id
  }
  get name() {
    return this.#meta.name
  }
  get description() {
    return this.#meta.description
  }
  get type() {
    return this.#meta.type
  }
  get judge() {
    return this.#meta.judge ? { ...this.#meta.judge } : undefined
  }
  /** `'higher'` or `'lower'`: which way this scorer's score is better (hallucination: lower). */
  get direction() {
    return this.#meta.direction
  }
  /** Scores lie in `[0, scale]` (the `scale` option; 1 without one). */
  get scale() {
    return this.#meta.scale
  }
  getSteps() {
    return this.#meta.steps.map((s) => ({ ...s }))
  }
  /** `util.inspect` / `console.log`: the scorer's identity instead of `Scorer {}`. */
  [Symbol.for('nodejs.util.inspect.custom')](depth, options, inspect) {
    const m = this.#meta
    const shown = { id: m.id, name: m.name, type: m.type, judgeModel: m.judge ? m.judge.model : undefined }
    return depth < 0 ? '[Scorer]' : `Scorer ${inspect(shown, { ...options, depth: options.depth === null ? null : options.depth - 1 })}`
  }
  /** Response cache statistics, or `null` when caching is off. */
  cacheStats() {
    return this.#native.cacheStats()
  }

  /**
   * Score one run. `options.signal` cancels it (in-flight HTTP is dropped);
   * `options.deadlineMs` bounds the whole run, contextExtractor included;
   * `options.callbackTimeoutMs` bounds each user callback call (default 60 s, the core's).
   */
  async run(run, options) {
    const desc = describeRunOptions(options)
    const signal = desc.signal === 'AbortSignal' || desc.signal === 'AbortSignal:aborted' ? options.signal : undefined
    const { json, error } = toJson(run)
    const ticket = this.#native.start(error === undefined ? (json ?? 'null') : null, error ?? null, JSON.stringify(desc))
    if (!(ticket instanceof native.RunTicket)) raise(ticket, run, signal)
    let extra = null
    let afterCallback = false
    if (ticket.needsContext && this.#extractor) {
      afterCallback = true
      const extractor = this.#extractor
      const r = await callBounded(() => extractor(run.input, run.output), ticket, signal, 'contextExtractor')
      if (r.outcome) raise(r.outcome, run, signal)
      const t = toJson({ extractedContext: r.value === undefined ? null : r.value })
      if (t.error !== undefined) raise(ticket.fail('contextExtractor', 'threw', `its result is not JSON-serializable data (${t.error})`, 'TypeError'), run, signal)
      extra = t.json
    }
    let handle
    let onAbort
    if (signal) {
      handle = new native.CancelHandle()
      if (signal.aborted) handle.cancel()
      onAbort = () => handle.cancel()
      signal.addEventListener('abort', onAbort, { once: true })
    }
    const runId = ticket.runId
    const keepContext = run.requestContext !== undefined && run.requestContext !== null
    if (keepContext) runContexts.set(runId, run.requestContext)
    if (this.#keepRun) liveRuns.set(runId, { ...run, runId })
    let outcome
    try {
      outcome = await ticket.run(extra, afterCallback, handle)
    } finally {
      if (signal) signal.removeEventListener('abort', onAbort)
      if (keepContext) runContexts.delete(runId)
      if (this.#keepRun) liveRuns.delete(runId)
    }
    if (outcome.processWarnings) {
      for (const w of outcome.processWarnings) process.emitWarning(w.message, { code: w.code })
    }
    if (outcome.ok) return shapeResult(run, outcome.result)
    raise(outcome, run, signal)
  }
}

/** The factory of one registry entry. */
function factory(spec) {
  const create = function (options) {
    const { json, d, caller, functions } = describeOptions(options)
    const made = native.createScorer(spec.factory, json, JSON.stringify(d), caller, functions)
    if (!(made instanceof native.NativeScorer)) raise(made)
    const extractor = spec.contextExtractor && typeof extractorOption(options) === 'function' ? extractorOption(options) : undefined
    return new Scorer(made, extractor, functions !== undefined)
  }
  Object.defineProperty(create, 'name', { value: spec.factory })
  return create
}

for (const spec of SCORERS) exports[spec.factory] = factory(spec)
const evals = require('./evals.js')({ native, typeError, jsType })
exports.runEvals = evals.runEvals
exports.summarizeItems = evals.summarizeItems
exports.ScorerRunError = ScorerRunError
exports.AbortError = AbortError
exports.Scorer = Scorer
