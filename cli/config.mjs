// `oxeval.config.(ts|mts|mjs|js)`: a run described in code (`defineConfig` from 'oxeval').
// `oxeval run` with no --data/--scorer reads the config of the working directory (or
// `--config PATH`); flags override its fields; paths in it resolve from its folder. A
// TypeScript config loads through jiti (a dependency), on every supported Node version.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { UsageError } from './errors.mjs'
import { categorizedEntries } from './agents.mjs'
import { isCheckExpression } from './checks.mjs'
import { findScorer } from './scorers.mjs'

export const CONFIG_NAMES = ['oxeval.config.ts', 'oxeval.config.mts', 'oxeval.config.mjs', 'oxeval.config.js']

const KNOWN = new Set(['batch', 'cacheTargets', 'data', 'scorers', 'gates', 'model', 'target', 'targetOptions', 'concurrency', 'cache', 'out', 'html', 'junit', 'trials', 'maxErrors', 'minCoverage', 'prices', 'maxCost', 'targetTimeoutMs', 'store'])

/** The config file to use: `--config PATH`, else the first CONFIG_NAMES in `cwd`; null if none. */
export function findConfig(flag, cwd = process.cwd()) {
  if (flag !== undefined) {
    const p = resolve(cwd, flag)
    if (!existsSync(p)) throw new UsageError(`--config ${flag}: no such file`)
    return p
  }
  for (const n of CONFIG_NAMES) if (existsSync(join(cwd, n))) return join(cwd, n)
  return null
}

const isScorer = (s) => s !== null && typeof s === 'object' && typeof s.id === 'string' && typeof s.run === 'function'

/** The bound on loading and evaluating a config (OXEVAL_CONFIG_TIMEOUT_MS changes it). */
const CONFIG_TIMEOUT_MS = 30_000

function configTimeoutMs() {
  const v = Number(process.env.OXEVAL_CONFIG_TIMEOUT_MS)
  return Number.isFinite(v) && v > 0 ? v : CONFIG_TIMEOUT_MS
}

/** The first line of what was thrown. */
const firstLine = (e) => String(e && e.message !== undefined ? e.message : e).split('\n')[0]

/** `p` (loading or evaluating the config) within the bound: a UsageError naming the config past it. */
async function bounded(path, p) {
  const ms = configTimeoutMs()
  let timer
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new UsageError(`${path}: the config did not settle within ${ms} ms (set OXEVAL_CONFIG_TIMEOUT_MS to wait longer)`)), ms)
  })
  try {
    return await Promise.race([p, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Loads a config module: its default export (an object, or a function returning one). */
export async function loadConfig(path) {
  let mod
  try {
    mod = await bounded(
      path,
      (async () => {
        if (!/\.[cm]?tsx?$/.test(path)) return import(pathToFileURL(path).href)
        const { createJiti } = await import('jiti')
        return createJiti(import.meta.url, { interopDefault: false }).import(path)
      })(),
    )
  } catch (e) {
    if (e instanceof UsageError) throw e
    throw new UsageError(`${path}: the config could not be loaded: ${firstLine(e)}`)
  }
  let config = mod && 'default' in mod ? mod.default : mod
  if (typeof config === 'function') {
    const fn = config
    try {
      config = await bounded(path, (async () => fn())())
    } catch (e) {
      if (e instanceof UsageError) throw e
      throw new UsageError(`${path}: the config failed while evaluated: ${firstLine(e)}`)
    }
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw new UsageError(`${path}: the default export must be defineConfig({ … }); got ${Array.isArray(config) ? 'an array' : typeof config}`)
  for (const k of Object.keys(config)) if (!KNOWN.has(k)) throw new UsageError(`${path}: unknown field "${k}" (fields: ${[...KNOWN].join(', ')})`)
  return config
}

/** A built-in scorer's name or a check written as a call, as given; else ONE line naming the file, the field and the name. */
function knownName(name, path, where) {
  if (isCheckExpression(name) || findScorer(name)) return name
  throw new UsageError(`${path}: ${where}: unknown scorer "${name}" (\`oxeval help run\` lists the built-in names)`)
}

function field(path, name, ok, what, value) {
  if (value !== undefined && !ok(value)) throw new UsageError(`${path}: ${name} must be ${what}`)
}

/**
 * The config as the CLI's flag values (`values`, overridden by the flags the user gave) plus
 * what flags cannot carry: scorer objects, the target function, inline data.
 */
export function configValues(config, path) {
  const dir = dirname(path)
  const at = (p) => resolve(dir, p)
  const values = {}
  const extra = { scorers: [], gates: [], target: undefined }
  const int = (v) => Number.isInteger(v) && v > 0
  field(path, 'concurrency', int, 'a positive integer', config.concurrency)
  field(path, 'trials', int, 'a positive integer', config.trials)
  field(path, 'target', (t) => typeof t === 'function' || (t && typeof t.generate === 'function'), 'a function (input, { item, signal }) => output or an Agent', config.target)
  field(path, 'targetOptions', (o) => o !== null && typeof o === 'object' && !Array.isArray(o) && config.target && typeof config.target.generate === 'function', "an object, with an Agent target (its generate() options)", config.targetOptions)
  if (typeof config.data === 'string') values.data = at(config.data)
  else if (!Array.isArray(config.data) && config.data !== undefined) throw new UsageError(`${path}: data must be a file path or an array of items`)
  const entries = (list, name, into, flag) => {
    if (list === undefined) return
    if (!Array.isArray(list)) throw new UsageError(`${path}: ${name} must be an array`)
    list.forEach((e, i) => {
      const where = `${name}[${i}]`
      if (typeof e === 'string') (values[flag] ??= []).push(knownName(e, path, where))
      else if (isScorer(e)) into.push({ scorer: e })
      else if (e && typeof e === 'object' && 'scorer' in e) {
        if (name === 'gates') throw new UsageError(`${path}: ${where}: a gate takes no threshold`)
        if (typeof e.scorer === 'string') {
          ;(values.scorer ??= []).push(knownName(e.scorer, path, `${where}.scorer`))
          if (e.threshold !== undefined) (values.threshold ??= []).push(`${e.scorer}=${thresholdFlag(e.threshold, path, where)}`)
        } else if (isScorer(e.scorer)) into.push(e.threshold !== undefined ? { scorer: e.scorer, threshold: e.threshold } : { scorer: e.scorer })
        else throw new UsageError(`${path}: ${where}.scorer must be a scorer object or a built-in scorer name`)
      } else throw new UsageError(`${path}: ${where} must be a scorer object, a built-in scorer name, or { scorer, threshold }`)
    })
  }
  // Mastra's categorized form, { agent, trajectory }: scorer objects with their category
  const categorized = categorizedEntries(config.scorers, path, isScorer)
  if (categorized) for (const e of categorized) extra.scorers.push(e)
  else entries(config.scorers, 'scorers', extra.scorers, 'scorer')
  entries(config.gates, 'gates', extra.gates, 'gate')
  if (config.model !== undefined) {
    if (typeof config.model === 'string') values.model = config.model
    else if (config.model && typeof config.model === 'object' && typeof config.model.id === 'string') {
      values.model = config.model.id
      if (config.model.url !== undefined) values['model-url'] = config.model.url
      if (config.model.apiKey !== undefined) extra.apiKey = config.model.apiKey
    } else throw new UsageError(`${path}: model must be 'provider/model' or { id, url?, apiKey? }`)
  }
  if (typeof config.cache === 'string') values.cache = at(config.cache)
  else if (config.cache && typeof config.cache === 'object') {
    if (typeof config.cache.dir !== 'string') throw new UsageError(`${path}: cache.dir must be a folder path`)
    values.cache = at(config.cache.dir)
    if (config.cache.mode !== undefined) values['cache-mode'] = config.cache.mode
  } else if (config.cache !== undefined) throw new UsageError(`${path}: cache must be a folder path or { dir, mode? }`)
  for (const [k, flag] of [['out', 'out'], ['html', 'html'], ['junit', 'junit']]) {
    if (config[k] === undefined) continue
    if (typeof config[k] !== 'string') throw new UsageError(`${path}: ${k} must be a file path`)
    values[flag] = at(config[k])
    // a config names where its results go: their folder is made (a flag's is not)
    mkdirSync(dirname(values[flag]), { recursive: true })
  }
  // the results store: a path (from the config's folder), a postgres:// URL, or false (none)
  if (config.store === false) values['no-store'] = true
  else if (typeof config.store === 'string' && config.store.trim() !== '') values.store = /^postgres(ql)?:\/\//.test(config.store) ? config.store : at(config.store)
  else if (config.store !== undefined) throw new UsageError(`${path}: store must be a file path, a postgres:// URL, or false`)
  if (config.concurrency !== undefined) values.concurrency = String(config.concurrency)
  if (config.trials !== undefined) values.trials = String(config.trials)
  if (config.maxErrors !== undefined) values['max-errors'] = String(config.maxErrors)
  if (config.minCoverage !== undefined) values['min-coverage'] = String(config.minCoverage)
  if (config.maxCost !== undefined) values['max-cost'] = String(config.maxCost)
  if (config.prices !== undefined) {
    if (!config.prices || typeof config.prices !== 'object' || Array.isArray(config.prices)) throw new UsageError(`${path}: prices must be { in?, out?, 'provider/model'?: { input, output } } (dollars per 1M tokens)`)
    const { in: pin, out: pout, ...perModel } = config.prices
    if (pin !== undefined) values['price-in'] = String(pin)
    if (pout !== undefined) values['price-out'] = String(pout)
    // per model, over oxeval's table (the core checks them: evals/budget.rs, pricing.rs)
    if (Object.keys(perModel).length > 0) extra.modelPrices = perModel
  }
  // batch mode (the flags --batch, --batch-poll-ms, --batch-max-items, --detach): true or
  // { pollMs?, maxItems?, maxRequests?, detach? }
  if (config.batch !== undefined && config.batch !== false) {
    const b = config.batch
    const ok = b === true || (b !== null && typeof b === 'object' && !Array.isArray(b) && Object.keys(b).every((k) => ['pollMs', 'maxItems', 'maxRequests', 'detach'].includes(k)))
    if (!ok) throw new UsageError(`${path}: batch must be true or { pollMs?, maxItems?, maxRequests?, detach? }`)
    values.batch = true
    if (b !== true && b.pollMs !== undefined) {
      if (!Number.isInteger(b.pollMs) || b.pollMs <= 0) throw new UsageError(`${path}: batch.pollMs must be a positive integer (milliseconds)`)
      values['batch-poll-ms'] = String(b.pollMs)
    }
    if (b !== true && b.maxItems !== undefined) {
      if (!Number.isInteger(b.maxItems) || b.maxItems <= 0) throw new UsageError(`${path}: batch.maxItems must be a positive integer (items in flight at once)`)
      values['batch-max-items'] = String(b.maxItems)
    }
    if (b !== true && b.maxRequests !== undefined) {
      if (!Number.isInteger(b.maxRequests) || b.maxRequests <= 0) throw new UsageError(`${path}: batch.maxRequests must be a positive integer (requests per batch)`)
      extra.batchMaxRequests = b.maxRequests
    }
    if (b !== true && b.detach !== undefined) {
      if (typeof b.detach !== 'boolean') throw new UsageError(`${path}: batch.detach must be true or false`)
      values.detach = b.detach
    }
  }
  if (config.cacheTargets !== undefined) {
    if (typeof config.cacheTargets !== 'string') throw new UsageError(`${path}: cacheTargets must be a folder path`)
    values['cache-targets'] = at(config.cacheTargets)
  }
  extra.target = config.target
  extra.targetTimeoutMs = config.targetTimeoutMs
  extra.targetOptions = config.targetOptions
  if (Array.isArray(config.data)) {
    // inline items: written (last, once every field is checked) to a private temp folder, read
    // like any dataset; the run removes the folder when it ends (extra.tempDir), failed or not
    extra.tempDir = mkdtempSync(join(tmpdir(), 'oxeval-config-'))
    values.data = join(extra.tempDir, 'data.jsonl')
    try {
      writeFileSync(values.data, config.data.map((it) => JSON.stringify(it)).join('\n') + '\n')
    } catch (e) {
      rmSync(extra.tempDir, { recursive: true, force: true })
      throw e
    }
  }
  return { values, extra }
}

function thresholdFlag(t, path, where) {
  if (typeof t === 'number') return String(t)
  if (t && typeof t === 'object' && (t.min !== undefined || t.max !== undefined)) {
    if (t.min !== undefined && t.max !== undefined) return `${t.min}..${t.max}`
    return t.min !== undefined ? `>=${t.min}` : `<=${t.max}`
  }
  throw new UsageError(`${path}: ${where}.threshold must be a number or { min?, max? }`)
}

/** `flags` over `config` values: a flag the user gave wins; lists (scorer, gate, threshold) add up. */
export function mergeValues(config, flags) {
  const out = { ...config }
  for (const [k, v] of Object.entries(flags)) {
    if (v === undefined) continue
    out[k] = Array.isArray(v) && Array.isArray(config[k]) ? [...config[k], ...v] : v
  }
  return out
}
