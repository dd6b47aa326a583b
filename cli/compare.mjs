// `oxeval compare base.jsonl head.jsonl`: two `--out` files of runs of the same scorers. Items
// pair by `id` (when both runs' items have one), else by their input; per scorer the mean of
// head − base over the paired items and a paired test (the core's `compare.rs`: Wilcoxon's
// signed-rank test and a paired bootstrap interval), direction-aware; the items that got
// worse most, with their reasons; new and missing items. With --base-runs K the base is the
// last K runs of a stored baseline: an item's base is the mean of its scores across them, and
// the judge noise they show (per-item spread, verdict flips, the noise floor) is measured and
// reported (compare.rs). Exit 0, or 1 with
// --fail-on-regression when a scorer got significantly worse; 2 for usage errors.
import { createReadStream, existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { UsageError } from './errors.mjs'
import { safeText } from './terminal.mjs'
import { baseRunsOption, exportRun, poolBaseline, poolFiles, resolveBaseline, storeSpec } from './store.mjs'
import { findConfig } from './config.mjs'
import { itemReason, itemScore } from '../report/items.mjs'

const require = createRequire(import.meta.url)

export const COMPARE_HELP = `Usage: oxeval compare BASE HEAD [options]

BASE and HEAD are --out files, or runs in the results store (--store PATH, default
.oxeval/store.db): main (the newest finished run on a branch), branch:B, run:ID, tag:T.

Compares two runs (their --out files): items pair by id (else by input); per scorer the mean
of head − base over the paired items, a paired test and its 95% interval, direction-aware
(a lower-is-better scorer regresses when it rises).

Options
      --alpha A              significance level (default 0.05)
      --min-effect X         a regression must move the mean by at least X (default 0)
      --fail-on-regression   exit 1 when a scorer got significantly worse
      --format F             text (default), json, or markdown (a pull-request comment)
      --worst N              the N items that got worse most, per scorer (default 5)
      --base-runs K          pool the last K finished runs of a stored BASE (main, branch:B,
                             tag:T: the newest K with its dataset; run:ID: it and the K−1 before
                             it on its branch): an item's base is its mean over them, the judge
                             noise is measured, and a change within it is "within noise"
  -h, --help

Exit status: 0 (or 1 with --fail-on-regression and a regression), 2 usage or file errors.
`

const OPTIONS = {
  alpha: { type: 'string' },
  'min-effect': { type: 'string' },
  'fail-on-regression': { type: 'boolean' },
  format: { type: 'string' },
  worst: { type: 'string' },
  'base-runs': { type: 'string' },
  store: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
}

/** An `--out` file: its header and items (the summary is not needed). */
async function readRun(path, flag) {
  if (!existsSync(path)) throw new UsageError(`${flag} ${path}: no such file`)
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity })
  let header
  const items = []
  let n = 0
  for await (const line of lines) {
    n++
    if (line.trim() === '') continue
    let rec
    try {
      rec = JSON.parse(line)
    } catch {
      throw new UsageError(`${flag} ${path}:${n}: not a JSON line (is it an oxeval --out file?)`)
    }
    if (n === 1) {
      if (!rec || rec.type !== 'run') throw new UsageError(`${flag} ${path}: the first line is not an oxeval run header (make it with oxeval run --out)`)
      header = rec
    } else if (rec && rec.type === 'item') items.push(rec)
  }
  if (!header) throw new UsageError(`${flag} ${path}: empty file`)
  return { header, items }
}

/** A stable text of a value (object keys sorted), for pairing items by input. */
function stable(v) {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stable(v[k])}`).join(',')}}`
  return JSON.stringify(v) ?? 'undefined'
}

function pairKeys(bases, head) {
  const byId = bases.every((b) => b.items.every((i) => i.id !== undefined)) && head.items.every((i) => i.id !== undefined)
  const key = (it) => (byId ? `id:${it.id}` : `input:${stable(it.input)}`)
  const label = (it) => (byId ? String(it.id) : typeof it.input === 'string' ? it.input : stable(it.input))
  return { by: byId ? 'id' : 'input', key, label }
}

const ids = (h) => [...(h.scorers || []).map((s) => s.id), ...(h.gates || [])]

function number(flag, text, dflt) {
  if (text === undefined) return dflt
  const n = Number(text)
  if (String(text).trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${flag} must be a number; got "${text}"`)
  return n
}

/** A scorer's threshold and scale in a run's header (for the base runs' verdict flips). */
function verdictRule(header, id) {
  const t = (header.scorers || []).find((x) => x.id === id)?.threshold
  return { threshold: t ?? null, scale: header.scorerInfo?.[id]?.scale ?? null }
}

const first = (maps, k) => maps.find((m) => m.has(k))?.get(k)

/**
 * The comparison as data (what --format json prints). `basePaths`: one --out file, or several
 * (the pooled base runs, newest first; `opts.pool` says what was asked: requested, runIds, note).
 */
export async function comparison(basePaths, headPath, opts = {}) {
  const paths = Array.isArray(basePaths) ? basePaths : [basePaths]
  const bases = []
  for (const p of paths) bases.push(await readRun(p, 'BASE'))
  const head = await readRun(headPath, 'HEAD')
  const { by, key, label } = pairKeys(bases, head)
  const index = (items) => {
    const m = new Map()
    for (const it of items) if (!m.has(key(it))) m.set(key(it), it)
    return m
  }
  const baseMaps = bases.map((b) => index(b.items))
  const headMap = index(head.items)
  const inBase = (k) => baseMaps.some((m) => m.has(k))
  const shared = [...headMap.keys()].filter(inBase)
  const newItems = [...headMap.keys()].filter((k) => !inBase(k)).map((k) => label(headMap.get(k)))
  const baseKeys = new Set(baseMaps.flatMap((m) => [...m.keys()]))
  const missingItems = [...baseKeys].filter((k) => !headMap.has(k)).map((k) => label(first(baseMaps, k)))
  const base = bases[0]
  const scorerIds = ids(head.header).filter((id) => ids(base.header).includes(id))
  if (!scorerIds.length) throw new UsageError('the two runs have no scorer in common')
  const direction = (id) => head.header.scorerInfo?.[id]?.direction ?? base.header.scorerInfo?.[id]?.direction ?? 'higher'
  const series = scorerIds.map((id) => {
    const pairs = []
    for (const k of shared) {
      const samples = baseMaps.map((m) => (m.has(k) ? itemScore(m.get(k), id) : undefined)).filter((x) => typeof x === 'number')
      const h = itemScore(headMap.get(k), id)
      if (samples.length && typeof h === 'number') pairs.push({ k, b: samples.reduce((a, x) => a + x, 0) / samples.length, samples, h })
    }
    return { id, direction: direction(id), pairs }
  })
  const pooled = bases.length > 1
  const native = require('../load-binding.js')
  const r = native.compareScores(
    JSON.stringify({
      alpha: opts.alpha,
      minEffect: opts.minEffect,
      scorers: series.map((s) => ({
        id: s.id,
        direction: s.direction,
        head: s.pairs.map((p) => p.h),
        ...(pooled ? { baseRuns: s.pairs.map((p) => p.samples), ...verdictRule(base.header, s.id) } : { base: s.pairs.map((p) => p.b) }),
      })),
    }),
  )
  if (!r.ok) throw new UsageError(r.message)
  const pool = opts.pool ?? {}
  const baseRuns = { requested: pool.requested ?? 1, used: bases.length, runs: pool.runIds ?? null, note: pool.note ?? null }
  const k = Number.isInteger(opts.worst) && opts.worst >= 0 ? opts.worst : 5
  const worstItems = []
  for (const s of series) {
    const sign = s.direction === 'lower' ? -1 : 1
    const worse = s.pairs
      .map((p) => ({ ...p, delta: p.h - p.b }))
      .filter((p) => sign * p.delta < 0)
      .sort((a, b) => sign * a.delta - sign * b.delta)
      .slice(0, k)
    for (const p of worse) worstItems.push({ scorer: s.id, item: label(headMap.get(p.k)), base: p.b, head: p.h, delta: p.delta, reason: itemReason(headMap.get(p.k), s.id) })
  }
  const method = pooled ? `${r.value.method}; base: per item the mean of ${bases.length} runs, judge noise measured across them (a change below the noise floor z·σ·√(mean(1 + 1/K)/n) is within noise)` : r.value.method
  return { method, pairedBy: by, alpha: r.value.alpha, minEffect: r.value.minEffect, sharedItems: shared.length, baseRuns, scorers: r.value.scorers, newItems, missingItems, worstItems }
}

const fmt = (x, d = 3) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(d) : '–')
const signed = (x) => (typeof x === 'number' ? `${x > 0 ? '+' : ''}${x.toFixed(3)}` : '–')
const pText = (p) => (typeof p !== 'number' ? '–' : p < 0.001 ? '<0.001' : p.toFixed(3))
// what a comparison that found nothing can say: too few items to find anything, or how small a
// change it would have found (80 % power at this size and spread; the core's compare.rs)
const verdict = (s) =>
  s.regressed ? 'REGRESSED'
  : s.improved ? 'improved'
  : s.withinNoise ? `within judge noise (|Δ| < noise floor ${s.noise.floor.toFixed(3)})`
  : s.canDetect === false ? `too few items to detect any change (a paired test at this α needs ≥ ${s.minPairs})`
  : `no significant change${typeof s.detectable === 'number' ? ` (smallest detectable ≈ ${s.detectable.toFixed(3)})` : ''}`

const LISTED = 50

/** The judge-noise lines of a pooled comparison (none with one base run). */
function noiseLines(c) {
  const b = c.baseRuns
  if (!b || (b.used < 2 && !b.note)) return []
  const out = [`judge noise across ${b.used} base run${b.used === 1 ? '' : 's'}${b.requested !== b.used ? ` (${b.requested} asked)` : ''}:`]
  if (b.note) out.push(`  ${b.note}`)
  for (const s of c.scorers) {
    const n = s.noise
    if (!n) continue
    if (n.pooledSd == null) {
      out.push(`  ${s.id}: no item scored in two base runs: noise not measured`)
      continue
    }
    out.push(`  ${s.id}: per-item sd ${fmt(n.meanSd)} on average (pooled σ ${fmt(n.pooledSd)}, ${n.items} items), ${n.flips} item${n.flips === 1 ? '' : 's'} flip${n.flips === 1 ? 's' : ''} verdict among the base runs; noise floor ±${fmt(n.floor)}`)
  }
  return out
}

function markdown(c) {
  const esc = (t) => String(t).replace(/[|\\`*_<>[\]]/g, (ch) => `\\${ch}`).replace(/\n/g, ' ')
  const out = ['### oxeval compare', '']
  const regressed = c.scorers.filter((s) => s.regressed)
  out.push(regressed.length ? `**${regressed.length} scorer${regressed.length === 1 ? '' : 's'} regressed:** ${regressed.map((s) => `\`${esc(s.id)}\``).join(', ')}` : 'No scorer regressed.')
  out.push('')
  out.push('| scorer | base | head | Δ | 95% CI | p | n | |')
  out.push('|---|---|---|---|---|---|---|---|')
  for (const s of c.scorers) out.push(`| ${esc(s.id)} | ${fmt(s.baseMean)} | ${fmt(s.headMean)} | ${signed(s.delta)} | ${s.ci95 ? `[${signed(s.ci95[0])}, ${signed(s.ci95[1])}]` : '–'} | ${pText(s.pValue)} | ${s.n} | ${s.regressed ? '🔴 regressed' : s.improved ? '🟢 improved' : s.withinNoise ? `within noise (< ${fmt(s.noise.floor)})` : s.canDetect === false ? `too few items (≥ ${s.minPairs} needed)` : typeof s.detectable === 'number' ? `unchanged (detectable ≈ ${s.detectable.toFixed(3)})` : ''} |`)
  const noise = noiseLines(c)
  if (noise.length) out.push('', ...noise.map((l) => `${l.startsWith('  ') ? '- ' : ''}${esc(l.trim())}`))
  if (c.worstItems.length) {
    out.push('', '<details><summary>Items that got worse</summary>', '')
    for (const w of c.worstItems) out.push(`- \`${esc(w.scorer)}\` ${esc(w.item).slice(0, 120)}: ${fmt(w.base)} → ${fmt(w.head)}${w.reason ? ` — ${esc(w.reason).slice(0, 200)}` : ''}`)
    out.push('', '</details>')
  }
  // the items only one run has, listed (the first LISTED of each; a comment stays readable)
  for (const [what, list, why] of [
    ['New items', c.newItems, 'in head only: not compared'],
    ['Missing items', c.missingItems, 'in base only: not compared'],
  ]) {
    if (!list.length) continue
    out.push('', `<details><summary>${what}: ${list.length} (${why})</summary>`, '')
    for (const item of list.slice(0, LISTED)) out.push(`- ${esc(item).slice(0, 120)}`)
    if (list.length > LISTED) out.push(`- … and ${list.length - LISTED} more`)
    out.push('', '</details>')
  }
  out.push('', `<sub>${esc(c.method)}; α = ${c.alpha}${c.minEffect ? `, minimum effect ${c.minEffect}` : ''}; items paired by ${c.pairedBy}.</sub>`, '')
  return out.join('\n')
}

function text(c) {
  const out = [`oxeval compare: ${c.sharedItems} paired items (by ${c.pairedBy}), α = ${c.alpha}${c.minEffect ? `, min effect ${c.minEffect}` : ''}`, '']
  const w = c.scorers.reduce((m, s) => Math.max(m, s.id.length), 6)
  out.push(`${'scorer'.padEnd(w)}  base    head    delta   95% CI              p       n`)
  for (const s of c.scorers) {
    out.push(`${s.id.padEnd(w)}  ${fmt(s.baseMean).padEnd(6)}  ${fmt(s.headMean).padEnd(6)}  ${signed(s.delta).padEnd(6)}  ${(s.ci95 ? `[${signed(s.ci95[0])}, ${signed(s.ci95[1])}]` : '–').padEnd(18)}  ${pText(s.pValue).padEnd(6)}  ${s.n}  ${verdict(s)}`)
  }
  const noise = noiseLines(c)
  if (noise.length) out.push('', ...noise)
  if (c.worstItems.length) {
    out.push('', 'worst items:')
    for (const x of c.worstItems) out.push(`  ${x.scorer}  ${String(x.item).slice(0, 60)}  ${fmt(x.base)} → ${fmt(x.head)}${x.reason ? `  ${String(x.reason).slice(0, 120)}` : ''}`)
  }
  out.push('', `new items: ${c.newItems.length}, missing items: ${c.missingItems.length}`)
  for (const [what, list] of [['new', c.newItems], ['missing', c.missingItems]]) {
    for (const item of list.slice(0, 10)) out.push(`  ${what}  ${String(item).slice(0, 80)}`)
    if (list.length > 10) out.push(`  ${what}  … and ${list.length - 10} more`)
  }
  out.push(`method: ${c.method}`)
  return `${safeText(out.join('\n'), { newlines: true })}\n`
}

/** The text report of comparing a base (one --out file, or the pooled runs' files) with a
 * head (for `oxeval run --base`). */
export async function compareText(basePaths, headPath, pool) {
  return text(await comparison(basePaths, headPath, { pool }))
}

export async function compare(argv, io = { stdout: process.stdout }) {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true })
  if (values.help) return { help: true }
  if (positionals.length !== 2) throw new UsageError('compare takes two --out files: oxeval compare BASE.jsonl HEAD.jsonl')
  const format = values.format ?? 'text'
  if (!['text', 'json', 'markdown'].includes(format)) throw new UsageError(`--format must be text, json or markdown; got "${format}"`)
  const alpha = number('alpha', values.alpha, 0.05)
  if (!(alpha > 0 && alpha < 1)) throw new UsageError(`--alpha must be between 0 and 1; got "${values.alpha}"`)
  const minEffect = number('min-effect', values['min-effect'], 0)
  if (minEffect < 0) throw new UsageError(`--min-effect must be at least 0; got "${values['min-effect']}"`)
  const worst = values.worst === undefined ? 5 : number('worst', values.worst, 5)
  // a run in the results store by name (main, branch:B, run:ID, tag:T) is exported to a file
  const k = baseRunsOption(values['base-runs'])
  const store = storeSpec(values, { configPath: findConfigQuietly() })
  // a stored head is never pooled into its own base
  const h = resolveBaseline(positionals[1], store, { flag: 'HEAD' })
  const pool = poolBaseline(positionals[0], store, { flag: 'BASE', k, exclude: typeof h === 'string' ? undefined : h.runId })
  const headPath = typeof h === 'string' ? h : exportRun(store, h.runId)
  const c = await comparison(poolFiles(pool, store), headPath, { alpha, minEffect, worst, pool })
  io.stdout.write(format === 'json' ? `${JSON.stringify(c, null, 2)}\n` : format === 'markdown' ? markdown(c) : text(c))
  return { code: values['fail-on-regression'] && c.scorers.some((s) => s.regressed) ? 1 : 0 }
}

function findConfigQuietly() {
  try {
    return findConfig(undefined)
  } catch {
    return null
  }
}
