'use strict'
// Custom scorers: Mastra's `createScorer` builder (`@mastra/core/evals`), run by the core's
// custom kind (crates/oxeval-core/src/scorers/custom). This file only marshals: the config
// and the steps' schemas go to the core once per scorer; each run is ONE native call, and
// the core calls back through the host channel for what only JS can run (a function step, a
// prompt step's createPrompt), bounded by the run's deadline and signal. The values function
// steps return stay here (a Set stays a Set) and go into the result as they are.

const native = require('../load-binding.js')
const { toJson, jsType } = require('./json.js')
const { onAbort } = require('./abort.js')
const { raise, typeError, ScorerRunError, AbortError } = require('./errors.js')
const { shapeResult } = require('./result.js')
const { modelOf } = require('./models.js')
const { hostCaller, runContexts, runSignals, callSignal, nextRunKey } = require('./host.js')
const { describeRunOptions } = require('./describe.js')
const { invoke, settle } = require('./settle.js')

const OPT = 'OXEVAL_INVALID_OPTIONS'
const STEP_NAMES = ['preprocess', 'analyze', 'generateScore', 'generateReason']
const NOT_SCORABLE = Symbol.for('mastra.evals.notScorable')

/** `@mastra/core` 1.71's `notScorable(reason?)`: a step's value that ends the run without a score. */
function notScorable(reason) {
  const v = { [NOT_SCORABLE]: true }
  if (reason !== undefined) v.reason = reason
  return v
}

/** Whether `v` is a `notScorable(...)` value (ours or Mastra's: the same registered symbol). */
function isNotScorable(v) {
  return v !== null && typeof v === 'object' && v[NOT_SCORABLE] === true
}

/** Mastra's detection of a prompt object. */
const isPromptObject = (def) => def !== null && typeof def === 'object' && 'description' in def && 'createPrompt' in def

/**
 * A step's `outputSchema` as `{ json, validate? }`: a Standard Schema with a JSON Schema
 * export (Zod v4: its own export of the schema's input side, so extra keys pass and
 * `validate` strips them as Zod does in Mastra), an AI SDK `jsonSchema(...)`, or a plain
 * JSON Schema object (extra keys kept; `additionalProperties: false` enforced by the core).
 */
function schemaOf(schema, where) {
  if (schema === null || typeof schema !== 'object') throw typeError(`createScorer(): ${where}.outputSchema must be a Zod schema, a JSON Schema object or an AI SDK jsonSchema(); got ${jsType(schema)}`, OPT)
  const std = schema['~standard']
  if (std && typeof std === 'object') {
    const exporter = std.jsonSchema
    if (!exporter || typeof exporter.input !== 'function') {
      throw typeError(`createScorer(): ${where}.outputSchema is a Standard Schema (${std.vendor ?? 'unknown vendor'}) without a JSON Schema export; use Zod 4.2 or later, a JSON Schema object, or an AI SDK jsonSchema()`, OPT)
    }
    let json
    try {
      json = exporter.input({ target: 'draft-2020-12' })
    } catch (e) {
      throw typeError(`createScorer(): ${where}.outputSchema cannot be exported as JSON Schema: ${e && e.message}`, OPT)
    }
    return { json, validate: (v) => std.validate(v) }
  }
  if ('jsonSchema' in schema && typeof schema.jsonSchema === 'object' && schema.jsonSchema !== null) return { json: schema.jsonSchema }
  if (typeof schema.parse === 'function' || typeof schema.safeParse === 'function') {
    throw typeError(`createScorer(): ${where}.outputSchema looks like a Zod 3 schema; oxeval reads Zod 4 schemas (their JSON Schema export), JSON Schema objects and AI SDK jsonSchema()`, OPT)
  }
  return { json: schema }
}

/** A judge config as the core reads it, plus its JS model's caller (if the model is a JS value). */
function judgeOf(judge, cache) {
  const model = judge.model === undefined ? { kind: 'data' } : modelOf(judge.model)
  const options = { model: model.kind === 'data' ? judge.model : `${model.provider}/${model.modelId}` }
  if (judge.modelSettings !== undefined) options.modelSettings = judge.modelSettings
  if (cache !== undefined) options.cache = cache
  const def = { options, instructions: typeof judge.instructions === 'string' ? judge.instructions : undefined, model: model.kind }
  if (model.kind !== 'data') {
    def.modelProvider = model.provider
    def.modelId = model.modelId
  }
  return { def, caller: model.caller }
}

/** The state of each custom run in flight (by its host key): the run and the step values. */
const customRuns = new Map()

function errorJson(e) {
  return JSON.stringify({ ok: false, error: { name: (e && e.name) || 'Error', message: e && e.message !== undefined ? String(e.message) : String(e) } })
}

/**
 * A step's value as the core needs it: the JSON of what must cross, null for what stays here
 * (a value with no JSON: a function, a Symbol, a BigInt, an object whose `toJSON()` gives
 * undefined; the result keeps it as the step returned it). A reason that is not text fails
 * the step (a TypeError naming its type), as the core's check of a JSON reason does.
 */
function crossing(step, value) {
  if (step === 'generateScore') return typeof value === 'number' ? value : null
  if (step === 'generateReason') {
    if (typeof value === 'string' || value === undefined || value === null) return value ?? null
    throw new TypeError(`generateReason must give a string; got ${jsType(value)}`)
  }
  const t = toJson(value === undefined ? null : value)
  return t.error === undefined && t.json !== undefined ? JSON.parse(t.json) : null
}

/** The `customStep` handler: runs step `req.index` of the run keyed `req.runKey`. Never rejects. */
function stepCaller(steps) {
  return async (req) => {
    const state = customRuns.get(req.runKey)
    try {
      if (!state) throw new Error('the run is no longer in flight')
      const step = steps[req.index]
      // the run as Mastra's steps see it: with its runId (the core's: the run's own or a new one)
      if (state.run !== null && typeof state.run === 'object' && state.run.runId === undefined) state.run.runId = req.runId
      // what the core knows of earlier steps (a prompt step's judged JSON, read through its
      // schema as Mastra does) joins the kept values
      for (const [k, v] of Object.entries(req.results ?? {})) {
        if (k in state.kept || k in state.results) continue
        state.results[k] = parsed(steps, k, v)
      }
      const ctx = { run: state.run, results: { ...state.results } }
      if (step.name === 'generateReason') ctx.score = state.results.generateScoreStepResult
      const signal = callSignal(req.runKey)
      if (signal) Object.defineProperty(ctx, 'signal', { value: signal, enumerable: false })
      if (req.kind === 'prompt') {
        const prompt = await step.def.createPrompt(ctx)
        if (typeof prompt !== 'string') {
          throw new TypeError(`${step.name}'s createPrompt must return a string; got ${jsType(prompt)}`)
        }
        return JSON.stringify({ ok: true, value: prompt })
      }
      const value = await step.def(ctx)
      if (isNotScorable(value)) {
        return JSON.stringify({ ok: true, value: null, notScorable: value.reason === undefined ? {} : { reason: String(value.reason) } })
      }
      const key = `${step.name}StepResult`
      state.results[key] = value
      state.kept[key] = true
      return JSON.stringify({ ok: true, value: crossing(step.name, value) })
    } catch (e) {
      return errorJson(e)
    }
  }
}

/**
 * A judged value as its step's schema reads it (a Standard Schema's `validate`: Zod strips the
 * keys it does not declare, as in Mastra); the JSON as is otherwise, or when the validator is
 * async or finds issues the core's JSON Schema check did not.
 */
function parsed(steps, key, value) {
  const step = steps.find((s) => `${s.name}StepResult` === key && s.validate)
  if (!step || value === undefined || value === null) return value
  const r = step.validate(value)
  return r && typeof r.then !== 'function' && !r.issues && 'value' in r ? r.value : value
}

/** The result fields of a custom run: the kept values of function steps, judged values as their schema reads them. */
function keptResult(out, state, steps) {
  for (const [step, key] of [['preprocess', 'preprocessStepResult'], ['analyze', 'analyzeStepResult']]) {
    if (state && state.kept[key]) out[key] = state.results[key]
    else if (out[key] !== undefined) {
      out[key] = state && key in state.results ? state.results[key] : parsed(steps, key, out[key])
      // the judge's record holds the value as its schema read it, as Mastra's
      const execs = out.judge && out.judge[step] ? out.judge[step].executions : undefined
      const last = execs && execs[execs.length - 1]
      if (last && last.status === 'success' && last.output !== undefined) last.output = out[key]
    }
  }
  return out
}

/** The bound of one user callback call when the run options give none (the core's default). */
const DEFAULT_CALLBACK_TIMEOUT_MS = 60_000

/**
 * `prepareRun(input)` under the run's bounds: its signal (an AbortError), its `deadlineMs`
 * (OXEVAL_DEADLINE) and `callbackTimeoutMs` (a TimeoutError, OXEVAL_CUSTOM_STEP), each a
 * failure at step `prepareRun` before any step or judge call; what it throws, as it threw it.
 */
async function prepared(prepareRun, input, options, signal) {
  const o = options !== null && typeof options === 'object' ? options : {}
  const cb = o.callbackTimeoutMs
  const callback = cb === undefined || cb === null ? DEFAULT_CALLBACK_TIMEOUT_MS : typeof cb === 'number' && cb > 0 && cb < 2 ** 31 ? cb : null
  const dl = o.deadlineMs
  const deadline = typeof dl === 'number' && dl >= 0 && dl < 2 ** 31 ? dl : null
  const ms = callback === null ? deadline : deadline === null ? callback : Math.min(callback, deadline)
  const r = await settle(invoke(() => prepareRun(input)), signal, ms)
  if ('value' in r) return r.value
  if ('error' in r) throw r.error
  const failure = { failedStep: 'prepareRun', completedSteps: [] }
  if (r.cut === 'signal') throw new AbortError('The run was aborted', failure, input, signal.reason)
  const byDeadline = deadline !== null && ms === deadline
  const why = byDeadline ? "the run's deadline passed while prepareRun was running" : `prepareRun did not settle within ${ms} ms (the bound of one user callback call: run option callbackTimeoutMs, default ${DEFAULT_CALLBACK_TIMEOUT_MS} ms)`
  const code = byDeadline ? 'OXEVAL_DEADLINE' : 'OXEVAL_CUSTOM_STEP'
  throw new ScorerRunError({ ...failure, code, message: `Scorer Run Failed: step 'prepareRun' failed: ${why}`, cause: { name: byDeadline ? 'DeadlineError' : 'TimeoutError', message: why, code } }, input)
}

class CustomScorer {
  #config
  #steps
  #native
  constructor(config, steps) {
    this.#config = config
    this.#steps = steps
  }
  get id() {
    return this.#config.id
  }
  get name() {
    return this.#config.name ?? this.#config.id
  }
  get description() {
    return this.#config.description
  }
  get type() {
    return this.#config.type
  }
  get judge() {
    return this.#config.judge
  }
  get config() {
    return this.#config
  }
  /** Which way the score is better: custom scorers are higher-is-better unless `direction` says otherwise. */
  get direction() {
    return this.#config.direction === 'lower' ? 'lower' : 'higher'
  }
  get scale() {
    return typeof this.#config.scale === 'number' && this.#config.scale > 0 ? this.#config.scale : 1
  }
  #with(name, def) {
    if (typeof def !== 'function' && !isPromptObject(def)) {
      throw typeError(`createScorer(): .${name}() takes a function (ctx) => value or a prompt object { description, createPrompt, outputSchema?, judge? }; got ${jsType(def)}`, OPT)
    }
    return new CustomScorer(this.#config, [...this.#steps, { name, def }])
  }
  preprocess(def) {
    return this.#with('preprocess', def)
  }
  analyze(def) {
    return this.#with('analyze', def)
  }
  generateScore(def) {
    return this.#with('generateScore', def)
  }
  generateReason(def) {
    return this.#with('generateReason', def)
  }
  /** Response cache statistics of the scorer's judge, or `null` when caching is off. */
  cacheStats() {
    return this.#build().scorer.cacheStats()
  }
  getSteps() {
    return this.#steps.map(({ name, def }) => ({ name, type: isPromptObject(def) ? 'prompt' : 'function', description: isPromptObject(def) ? def.description : undefined }))
  }
  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `CustomScorer { id: ${JSON.stringify(this.id)}, steps: [${this.#steps.map((s) => s.name).join(', ')}] }`
  }

  /** The native scorer, built once: the config and step schemas go to the core here. */
  #build() {
    if (this.#native) return this.#native
    const cfg = this.#config
    const judges = []
    const callers = []
    const base = cfg.judge && typeof cfg.judge === 'object' ? cfg.judge : {}
    const addJudge = (judge) => {
      const { def, caller } = judgeOf(judge, cfg.cache)
      callers.push(caller)
      judges.push(def)
      return judges.length - 1
    }
    addJudge(base)
    const steps = this.#steps.map(({ name, def }, i) => {
      if (!isPromptObject(def)) return { name, def, wire: { name, type: 'function' } }
      const wire = { name, type: 'prompt' }
      if (typeof def.createPrompt !== 'function') throw typeError(`createScorer(): the ${name} step's createPrompt must be a function; got ${jsType(def.createPrompt)}`, OPT)
      let validate
      if (def.outputSchema !== undefined && (name === 'preprocess' || name === 'analyze')) {
        const s = schemaOf(def.outputSchema, `the ${name} step (step ${i})`)
        wire.schema = s.json
        validate = s.validate
      }
      if (def.judge && typeof def.judge === 'object') wire.judge = addJudge({ ...base, ...def.judge })
      return { name, def, validate, wire }
    })
    const definition = { id: cfg.id, name: cfg.name, judges, steps: steps.map((s) => s.wire) }
    const { json, error } = toJson(definition)
    if (error !== undefined) throw typeError(`createScorer(): the config must be plain data besides its functions and models (${error})`, OPT)
    const handlers = {
      customStep: stepCaller(steps),
      judgeModel: (req) => {
        const caller = callers[req.judge ?? 0]
        return caller ? caller(req) : Promise.resolve(errorJson(new TypeError('this judge is not a JS model')))
      },
    }
    const made = native.createCustomScorer(json, hostCaller(handlers))
    if (!(made instanceof native.NativeScorer)) raise(made)
    this.#native = { scorer: made, steps }
    return this.#native
  }

  /**
   * Score one run (Mastra's `run(input)`); `options` as for every oxeval scorer (`signal`,
   * `deadlineMs`, `callbackTimeoutMs`, `itemId`).
   */
  async run(input, options) {
    const { scorer, steps } = this.#build()
    const desc = describeRunOptions(options)
    const signal = desc.signal === 'AbortSignal' || desc.signal === 'AbortSignal:aborted' ? options.signal : undefined
    let run = input
    if (typeof this.#config.prepareRun === 'function') {
      const started = Date.now()
      run = await prepared(this.#config.prepareRun, input, options, signal)
      // the whole run's deadline counts the time prepareRun took
      if (typeof desc.deadlineMs === 'number' && Number.isFinite(desc.deadlineMs)) desc.deadlineMs = Math.max(1, desc.deadlineMs - (Date.now() - started))
    }
    const key = nextRunKey()
    desc.runKey = key
    const { json, error } = toJson(run)
    // the run as the steps see it: its runId is the core's, filled in before the first step
    const state = { run: run !== null && typeof run === 'object' ? { ...run } : run, results: {}, kept: {} }
    let handle
    let unsubscribe
    if (signal) {
      handle = new native.CancelHandle()
      if (signal.aborted) handle.cancel()
      else unsubscribe = onAbort(signal, () => handle.cancel())
      runSignals.set(key, signal)
    }
    const keepContext = run !== null && typeof run === 'object' && run.requestContext != null
    if (keepContext) runContexts.set(key, run.requestContext)
    customRuns.set(key, state)
    let outcome
    try {
      outcome = await scorer.run(error === undefined ? (json ?? 'null') : null, error ?? null, JSON.stringify(desc), handle)
    } finally {
      if (signal) {
        if (unsubscribe) unsubscribe()
        runSignals.delete(key)
      }
      if (keepContext) runContexts.delete(key)
      customRuns.delete(key)
    }
    if (outcome.ok) return this.#shape(run, outcome.result, state, steps)
    if (outcome.kind === 'scorer' || outcome.kind === 'abort') {
      try {
        raise(outcome, run, signal)
      } catch (e) {
        if ((e instanceof ScorerRunError || e instanceof AbortError) && e.result) keptResult(e.result, state, steps)
        throw e
      }
    }
    raise(outcome, run, signal)
  }

  #shape(run, r, state, steps) {
    const out = keptResult(shapeResult(run, r), state, steps)
    if (r.notScorable) {
      // Mastra 1.71: `notScorable` replaces `score`; the other seven keys stay
      const shaped = {}
      for (const k of Object.keys(out)) {
        if (k === 'score') shaped.notScorable = r.notScorable
        else shaped[k] = out[k]
      }
      return shaped
    }
    return out
  }
}

/**
 * Mastra's `createScorer({ id, name?, description, judge?, type?, prepareRun? })` on oxeval's
 * engine (plus oxeval's `cache`, `direction`, `scale`): chain `.preprocess()`, `.analyze()`,
 * `.generateScore()`, `.generateReason()`; `run(input)`.
 */
function createScorer(config) {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw typeError(`createScorer() expects a config object like { id, description }; got ${jsType(config)}`, OPT)
  if (config.id === undefined || config.id === null || config.id === '') {
    throw typeError('createScorer(): config.id is required (Mastra: "Scorers must have an ID field. Please provide an ID in the scorer config.")', OPT)
  }
  if (typeof config.id !== 'string') throw typeError(`createScorer(): config.id must be a string; got ${jsType(config.id)}`, OPT)
  if (config.prepareRun !== undefined && typeof config.prepareRun !== 'function') throw typeError(`createScorer(): config.prepareRun must be a function (run) => run; got ${jsType(config.prepareRun)}`, OPT)
  if (config.judge !== undefined && (config.judge === null || typeof config.judge !== 'object')) throw typeError(`createScorer(): config.judge must be { model, instructions }; got ${jsType(config.judge)}`, OPT)
  return new CustomScorer({ ...config }, [])
}

module.exports = { createScorer, notScorable, isNotScorable, CustomScorer, STEP_NAMES, prepared }
