// Scorer names, thresholds and `--option` values for the CLI, generic over the core's scorer
// registry (generated/scorers.js): a scorer added there is usable here with no CLI change.
import { createRequire } from 'node:module'
import { UsageError } from './errors.mjs'

const require = createRequire(import.meta.url)
/** `[{ factory, id, contextExtractor }]`, one per registry scorer. */
export const REGISTRY = require('../generated/scorers.js')

/** The names of oxeval's and Mastra's own scorers without their `code-` / `llm-` prefix (`tool-call-accuracy`): a Ragas metric never takes one. */
const RESERVED = new Set(REGISTRY.filter((s) => !s.id.startsWith('ragas-')).map((s) => s.id.replace(/-scorer$/, '').replace(/^(?:code|llm)-/, '')))

/**
 * The CLI's name: the id without `-scorer`; a Ragas metric without `ragas-` and `-score`
 * (`bleu`), unless that name is one of Mastra's (`ragas-tool-call-accuracy` keeps its prefix).
 */
const shortName = (spec) => {
  const n = spec.id.replace(/-scorer$/, '')
  const bare = n.replace(/^ragas-(.+?)(?:-score)?$/, '$1')
  return RESERVED.has(bare) && bare !== n ? n : bare
}

/** Other accepted names: a Ragas `non-llm-` metric also without it (`string-similarity`). */
const aliases = (spec) => {
  const n = shortName(spec)
  const bare = n.replace(/^non-llm-/, '')
  return spec.id.startsWith('ragas-') && bare !== n && !RESERVED.has(bare) ? [bare] : []
}

/** The registry entry for a name: its id, its short name or alias, or its factory name. */
export function findScorer(name) {
  const n = String(name).trim()
  return REGISTRY.find((s) => n === s.id || n === shortName(s) || aliases(s).includes(n) || n === s.factory)
}

/** One line per scorer: the short name, then the other accepted spellings. */
export function scorerNamesHelp(indent = '  ') {
  const w = REGISTRY.reduce((m, s) => Math.max(m, shortName(s).length), 0)
  return REGISTRY.map((s) => `${indent}${shortName(s).padEnd(w)}  (${s.id}, ${s.factory})`).join('\n')
}

export function resolveScorer(name, flag = '--scorer') {
  const spec = findScorer(name)
  if (!spec) throw new UsageError(`${flag}: unknown scorer "${name}". Valid scorers:\n${scorerNamesHelp()}`)
  return spec
}

/**
 * `--threshold name=0.7` (a minimum), `name=>=0.7`, `name=<=0.3` (a maximum), `name=0.2..0.8`.
 * Returns `{ spec, threshold }` with the threshold as runEvals takes it.
 */
export function parseThreshold(text) {
  const eq = String(text).lastIndexOf('=')
  const at = String(text).search(/=(?:[<>]=)?[-+.\d]/)
  const cut = at >= 0 ? at : eq
  if (cut <= 0) throw new UsageError(`--threshold must be scorer=value (e.g. answer-relevancy=0.7); got "${text}"`)
  const spec = resolveScorer(text.slice(0, cut), '--threshold')
  const value = text.slice(cut + 1).trim()
  const num = (s) => {
    const x = Number(s)
    if (s.trim() === '' || !Number.isFinite(x)) throw new UsageError(`--threshold ${text}: "${s}" is not a number`)
    return x
  }
  let threshold
  if (value.startsWith('>=')) threshold = num(value.slice(2))
  else if (value.startsWith('<=')) threshold = { max: num(value.slice(2)) }
  else if (value.includes('..')) {
    const [lo, hi] = value.split('..')
    threshold = { min: num(lo), max: num(hi) }
    if (threshold.min > threshold.max) throw new UsageError(`--threshold ${text}: the range is empty`)
  } else threshold = num(value)
  return { spec, threshold }
}

/** A CLI value: JSON when it parses (numbers, booleans, arrays, objects), else the text. */
function optionValue(text) {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor'])

/**
 * `--option scorer.key=value` (`key` may be a dotted path, e.g. `modelSettings.maxRetries`;
 * `*.key=value` sets it on every scorer). Returns `{ target: spec | '*', path: string[], value }`.
 */
export function parseOption(text) {
  const s = String(text)
  const eq = s.indexOf('=')
  const dot = s.indexOf('.')
  if (eq < 0 || dot < 0 || dot > eq) throw new UsageError(`--option must be scorer.key=value (e.g. factual-correctness.mode=precision); got "${text}"`)
  const name = s.slice(0, dot)
  const path = s.slice(dot + 1, eq).split('.')
  if (path.some((p) => p === '' || FORBIDDEN_KEYS.has(p))) throw new UsageError(`--option ${text}: bad key "${s.slice(dot + 1, eq)}"`)
  const target = name === '*' ? '*' : resolveScorer(name, '--option')
  return { target, path, value: optionValue(s.slice(eq + 1)) }
}

/** Sets `value` at `path` inside `obj` (creating plain objects on the way). */
export function setPath(obj, path, value) {
  let o = obj
  for (const k of path.slice(0, -1)) {
    if (o[k] === null || typeof o[k] !== 'object' || Array.isArray(o[k])) o[k] = {}
    o = o[k]
  }
  o[path[path.length - 1]] = value
}
