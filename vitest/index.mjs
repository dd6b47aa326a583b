// `oxeval/vitest`: @mastra/evals/vitest's names over oxeval's runEvals (Mastra not needed):
// expectEvals / expectEval(...).toPass(minPassRate), the matchers (on a runEvals result, and
// toHaveScoreAbove/Below also on a single scorer result), a setup file, and a reporter that
// prints per-scorer means, coverage and the worst items at the end of the run.
import * as vitest from 'vitest'
import oxeval from '../index.js'
import { agreementText, badness, directionOf, flattenScores, itemError, itemPasses, itemReason, itemScore, outcomeOf, scaleOf, scorerIdOf, turnError, turnReason, turnScore } from '../report/items.mjs'

const { runEvals } = oxeval
const { expect } = vitest
// the running test: Vitest 4's TestRunner.getCurrentTest, else (3.x) vitest/suite's
const suite = vitest.TestRunner?.getCurrentTest ? null : await import('vitest/suite').catch(() => null)
const currentTest = vitest.TestRunner?.getCurrentTest ? () => vitest.TestRunner.getCurrentTest() : suite?.getCurrentTest
const WORST = 5
const REASON_CHARS = 160

const isRunResult = (v) => typeof v === 'object' && v !== null && typeof v.scores === 'object' && v.scores !== null && typeof v.summary === 'object'
const isScoreResult = (v) => typeof v === 'object' && v !== null && typeof v.score === 'number' && !('scores' in v)
const short = (s, n = REASON_CHARS) => {
  const t = String(s ?? '').replace(/\s+/g, ' ').trim()
  return t.length > n ? `${t.slice(0, n - 1)}…` : t
}
const fmt = (x) => (x === null || x === undefined ? 'n/a' : Number.isInteger(x) ? x.toFixed(1) : x.toFixed(3).replace(/0+$/, '').replace(/\.$/, '.0'))
const rate = (x) => `${Math.round(x * 1000) / 10}%`

/**
 * The worst items of a scorer, as serializable rows: errors first, then the worst scores in
 * the scorer's direction (lowest; highest where lower is better, e.g. hallucination). Items
 * that pass (meet the threshold; a gate's 1; with neither, the best score) are never listed.
 */
export function worstItems(result, scorerId, n = WORST) {
  const direction = directionOf(result, scorerId)
  const threshold = (result.thresholdResults ?? []).find((t) => t.id === scorerId)?.threshold
  const gate = (result.gateResults ?? []).some((g) => g.id === scorerId)
  const view = { threshold, direction, scale: scaleOf(result, scorerId), gate }
  const rows = []
  for (const item of result.items ?? []) {
    const score = itemScore(item, scorerId)
    if (score !== null) {
      if (!itemPasses(score, view)) rows.push({ index: item.index, id: item.id, score, reason: short(itemReason(item, scorerId)) })
      continue
    }
    const e = itemError(item, scorerId)
    if (!e) continue
    const text = e === item.targetError ? `error: target: ${e.message}` : `error${e.code ? ` ${e.code}` : ''}${e.failedStep ? ` in ${e.failedStep}` : ''}: ${e.message}`
    rows.push({ index: item.index, id: item.id, score: null, reason: short(text) })
  }
  const key = (r) => (r.score === null ? Infinity : badness(r.score, direction))
  rows.sort((a, b) => key(b) - key(a) || a.index - b.index)
  return rows.slice(0, n)
}

/**
 * The worst items of one turn's assertion (turn `k` of `turns` items), as `worstItems`: errors
 * first, then the worst scores; passing items never listed.
 */
export function worstTurnItems(result, k, scorerId, n = WORST) {
  const turn = (result.turnResults ?? []).find((t) => t.index === k) ?? {}
  const info = turn.scorerInfo?.[scorerId] ?? {}
  const gate = (turn.gateResults ?? []).some((g) => g.id === scorerId)
  const threshold = (turn.thresholdResults ?? []).find((t) => t.id === scorerId)?.threshold
  const view = { threshold, direction: info.direction ?? 'higher', scale: info.scale ?? 1, gate }
  const rows = []
  for (const item of result.items ?? []) {
    if (!Array.isArray(item.turns) || !item.turns.some((t) => t.index === k && [...(t.gates ?? []), ...(t.scorers ?? [])].some((d) => d.id === scorerId))) continue
    const score = turnScore(item, k, scorerId)
    if (score !== null) {
      if (!itemPasses(score, view)) rows.push({ index: item.index, id: item.id, score, reason: short(turnReason(item, k, scorerId)) })
      continue
    }
    const e = turnError(item, k, scorerId)
    if (!e) continue
    const text = e === item.targetError ? `error: target: ${e.message}` : `error${e.code ? ` ${e.code}` : ''}${e.failedStep ? ` in ${e.failedStep}` : ''}: ${e.message}`
    rows.push({ index: item.index, id: item.id, score: null, reason: short(text) })
  }
  const key = (r) => (r.score === null ? Infinity : badness(r.score, view.direction))
  rows.sort((a, b) => key(b) - key(a) || a.index - b.index)
  return rows.slice(0, n)
}

const worstRow = (indent) => (w) => `${indent}#${w.index}${w.id !== undefined ? ` (${w.id})` : ''} ${w.score === null ? 'error' : fmt(w.score)}: ${w.reason}`

function worstLines(result, scorerId, indent = '    ') {
  return worstItems(result, scorerId).map(worstRow(indent))
}

function worstTurnLines(result, k, scorerId, indent = '    ') {
  return worstTurnItems(result, k, scorerId).map(worstRow(indent))
}

/** The per-turn coverage of an assertion, as coverageText says it. */
function turnCoverageText(result, k, id) {
  const turn = (result.turnResults ?? []).find((t) => t.index === k)
  const c = turn?.coverage?.[id]
  const errs = turn?.errors?.[id]
  return c ? ` (scored ${c.scored}/${c.total}${errs ? `, ${errs} failed run${errs === 1 ? '' : 's'}` : ''})` : ''
}

function coverageText(result, id) {
  const c = result.coverage?.[id]
  const ns = result.summary?.notScorable?.[id]
  return c ? ` (scored ${c.scored}/${c.total}${result.errors?.[id] ? `, ${result.errors[id]} failed run${result.errors[id] === 1 ? '' : 's'}` : ''}${ns ? `, ${ns} not scorable` : ''})` : ''
}

/** A mean by its `scores` key: an id, or a dot path (`trajectory.<id>`, Mastra's); undefined when there is none. */
function lookup(scores, name) {
  const direct = Object.hasOwn(scores, name) ? scores[name] : undefined
  const v = direct !== undefined ? direct : name.split('.').reduce((acc, k) => (acc == null ? undefined : acc[k]), scores)
  return v !== null && typeof v === 'object' ? undefined : v
}

function notFound(matcher, received, name) {
  return { pass: false, message: () => `${matcher}: scorer "${name}" not found in the result. Scorers: ${Object.keys(flattenScores(received.scores)).join(', ') || '(none)'}` }
}

function invalid(matcher, received) {
  let shown
  try {
    shown = JSON.stringify(received)?.slice(0, 200)
  } catch {
    shown = String(received)
  }
  return { pass: false, message: () => `${matcher} expects a runEvals result${matcher.startsWith('toHaveScore') ? ' or a scorer result' : ''}, received: ${shown}` }
}

function scoreMatcher(name, cmp, word) {
  return function (received, scorerOrBound, bound) {
    if (isScoreResult(received) && typeof scorerOrBound === 'number') {
      const s = received.score
      const pass = cmp(s, scorerOrBound)
      const by = Math.abs(s - scorerOrBound)
      return {
        pass,
        message: () =>
          pass
            ? `expected score ${fmt(s)} not to be ${word} ${scorerOrBound}`
            : `expected score ${fmt(s)} to be ${word} ${scorerOrBound} (off by ${fmt(by)})${received.reason ? `\n  reason: ${short(received.reason, 400)}` : ''}`,
      }
    }
    if (!isRunResult(received)) return invalid(name, received)
    const id = scorerOrBound
    if (typeof id !== 'string') return invalid(name, received)
    const raw = lookup(received.scores, id)
    if (raw === undefined) return notFound(name, received, id)
    // the categorized form's `trajectory.<id>`: the other maps are keyed by the id
    const sid = scorerIdOf(received, id)
    if (raw === null) {
      return { pass: false, message: () => `scorer "${id}" has no scored item${coverageText(received, sid)}, so it has no mean to compare\n${worstLines(received, sid).join('\n')}` }
    }
    const pass = cmp(raw, bound)
    return {
      pass,
      message: () =>
        pass
          ? `expected the mean of "${id}" (${fmt(raw)}) not to be ${word} ${bound}`
          : [`expected the mean of "${id}" (${fmt(raw)}) to be ${word} ${bound}, off by ${fmt(Math.abs(raw - bound))}${coverageText(received, sid)}`, ...(received.items ? ['  worst items:', ...worstLines(received, sid)] : [])].join('\n'),
    }
  }
}

export const evalMatchers = {
  toHaveVerdict(received, verdict) {
    if (!isRunResult(received)) return invalid('toHaveVerdict', received)
    const actual = received.verdict
    return {
      pass: actual === verdict,
      message: () =>
        actual === verdict
          ? `expected verdict not to be "${verdict}"`
          : `expected verdict "${verdict}", got ${actual === undefined ? 'no verdict (no gates or thresholds configured)' : `"${actual}"`}\n${failedLines(received).join('\n')}`,
    }
  },
  toHaveScoreAbove: scoreMatcher('toHaveScoreAbove', (s, b) => s > b, 'above'),
  toHaveScoreBelow: scoreMatcher('toHaveScoreBelow', (s, b) => s < b, 'below'),
  toPassGates(received) {
    if (!isRunResult(received)) return invalid('toPassGates', received)
    // the run's gates and every turn's (Mastra's: `turn <index> <id>`)
    const gates = [...(received.gateResults ?? []), ...turnRows(received, 'gateResults')]
    if (gates.length === 0) return { pass: false, message: () => 'no gates were configured on this eval run' }
    const failed = gates.filter((g) => !g.passed)
    return {
      pass: failed.length === 0,
      message: () =>
        failed.length === 0
          ? `expected at least one gate to fail, but all ${gates.length} passed`
          : [`expected all gates to pass, but ${failed.length} failed:`, ...failed.flatMap((g) => gateLines(received, g))].join('\n'),
    }
  },
  /**
   * Every scorer with labels (items' `expected`) agrees with them at least `minKappa` (Cohen's
   * κ at its threshold); `scorerId` narrows it to one scorer. An undefined κ fails, with its
   * reason.
   */
  toAgreeWithLabels(received, minKappa, scorerId) {
    if (!isRunResult(received)) return invalid('toAgreeWithLabels', received)
    if (typeof minKappa !== 'number' || !(minKappa >= -1 && minKappa <= 1)) {
      throw new TypeError(`toAgreeWithLabels(minKappa): minKappa must be a number in [-1, 1], got ${String(minKappa)}`)
    }
    const all = received.agreement ?? {}
    const ids = scorerId === undefined ? Object.keys(all) : [scorerId]
    if (ids.length === 0) return { pass: false, message: () => 'toAgreeWithLabels: no item of this run carries labels (`expected: { [scorerId]: number | \'pass\' | \'fail\' }`)' }
    const missing = ids.filter((id) => !all[id])
    if (missing.length > 0) return { pass: false, message: () => `toAgreeWithLabels: scorer "${missing[0]}" has no labels in this run. Labeled: ${Object.keys(all).join(', ') || '(none)'}` }
    const failed = ids.filter((id) => !(typeof all[id].kappa === 'number' && all[id].kappa >= minKappa))
    return {
      pass: failed.length === 0,
      message: () =>
        failed.length === 0
          ? [`expected a scorer's κ below ${minKappa}, but all agree at least that well:`, ...ids.map((id) => `  ${agreementText(id, all[id])}`)].join('\n')
          : [`expected κ ≥ ${minKappa} with the labels, but ${failed.length} scorer${failed.length === 1 ? '' : 's'} fell short:`, ...failed.map((id) => `  ✗ ${agreementText(id, all[id])}`)].join('\n'),
    }
  },
  toPassThresholds(received) {
    if (!isRunResult(received)) return invalid('toPassThresholds', received)
    const ts = [...(received.thresholdResults ?? []), ...turnRows(received, 'thresholdResults')]
    if (ts.length === 0) return { pass: false, message: () => 'no scorer thresholds were configured on this eval run' }
    const failed = ts.filter((t) => !t.passed)
    return {
      pass: failed.length === 0,
      message: () =>
        failed.length === 0
          ? `expected at least one threshold to fail, but all ${ts.length} passed`
          : [`expected all thresholds to pass, but ${failed.length} failed:`, ...failed.flatMap((t) => thresholdLines(received, t))].join('\n'),
    }
  },
}

function thresholdText(t) {
  return typeof t === 'number' ? `min ${t}` : Object.entries(t).map(([k, v]) => `${k} ${v}`).join(', ')
}

/** A run's per-turn gate or threshold results, each named `turn <index> <id>` (Mastra's), with its turn and scorer id kept. */
function turnRows(result, key) {
  return (result.turnResults ?? []).flatMap((t) => (t[key] ?? []).map((x) => ({ ...x, id: `turn ${t.index} ${x.id}`, turn: t.index, scorer: x.id })))
}

function gateLines(result, g) {
  if (g.turn !== undefined) return [`  ✗ gate ${g.id}: pass rate ${rate(g.score)}${turnCoverageText(result, g.turn, g.scorer)}`, ...worstTurnLines(result, g.turn, g.scorer)]
  return [`  ✗ ${g.id}: pass rate ${rate(g.score)}${coverageText(result, g.id)}`, ...worstLines(result, g.id)]
}

function thresholdLines(result, t) {
  const by =
    t.averageScore === null
      ? ''
      : typeof t.threshold === 'number'
        ? `, short by ${fmt(t.threshold - t.averageScore)}`
        : t.threshold.min !== undefined && t.averageScore < t.threshold.min
          ? `, short by ${fmt(t.threshold.min - t.averageScore)}`
          : t.threshold.max !== undefined && t.averageScore > t.threshold.max
            ? `, over by ${fmt(t.averageScore - t.threshold.max)}`
            : ''
  if (t.turn !== undefined) return [`  ✗ threshold ${t.id}: mean ${fmt(t.averageScore)} (threshold: ${thresholdText(t.threshold)}${by})${turnCoverageText(result, t.turn, t.scorer)}`, ...worstTurnLines(result, t.turn, t.scorer)]
  return [`  ✗ threshold ${t.id}: mean ${fmt(t.averageScore)} (threshold: ${thresholdText(t.threshold)}${by})${coverageText(result, t.id)}`, ...worstLines(result, t.id)]
}

/** The lines that explain why a run did not pass: the core's reasons, each with its worst items. */
function failedLines(result) {
  const outcome = outcomeOf(result)
  const lines = []
  for (const r of outcome.reasons) {
    if (r.turn !== undefined && (r.kind === 'threshold' || r.kind === 'gate')) {
      // a turn's assertion: its turn's result and worst items
      const row = turnRows(result, r.kind === 'gate' ? 'gateResults' : 'thresholdResults').find((x) => x.turn === r.turn && x.scorer === r.scorer)
      if (row) {
        for (const l of r.kind === 'gate' ? gateLines(result, row) : thresholdLines(result, row)) lines.push(l)
        continue
      }
    }
    if (r.turn !== undefined) {
      lines.push(`  ✗ ${r.message}`)
      for (const l of worstTurnLines(result, r.turn, r.scorer)) lines.push(l)
      continue
    }
    if (r.kind === 'threshold') {
      const t = (result.thresholdResults ?? []).find((x) => x.id === r.scorer)
      if (t) {
        for (const l of thresholdLines(result, t)) lines.push(l)
        continue
      }
    }
    if (r.kind === 'gate') {
      const g = (result.gateResults ?? []).find((x) => x.id === r.scorer)
      lines.push(`  ✗ gate ${r.scorer}: pass rate ${g ? rate(g.score) : 'n/a'} < required ${rate(outcome.policy?.gatePassRate ?? 1)}${coverageText(result, r.scorer)}`)
      for (const l of worstLines(result, r.scorer)) lines.push(l)
      continue
    }
    // a run-wide reason (unscored items, replay misses): the worst items of each scorer that had errors
    const ids = r.scorer ? [r.scorer] : Object.keys(result.coverage ?? {}).filter((id) => (result.coverage[id].scored < result.coverage[id].total))
    lines.push(`  ✗ ${r.message}`)
    for (const l of ids.flatMap((id) => worstLines(result, id))) lines.push(l)
  }
  return lines
}

/** Registers the matchers on Vitest's `expect`. */
export function registerEvalMatchers() {
  // a matcher given a runEvals result also leaves its summary on the test, for the reporter
  const noting = {}
  for (const [name, matcher] of Object.entries(evalMatchers)) {
    noting[name] = function (received, ...args) {
      if (isRunResult(received)) noteRun(received)
      return matcher.call(this, received, ...args)
    }
  }
  expect.extend(noting)
}

const metaOf = new WeakMap()
/** Puts a runEvals result's summary on the running test (`task.meta.oxevalEval`); outside a test, nothing. */
function noteRun(result) {
  try {
    const task = currentTest?.()
    if (!task || !task.meta) return
    let meta = metaOf.get(result)
    if (!meta) metaOf.set(result, (meta = toEvalMeta(result)))
    task.meta.oxevalEval = meta
  } catch {
    // a result toEvalMeta cannot read: the matcher says what is wrong with it
  }
}

/** Thrown by `.toPass()` when the eval does not pass. */
export class EvalPassRateError extends Error {
  constructor(message, result) {
    super(message)
    this.name = 'EvalPassRateError'
    this.result = result
  }
}

/** The serializable summary the reporter prints (stored in `task.meta.oxevalEval`). */
export function toEvalMeta(result) {
  // the categorized form's means under dot keys (`trajectory.<id>`), as Mastra's meta
  const meta = { scores: flattenScores(result.scores), totalItems: result.summary.totalItems, outcome: outcomeOf(result) }
  if (result.coverage) meta.coverage = result.coverage
  if (result.summary.notScorable) meta.notScorable = result.summary.notScorable
  if (result.errors) meta.errors = result.errors
  if (result.stats) meta.stats = Object.fromEntries(Object.entries(result.stats).map(([k, s]) => [k, { ci95: s.ci95 }]))
  if (result.verdict !== undefined) meta.verdict = result.verdict
  if (result.gateResults) meta.gateResults = result.gateResults.map((g) => ({ ...g }))
  if (result.thresholdResults) meta.thresholdResults = result.thresholdResults.map((t) => ({ ...t }))
  if (result.items) meta.worst = Object.fromEntries(Object.keys(result.coverage ?? result.scores).map((id) => [id, worstItems(result, id, 3)]))
  if (result.turnResults) {
    meta.turnResults = result.turnResults.map((t) => {
      const o = { index: t.index }
      for (const k of ['gateResults', 'thresholdResults', 'scores', 'coverage']) if (t[k] !== undefined) o[k] = t[k]
      return o
    })
    // the worst items of each turn assertion that did not pass
    if (result.items) {
      const worstTurn = {}
      for (const row of [...turnRows(result, 'gateResults'), ...turnRows(result, 'thresholdResults')]) {
        if (row.passed) continue
        const w = worstTurnItems(result, row.turn, row.scorer, 3)
        if (w.length) worstTurn[row.id] = w
      }
      if (Object.keys(worstTurn).length) meta.worstTurns = worstTurn
    }
  }
  return meta
}

async function attachMeta(result) {
  noteRun(result)
}

/** Throws EvalPassRateError unless the run's outcome (the core's decision) is a pass. */
function assertPass(result, minPassRate) {
  const outcome = outcomeOf(result)
  if (outcome.passed) return
  throw new EvalPassRateError([`Eval did not pass (required pass rate: ${rate(minPassRate)}). ${outcome.meaning ?? outcome.status}`, ...failedLines(result)].join('\n'), result)
}

function assertion(options) {
  return {
    /**
     * Runs the eval; passes when the run's outcome passes, with gates needing an average of
     * `minPassRate` (Mastra's rule; runEvals' `gatePassRate`). Unscored items fail it unless
     * `maxErrors` allows them.
     */
    async toPass(minPassRate = 1) {
      if (typeof minPassRate !== 'number' || !Number.isFinite(minPassRate) || minPassRate < 0 || minPassRate > 1) {
        throw new TypeError(`toPass(minPassRate): minPassRate must be a number in [0, 1], got ${String(minPassRate)}`)
      }
      const result = await runEvals({ ...options, gatePassRate: minPassRate })
      await attachMeta(result)
      assertPass(result, minPassRate)
      return result
    },
  }
}

/** Runs `runEvals(options)` when awaited with `.toPass(minPassRate)`. */
export function expectEvals(options) {
  return assertion(options)
}

/** `expectEvals` with one data item (`data: item`), for `test.each`. */
export function expectEval(options) {
  return assertion({ ...options, data: [options.data] })
}

// ---------------------------------------------------------------------------------------
// Reporter

const C = { green: '\x1b[32m', red: '\x1b[31m', yellow: '\x1b[33m', bold: '\x1b[1m', dim: '\x1b[2m', reset: '\x1b[0m' }
const ANSI = /\u001b\[[0-9;]*m/g

/**
 * Prints, after the run, one table per test that ran an eval (`expectEvals`/`expectEval`, a
 * registered matcher given a runEvals result, or any test that set `task.meta.oxevalEval`): per scorer mean, 95 % interval, coverage,
 * threshold/gate marks, then the worst items with their reasons.
 * `vitest.config.ts`: `test: { reporters: ['default', new OxevalEvalsReporter()] }`.
 */
export class OxevalEvalsReporter {
  constructor(options = {}) {
    this.color = options.color ?? (process.stdout.isTTY === true && process.env.NO_COLOR === undefined)
    this.out = options.write ?? ((s) => process.stdout.write(s))
  }
  style(code, s) {
    return this.color ? `${code}${s}${C.reset}` : s
  }
  onTestRunEnd(testModules) {
    const entries = []
    for (const m of testModules ?? []) {
      for (const t of m.children.allTests()) {
        const meta = t.meta().oxevalEval
        if (meta) entries.push({ fullName: t.fullName, meta })
      }
    }
    if (entries.length > 0) this.out(`${this.render(entries)}\n`)
  }
  /** The report as text (exposed for tests). */
  render(entries) {
    const lines = ['', this.style(C.bold, ' oxeval evals ')]
    let passed = 0
    let failed = 0
    for (const { fullName, meta } of entries) {
      // the run's outcome (older metadata without one: its verdict)
      const status = meta.outcome?.status ?? meta.verdict
      const badge = status === 'passed' ? this.style(C.green, '✓') : status === 'failed' ? this.style(C.red, '✗') : this.style(C.yellow, '•')
      if (status === 'passed') passed++
      if (status === 'failed') failed++
      lines.push('', `${badge} ${this.style(C.bold, fullName)} ${this.style(C.dim, `(${meta.totalItems} item${meta.totalItems === 1 ? '' : 's'})`)}`)
      if (meta.outcome && !meta.outcome.passed) for (const r of meta.outcome.reasons ?? []) lines.push(`   ${this.style(C.red, '✗')} ${r.message}`)
      const rows = []
      const mark = (ok) => (ok ? this.style(C.green, '✓') : this.style(C.red, '✗'))
      const th = new Map((meta.thresholdResults ?? []).map((t) => [t.id, t]))
      for (const g of meta.gateResults ?? []) rows.push([`${g.id} ${this.style(C.dim, '(gate)')}`, rate(g.score), this.cov(meta, g.id), mark(g.passed)])
      for (const [key, mean] of Object.entries(meta.scores)) {
        // a categorized key (`trajectory.<id>`): the other maps are keyed by the id
        const id = scorerIdOf(meta, key)
        const t = th.get(id)
        const ci = meta.stats?.[id]?.ci95
        const label = t ? `${key} ${this.style(C.dim, `(threshold: ${thresholdText(t.threshold)})`)}` : key
        rows.push([label, `${fmt(mean)}${ci ? this.style(C.dim, ` [${fmt(ci[0])}, ${fmt(ci[1])}]`) : ''}`, this.cov(meta, id), t ? mark(t.passed) : ''])
      }
      // per turn (turns items): its gates, thresholds and scores, as Mastra's reporter lists them
      for (const turn of meta.turnResults ?? []) {
        const tth = new Map((turn.thresholdResults ?? []).map((t) => [t.id, t]))
        const cov = (id) => this.cov({ coverage: turn.coverage }, id)
        const turnRowsOut = []
        for (const g of turn.gateResults ?? []) turnRowsOut.push([`  ${g.id} ${this.style(C.dim, '(gate)')}`, rate(g.score), cov(g.id), mark(g.passed)])
        for (const [id, mean] of Object.entries(turn.scores ?? {})) {
          const t = tth.get(id)
          turnRowsOut.push([`  ${t ? `${id} ${this.style(C.dim, `(threshold: ${thresholdText(t.threshold)})`)}` : id}`, fmt(mean), cov(id), t ? mark(t.passed) : ''])
        }
        if (!turnRowsOut.length) continue
        rows.push([this.style(C.dim, `turn ${turn.index}`), '', '', ''])
        for (const row of turnRowsOut) rows.push(row)
      }
      const w = rows.reduce((m, r) => Math.max(m, r[0].replace(ANSI, '').length), 0)
      const w2 = rows.reduce((m, r) => Math.max(m, r[1].replace(ANSI, '').length), 0)
      for (const [a, b, c, d] of rows) lines.push(`   ${a}${' '.repeat(w - a.replace(ANSI, '').length)}  ${b}${' '.repeat(w2 - b.replace(ANSI, '').length)}  ${c}  ${d}`.trimEnd())
      for (const [id, worst] of [...Object.entries(meta.worst ?? {}), ...Object.entries(meta.worstTurns ?? {})]) {
        if (!worst.length) continue
        lines.push(`   ${this.style(C.dim, `worst ${id}:`)}`)
        for (const x of worst) lines.push(`     #${x.index}${x.id !== undefined ? ` (${x.id})` : ''} ${x.score === null ? this.style(C.red, 'error') : fmt(x.score)}: ${x.reason}`)
      }
    }
    const scored = entries.length - passed - failed
    const parts = []
    if (passed) parts.push(this.style(C.green, `${passed} passed`))
    if (failed) parts.push(this.style(C.red, `${failed} failed`))
    if (scored) parts.push(this.style(C.yellow, `${scored} scored`))
    lines.push('', ` Eval runs: ${entries.length} ${this.style(C.dim, `(${parts.join(', ')})`)}`, '')
    return lines.join('\n')
  }
  cov(meta, id) {
    const c = meta.coverage?.[id]
    if (!c) return ''
    const s = `${c.scored}/${c.total}`
    return c.scored < c.total ? this.style(C.yellow, s) : this.style(C.dim, s)
  }
}

/** Mastra's reporter name, for configs written for @mastra/evals/vitest. */
export { OxevalEvalsReporter as MastraEvalsReporter }
