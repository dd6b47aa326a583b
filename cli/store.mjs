// The results store from the command line: which store a command uses, a run's recorder
// (`oxeval run` records by default), baselines by name for --base / compare, and the
// commands `history`, `runs` and `store`. The store and every query are the core's
// (crates/oxeval-core/src/store); this file chooses, asks and formats.
//
// The store: --no-store (or config `store: false`): none; else --store PATH, else the
// config's `store`, else $OXEVAL_STORE, else `.oxeval/store.db` under the config's folder
// (without a config: the working directory).
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { createRequire } from 'node:module'
import { UsageError } from './errors.mjs'
import { safeText } from './terminal.mjs'

const require = createRequire(import.meta.url)
const lib = require('../lib/store.js')

/** The flags every recording command takes. */
export const STORE_OPTIONS = {
  store: { type: 'string' },
  'no-store': { type: 'boolean' },
  tag: { type: 'string', multiple: true },
  name: { type: 'string' },
}

/** The store a command uses (null: none), from its flag values and config. */
export function storeSpec(values, { configPath = null, env = process.env, cwd = process.cwd() } = {}) {
  if (values['no-store']) return null
  if (values.store !== undefined) {
    if (String(values.store).trim() === '') throw new UsageError('--store needs a file path (or a postgres:// URL)')
    return isUrl(values.store) ? values.store : resolve(cwd, values.store)
  }
  if (env.OXEVAL_STORE) return env.OXEVAL_STORE
  return join(configPath ? dirname(configPath) : cwd, lib.DEFAULT_STORE)
}

const isUrl = (s) => /^postgres(ql)?:\/\//.test(String(s))

/** The store as shown: a URL without its userinfo and query (the password). */
export const shownStore = (spec) => lib.shownStore(spec)

/** The CI variables that name one pipeline run (every shard's job sees the same value). */
function ciRun(env) {
  if (env.GITHUB_RUN_ID) return `github:${env.GITHUB_RUN_ID}:${env.GITHUB_RUN_ATTEMPT || '1'}`
  if (env.CI_PIPELINE_ID) return `gitlab:${env.CI_PIPELINE_ID}`
  if (env.BUILDKITE_BUILD_ID) return `buildkite:${env.BUILDKITE_BUILD_ID}`
  if (env.CIRCLE_WORKFLOW_ID) return `circleci:${env.CIRCLE_WORKFLOW_ID}`
  return null
}

/**
 * The stored run's id: --run-id, else $OXEVAL_RUN_ID; else, for a shard, one derived from the
 * CI run (GITHUB_RUN_ID + GITHUB_RUN_ATTEMPT, CI_PIPELINE_ID, BUILDKITE_BUILD_ID,
 * CIRCLE_WORKFLOW_ID) with the configuration and dataset fingerprints and N (sha-256, 12 hex),
 * so every shard of one pipeline agrees; else null (a new random id, each shard its own run).
 */
export function cliRunId(values, { shard, configFingerprint, dataset }, env = process.env) {
  const given = values['run-id'] !== undefined ? values['run-id'] : env.OXEVAL_RUN_ID || undefined
  if (given !== undefined) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/.test(String(given))) throw new UsageError(`--run-id must be 1-64 letters, digits, '.', '_', ':' or '-' (starting with a letter or digit); got "${safeText(String(given))}"`)
    return String(given)
  }
  const ci = shard ? ciRun(env) : null
  if (!ci) return null
  return lib.fingerprint([ci, configFingerprint, dataset ?? null, shard.count]).slice(0, 12)
}

/** Starts recording an `oxeval run` (what the run header and flags say of it). */
export function startCliRecording(spec, header, values, { judgeModels, cwd = process.cwd(), env = process.env }) {
  const tags = [...(values.tag || [])]
  const configFingerprint = lib.fingerprint({ scorers: header.scorers, gates: header.gates, trials: header.trials, policy: header.policy, model: header.model })
  const dataset = header.dataset && header.dataset.sha256 ? header.dataset.sha256 : undefined
  const id = cliRunId(values, { shard: header.shard, configFingerprint, dataset }, env)
  // shards agreeing on a run id record into that one run; else a shard is its own run
  // (oxeval merge records the whole one)
  if (header.shard && !id) tags.push(`shard:${header.shard.index}/${header.shard.count}`)
  const rec = lib.startRecording(spec, {
    id: id ?? undefined,
    shard: header.shard && id ? { index: header.shard.index, count: header.shard.count } : undefined,
    name: values.name,
    tags,
    git: lib.gitInfo(cwd),
    configFingerprint,
    datasetFingerprint: dataset,
    version: header.version,
    judgeModels,
    header,
    storePrompts: header.prompts !== 'none',
  })
  // a shard or run id the store refuses (finished already, out of range): before any judge call
  if (rec.error && rec.error.code === 'OXEVAL_STORE_SHARD') throw new UsageError(rec.error.message)
  return rec
}

/** The store failure line (the message names the store and the cause). */
export function storeFailureText(spec, error) {
  return `oxeval: the results store could not be written (${error.code}): ${safeText(error.message ? error.message.replace(/(postgres(?:ql)?:\/\/)[^@/\s]*@/g, '$1') : shownStore(spec))}; the run's reports and --out are written as usual`
}

const isStoreRef = (s) => /^(run|tag|branch):/.test(s)

/**
 * A baseline: an existing file (its path); else a name in the store (`main`, `branch:B`,
 * `run:ID`, `tag:T`) → `{ runId }`. Resolved before a run starts (a typo costs no judge call,
 * and the run being recorded is never its own baseline).
 */
export function resolveBaseline(spec, store, { flag = '--base', dataset } = {}) {
  if (existsSync(spec) && !isStoreRef(spec)) return resolve(spec)
  if (!isStoreRef(spec) && /[\\/]|\.jsonl?$/.test(spec)) throw new UsageError(`${flag} ${spec}: no such file`)
  if (!store) throw new UsageError(`${flag} ${spec}: no such file, and the results store is off (--no-store)`)
  try {
    return { runId: lib.storeQuery(store, { kind: 'resolve', spec, dataset }) }
  } catch (e) {
    throw new UsageError(`${flag} ${spec}: ${e.message}`)
  }
}

/** The most runs `--base-runs` pools, and how far back `run:ID` is looked for on its branch. */
export const MAX_BASE_RUNS = 50
const LOOK_BACK = 2000

/** `--base-runs K` as a whole number from 1 to MAX_BASE_RUNS (default 1). */
export function baseRunsOption(text) {
  if (text === undefined) return 1
  if (!/^\d+$/.test(String(text)) || Number(text) < 1 || Number(text) > MAX_BASE_RUNS) throw new UsageError(`--base-runs must be a whole number from 1 to ${MAX_BASE_RUNS}; got "${text}"`)
  return Number(text)
}

/**
 * A baseline of K runs (`--base-runs K`): the run `spec` resolves to and the K − 1 finished runs
 * before it with its dataset fingerprint: on its branch (`main`, `branch:B`, `run:ID`), or with
 * the tag (`tag:T`); never `exclude` (the head being compared). A file is one run. Resolved
 * before a run starts, like resolveBaseline.
 * → `{ file }` or `{ runIds, requested, note? }` (note: fewer runs than asked, and why).
 */
export function poolBaseline(spec, store, { flag = '--base', dataset, k = 1, exclude } = {}) {
  const b = resolveBaseline(spec, store, { flag, dataset })
  if (typeof b === 'string') {
    if (k > 1) throw new UsageError(`--base-runs ${k} pools runs of the results store (main, branch:B, tag:T, run:ID); ${flag} ${spec} is a file`)
    return { file: b }
  }
  if (k === 1) return { runIds: [b.runId], requested: 1 }
  const first = ask(store, { kind: 'show', run: b.runId })
  const tag = spec.startsWith('tag:') ? spec.slice(4) : undefined
  const branch = tag === undefined ? first.branch ?? undefined : undefined
  let pool = [b.runId]
  if (tag !== undefined || branch !== undefined) {
    const h = ask(store, { kind: 'history', branch, tag, dataset: first.datasetFingerprint ?? undefined, last: LOOK_BACK })
    const runs = h.runs.filter((r) => r.status === 'finished' && (r.id !== exclude || r.id === b.runId))
    const at = runs.findIndex((r) => r.id === b.runId)
    if (at >= 0) pool = runs.slice(at, at + k).map((r) => r.id)
  }
  const within = tag !== undefined ? `with tag ${tag}` : branch !== undefined ? `on branch ${branch}` : 'without a branch'
  const note = pool.length < k ? `--base-runs ${k}: only ${pool.length} finished run${pool.length === 1 ? '' : 's'} ${within} with this dataset up to ${b.runId}; pooled ${pool.length === 1 ? 'that one' : 'those'}` : undefined
  return { runIds: pool, requested: k, note }
}

/** A pooled baseline as files (the stored runs exported), newest first. */
export function poolFiles(pool, store) {
  return pool.file ? [pool.file] : pool.runIds.map((id) => exportRun(store, id))
}

/** A baseline as a file: a resolved run exported to a temporary `--out` file. */
export function baselineFile(spec, store, opts = {}) {
  const b = resolveBaseline(spec, store, opts)
  return typeof b === 'string' ? b : exportRun(store, b.runId)
}

/** One stored run exported to a temporary `--out` file → its path. */
// The temporary exports of this process (stored runs as --out files for compare, --base and
// the viewer): removed by dropExport once read, and whatever is left when the process exits.
const exports = new Set()
function removeExports() {
  for (const d of exports) rmSync(d, { recursive: true, force: true })
  exports.clear()
}

export function exportRun(store, id) {
  const dir = mkdtempSync(join(tmpdir(), 'oxeval-base-'))
  if (exports.size === 0) process.once('exit', removeExports)
  exports.add(dir)
  const out = join(dir, `${id}.jsonl`)
  lib.storeQuery(store, { kind: 'export', run: id, out })
  return out
}

/** Removes one temporary export now (the viewer reads one per page). */
export function dropExport(path) {
  const dir = dirname(path)
  if (!exports.delete(dir)) return
  rmSync(dir, { recursive: true, force: true })
  if (exports.size === 0) process.removeListener('exit', removeExports)
}

/** Runs a store request, a store failure as a usage error (exit 2) naming the store. */
export function ask(store, request) {
  try {
    return lib.storeQuery(store, request)
  } catch (e) {
    throw new UsageError(e.message)
  }
}
