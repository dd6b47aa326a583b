'use strict'
// Marshalling of options: factory options and `scorer.run()`'s options as JSON text plus a
// descriptor of what JSON cannot say (the judge model's kind, function options, AbortSignals,
// non-finite numbers). The core checks both and words every message.

const { jsType, wellFormed } = require('./json.js')
const { encodeReplacer } = require('./nonfinite.js')
const { modelOf, isEvaluationModel } = require('./models.js')
const { embedderOf } = require('./embedders.js')
const { hostCaller, functionsCaller } = require('./host.js')
const { nlpCaller } = require('./nlp.js')

/** The handlers of the host calls a registry entry declares (`hostCalls`) beyond models and functions. */
const HOST_CALL_HANDLERS = { nlp: () => nlpCaller }

/** Options that are functions handled elsewhere (the judge model). */
const HANDLED_FUNCTIONS = new Set(['model', 'embedder'])

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
 * The JS type of each option named `…Extractor` (Mastra's extractor callbacks), top-level or
 * under `options`; top-level wins. The core checks them against the scorer's extractors.
 */
function extractorTypes(options) {
  const types = {}
  for (const obj of [options.options, options]) {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) continue
    for (const k of Object.keys(obj)) {
      if (k.endsWith('Extractor') && obj[k] !== undefined) types[k] = jsType(obj[k])
    }
  }
  return types
}

/**
 * The classifier scorer's `classifier` given as a Mastra `Classifier` (or any object with an
 * evaluation `model`): its `{ id, questions }` cross as data, its model becomes `model` unless
 * one is given (an oxeval judge then answers instead).
 */
function classifierOf(options) {
  const c = options.classifier
  if (c === null || typeof c !== 'object' || !isEvaluationModel(c.model)) return options
  return { ...options, classifier: { id: c.id, questions: c.questions }, model: options.model ?? c.model }
}

/** Factory options as JSON text plus a descriptor of what JSON cannot say (`spec`: the registry entry). */
function describeOptions(options, spec) {
  const d = { type: jsType(options) }
  if (d.type !== 'object') return { json: 'null', d }
  options = classifierOf(options)
  const model = modelOf(options.model)
  d.model = model.kind
  if (model.kind !== 'data') {
    d.modelProvider = model.provider
    d.modelId = model.modelId
    // the object itself never crosses as data (it may hold keys in its config)
    options = { ...options, model: `${model.provider}/${model.modelId}` }
  }
  const embedder = embedderOf(options.embedder)
  d.embedder = embedder.kind
  if (embedder.kind !== 'data') {
    d.embedderProvider = embedder.provider
    d.embedderId = embedder.modelId
    options = { ...options, embedder: `${embedder.provider}/${embedder.modelId}` }
  }
  d.extractors = extractorTypes(options)
  d.functions = functionOptionNames(options)
  const takesNonFinite = spec !== undefined && spec !== null && spec.nonFinite === true
  let carried = false
  let json
  try {
    json = JSON.stringify(options, (key, value) => {
      // NaN/Infinity would silently become null (= "use the default"): carried for a scorer
      // that takes them as Mastra's does (nonfinite.js), else reported
      if (typeof value === 'number' && !Number.isFinite(value) && takesNonFinite) {
        carried = true
        return encodeReplacer(key, value)
      }
      if (typeof value === 'number' && !Number.isFinite(value) && d.nonFinite === undefined) {
        d.nonFinite = key
        d.nonFiniteValue = String(value)
      }
      return typeof value === 'function' ? undefined : wellFormed(key, value)
    })
  } catch (e) {
    d.serializeError = e && e.message ? e.message : String(e)
  }
  // the one host channel: the judge model's calls and the function options' calls
  const handlers = {}
  if (model.caller) handlers[model.kind === 'evaluationModel' ? 'evaluationModel' : 'judgeModel'] = model.caller
  if (embedder.caller) handlers.embed = embedder.caller
  if (d.functions.length) handlers.functionOption = functionsCaller(options)
  for (const kind of (spec && spec.hostCalls) || []) if (HOST_CALL_HANDLERS[kind]) handlers[kind] = HOST_CALL_HANDLERS[kind]()
  const host = Object.keys(handlers).length ? hostCaller(handlers) : undefined
  return { json: json ?? 'null', d, host, keepRun: handlers.functionOption !== undefined, nonFinite: carried }
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

module.exports = { describeOptions, describeRunOptions }
