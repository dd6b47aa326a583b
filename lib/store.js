'use strict'
// The results store, JS side: which store a run records into, the run's git facts, and a
// recorder over the core's (crates/oxeval-core/src/store, through src/store.rs). The rows,
// the writes and every read are the core's; this file only gathers what JS knows.
//
// A store that cannot be written never costs the run: `start` and `finish` return the
// failure as data (`{ store, error: { code, message } }`), the caller reports it.

const { execFileSync } = require('node:child_process')
const { createHash } = require('node:crypto')
const native = require('../load-binding.js')
const { typeError } = require('./errors.js')
const { jsType, toJson } = require('./json.js')

/** The default store file under a directory. */
const DEFAULT_STORE = '.oxeval/store.db'

/**
 * Which store an API run records into: the `store` option (a path, or `{ path, name?, tags?,
 * dataset? }`; `false`: none), else
 * $OXEVAL_STORE, else none. Throws a TypeError for a value of the wrong type.
 */
function storeOption(value, env = process.env, who = 'runEvals') {
  if (value === false || value === null) return null
  if (value === undefined) return env.OXEVAL_STORE ? env.OXEVAL_STORE : null
  if (typeof value === 'object' && !Array.isArray(value)) return storeOption(value.path, env, who)
  if (typeof value !== 'string' || value.trim() === '') throw typeError(`${who}: store must be a file path (or a postgres:// URL) or false, got ${typeof value === 'string' ? 'an empty string' : jsType(value)}`, 'OXEVAL_INVALID_OPTIONS')
  return value
}

function git(args, cwd) {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 3000 }).trim()
  } catch {
    return null
  }
}

/**
 * The commit, branch and dirty flag of `cwd`'s checkout; without a checkout, the usual CI
 * variables (GITHUB_SHA / GITHUB_REF_NAME, CI_COMMIT_SHA / CI_COMMIT_REF_NAME). Unknown: null.
 */
function gitInfo(cwd = process.cwd(), env = process.env) {
  const commit = git(['rev-parse', 'HEAD'], cwd)
  if (commit) {
    let branch = git(['rev-parse', '--abbrev-ref', 'HEAD'], cwd)
    if (branch === 'HEAD') branch = env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME || env.CI_COMMIT_REF_NAME || null
    const status = git(['status', '--porcelain', '--untracked-files=no'], cwd)
    return { commit, branch, dirty: status === null ? null : status.length > 0 }
  }
  const ciCommit = env.GITHUB_SHA || env.CI_COMMIT_SHA || null
  const ciBranch = env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME || env.CI_COMMIT_REF_NAME || null
  return { commit: ciCommit, branch: ciBranch, dirty: null }
}

/** The sha-256 of a value's JSON text (fingerprints of a run's configuration). */
function fingerprint(value) {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex')
}

/** An item's JSON text for the store; a record JSON cannot carry keeps its scores. */
function itemText(r) {
  // the common case in one pass: JSON.stringify writes a lone surrogate as a lowercase
  // \udXXX escape, so text without `\ud` has none (the store's core reads the text as it is)
  let fast
  try {
    fast = JSON.stringify(r)
  } catch {}
  if (fast !== undefined && !fast.includes('\\ud')) return fast
  // lone surrogates (a model's output may hold them) become U+FFFD: Rust text cannot hold them
  const { json, error } = toJson(r)
  if (json !== undefined) return json
  const results = {}
  for (const [k, v] of Object.entries(r.results || {})) results[k] = { score: v && v.score, reason: v && typeof v.reason === 'string' ? v.reason : undefined }
  return toJson({ index: r.index, id: r.id, results, unserializable: String(error) }).json
}

/** The store as shown: a postgres:// URL without its userinfo and query (the password). */
function shownStore(spec) {
  if (!/^postgres(ql)?:\/\//.test(String(spec).trim())) return spec
  return String(spec).trim().replace(/^(postgres(?:ql)?:\/\/)[^@/?#]*@/, '$1').replace(/[?#].*$/, '')
}

/**
 * Start recording a run into `spec`. `run`: { name?, tags?, git?, configFingerprint?,
 * datasetFingerprint?, version?, judgeModels?, header?, storePrompts? }.
 * → `{ store, runId, item(r), finish(summary) → { store, runId, error? } }`; a store that
 * cannot be opened gives a recorder whose `error` is set (items are dropped).
 */
function startRecording(spec, run) {
  const started = native.storeStart(spec, toJson({ startedAtMs: Date.now(), ...run }).json ?? '{}')
  if (!(started instanceof native.NativeRecorder)) {
    const error = { code: started.code, message: started.message }
    const store = shownStore(spec)
    return { store, runId: null, error, item() {}, finish: () => ({ store, runId: null, error }) }
  }
  const rec = started
  return {
    store: rec.store,
    runId: rec.runId,
    error: null,
    item: (r) => rec.item(itemText(r)),
    finish(summary) {
      let text
      text = toJson(summary).json ?? toJson({ outcome: summary && summary.outcome, stats: summary && summary.stats }).json
      const done = rec.finish(text)
      return done.ok ? { store: rec.store, runId: rec.runId } : { store: rec.store, runId: rec.runId, error: { code: done.code, message: done.message } }
    },
  }
}

/** A read or maintenance request to the store (see src/store.rs `store_query`) → value, or throws a StoreError-coded Error. */
function storeQuery(spec, request) {
  const r = JSON.parse(native.storeQuery(spec, JSON.stringify(request)))
  if (r.ok) return r.value
  const e = new Error(r.message)
  e.code = r.code
  throw e
}

/** The judge model of a scorer, as text (null: none or not known). */
function judgeModelOf(scorer) {
  try {
    const j = scorer && scorer.judge
    const m = j && j.model
    return typeof m === 'string' ? m : m && typeof m.id === 'string' ? m.id : m && typeof m.modelId === 'string' ? m.modelId : null
  } catch {
    return null
  }
}

/**
 * What runEvals records of its run: the `store` option's name/tags (an object form
 * `{ path, name?, tags? }`), `storePrompts`, git, the configuration's fingerprint (scorer and
 * gate ids with thresholds, trials, the policy) and the judge model per scorer.
 */
function apiRun(config, scorers, gates, version) {
  const opt = config.store !== null && typeof config.store === 'object' ? config.store : {}
  const tags = opt.tags === undefined ? [] : opt.tags
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string')) throw typeError(`runEvals: store.tags must be an array of strings, got ${jsType(tags)}`, 'OXEVAL_INVALID_OPTIONS')
  if (opt.name !== undefined && typeof opt.name !== 'string') throw typeError(`runEvals: store.name must be a string, got ${jsType(opt.name)}`, 'OXEVAL_INVALID_OPTIONS')
  const storePrompts = config.storePrompts ?? true
  if (typeof storePrompts !== 'boolean') throw typeError(`runEvals: storePrompts must be a boolean, got ${jsType(storePrompts)}`, 'OXEVAL_INVALID_OPTIONS')
  const ids = (list) => list.map((e) => (e.threshold === undefined ? { id: e.id } : { id: e.id, threshold: e.threshold }))
  const judgeModels = Object.fromEntries([...scorers, ...gates].map((e) => [e.id, judgeModelOf(e.scorer)]))
  const header = { scorers: ids(scorers), gates: gates.map((g) => g.id), trials: config.trials ?? 1, scorerInfo: Object.fromEntries([...scorers, ...gates].map((e) => [e.id, { scale: typeof e.scorer.scale === 'number' ? e.scorer.scale : 1 }])) }
  return {
    name: opt.name,
    tags,
    git: gitInfo(),
    configFingerprint: fingerprint({ scorers: header.scorers, gates: header.gates, trials: header.trials, maxErrors: config.maxErrors ?? null, minCoverage: config.minCoverage ?? null, judgeModels }),
    datasetFingerprint: typeof opt.dataset === 'string' ? opt.dataset : undefined,
    version,
    judgeModels,
    header,
    storePrompts,
  }
}

module.exports = { apiRun, shownStore, judgeModelOf, DEFAULT_STORE, storeOption, gitInfo, fingerprint, startRecording, storeQuery }
