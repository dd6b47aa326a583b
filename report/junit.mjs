// JUnit XML of an eval run. It says what the run's outcome says (the core's one decision,
// `summary.outcome`): its failures and errors are zero exactly when the run passed.
// - A first <testsuite name="oxeval"> holds the run: one <testcase name="outcome"> (a
//   <failure> with every reason when the run did not pass), one per threshold (failing when the
//   scorer's mean misses it) and one per gate.
// - Then one <testsuite> per scorer (and gate), one <testcase> per item: an <error> when the
//   scorer could not score the item (a <skipped> instead when the run allowed it: maxErrors);
//   a <failure> for an item below the threshold (a gate: below 1) only when that threshold (or
//   gate) failed for the run — an item under a threshold that the run's mean meets is not a
//   failure. Suite <properties> carry the aggregates.
import { writeChunks } from './write.mjs'
import { asText, itemError, itemNotScorable, itemReason, itemScore, meanOf, meetsThreshold, outcomeOf, thresholdText, turnAssertions } from './items.mjs'

/** XML text: escaped, and without the characters XML 1.0 cannot hold (control chars, lone surrogates). */
export function xmlEscape(value) {
  return String(value)
    .toWellFormed()
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
}

const attr = (name, value) => (value === undefined || value === null ? '' : ` ${name}="${xmlEscape(value)}"`)
const clip = (s, n) => (s.length > n ? `${s.slice(0, n)}… [${s.length - n} more chars]` : s)
const num = (x) => (typeof x === 'number' && Number.isFinite(x) ? String(x) : '')

/**
 * The XML as a sequence of text chunks (one per testcase: a large run is never one string).
 * `report`: `{ header: { scorers: [{ id, threshold? }], gates?: string[], model? }, summary:
 * EvalRunResult, items: EvalItemResult[] }`.
 */
export function* junitChunks(report) {
  const { header, summary } = report
  const outcome = outcomeOf(summary)
  // unscored items are errors unless the run allowed them (no "errors"/"cache-miss"/"nothing-scored"/"budget" reason)
  const errorsAllowed = outcome.passed || !outcome.reasons.some((r) => ['errors', 'cache-miss', 'nothing-scored', 'budget', 'unknown'].includes(r.kind))
  const items = [...report.items].sort((a, b) => a.index - b.index)
  const suites = [
    ...header.scorers.map((s) => ({ id: s.id, threshold: s.threshold, gate: false })),
    ...(header.gates || []).map((id) => ({ id, threshold: { min: 1 }, gate: true })),
  ]
  const thresholdOf = new Map((summary.thresholdResults || []).map((t) => [t.id, t]))
  const gateOf = new Map((summary.gateResults || []).map((g) => [g.id, g]))

  // the run itself
  const runCases = []
  let runFailures = 0
  const reasons = outcome.reasons.map((r) => r.message).join('\n')
  if (outcome.passed) runCases.push(`    <testcase${attr('name', 'outcome')}${attr('classname', 'oxeval.run')}><system-out>${xmlEscape(outcome.meaning || 'passed')}</system-out></testcase>`)
  else {
    runFailures++
    runCases.push(
      `    <testcase${attr('name', 'outcome')}${attr('classname', 'oxeval.run')}><failure${attr('type', outcome.status)}${attr('message', clip(`${outcome.status}: ${outcome.reasons.map((r) => r.message).join('; ')}`, 500))}>${xmlEscape(`${outcome.meaning || outcome.status}\n${reasons}`)}</failure></testcase>`,
    )
  }
  for (const s of suites) {
    const t = s.gate ? gateOf.get(s.id) : thresholdOf.get(s.id)
    if (!t) continue
    const name = s.gate ? `gate ${s.id}` : `threshold ${s.id} ${thresholdText(s.threshold)}`
    const what = s.gate ? `gate average ${num(t.score)}` : `mean ${t.averageScore === null ? 'none' : num(t.averageScore)}`
    if (t.passed) runCases.push(`    <testcase${attr('name', name)}${attr('classname', 'oxeval.run')}><system-out>${xmlEscape(what)}</system-out></testcase>`)
    else {
      runFailures++
      const why = outcome.reasons.find((r) => r.scorer === s.id && (r.kind === 'gate' || r.kind === 'threshold'))
      runCases.push(`    <testcase${attr('name', name)}${attr('classname', 'oxeval.run')}><failure${attr('type', s.gate ? 'gate' : 'threshold')}${attr('message', why ? why.message : what)}>${xmlEscape(why ? why.message : what)}</failure></testcase>`)
    }
  }

  // per-turn gates and thresholds (turns items): one testcase each, failing as the run's outcome says
  for (const t of turnAssertions(summary)) {
    const name = t.gate ? `turn ${t.turn} gate ${t.id}` : `turn ${t.turn} threshold ${t.id} ${thresholdText(t.threshold)}`
    const what = t.gate ? `turn ${t.turn} gate average ${num(t.score)}` : `turn ${t.turn} mean ${t.score === null ? 'none' : num(t.score)}`
    if (t.passed) runCases.push(`    <testcase${attr('name', name)}${attr('classname', 'oxeval.run')}><system-out>${xmlEscape(what)}</system-out></testcase>`)
    else {
      runFailures++
      const why = outcome.reasons.find((r) => r.turn === t.turn && r.scorer === t.id && (r.kind === 'gate' || r.kind === 'threshold'))
      runCases.push(`    <testcase${attr('name', name)}${attr('classname', 'oxeval.run')}><failure${attr('type', t.gate ? 'gate' : 'threshold')}${attr('message', why ? why.message : what)}>${xmlEscape(why ? why.message : what)}</failure></testcase>`)
    }
  }

  // what each item is for each scorer: an error, an allowed (skipped) error, a failure, or fine
  const verdictOf = (s, it) => {
    const score = itemScore(it, s.id)
    const err = itemError(it, s.id)
    if (err && score === null) return { kind: errorsAllowed ? 'skipped' : 'error', score, err }
    const ns = score === null ? itemNotScorable(it, s.id) : null
    if (ns) return { kind: 'skipped', score, notScorable: ns }
    const runLevel = s.gate ? gateOf.get(s.id) : thresholdOf.get(s.id)
    if (runLevel !== undefined && !runLevel.passed && s.threshold !== undefined && !meetsThreshold(score, s.threshold)) return { kind: 'failure', score }
    return { kind: 'ok', score }
  }
  const counts = suites.map((s) => {
    const c = { failure: 0, error: 0, skipped: 0 }
    for (const it of items) {
      const k = verdictOf(s, it).kind
      if (k !== 'ok') c[k]++
    }
    return c
  })
  const totals = {
    tests: runCases.length + suites.length * items.length,
    failures: runFailures + counts.reduce((n, c) => n + c.failure, 0),
    errors: counts.reduce((n, c) => n + c.error, 0),
    skipped: counts.reduce((n, c) => n + c.skipped, 0),
  }
  yield `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${attr('name', 'oxeval')}${attr('tests', totals.tests)}${attr('failures', totals.failures)}${attr('errors', totals.errors)}${attr('skipped', totals.skipped)}>\n`
  yield [
    `  <testsuite${attr('name', 'oxeval')}${attr('tests', runCases.length)}${attr('failures', runFailures)}${attr('errors', 0)}${attr('skipped', 0)}>`,
    '    <properties>',
    `      <property${attr('name', 'outcome')}${attr('value', outcome.status)}/>`,
    '    </properties>',
    ...runCases,
    '  </testsuite>',
    '',
  ].join('\n')

  for (const [k, s] of suites.entries()) {
    const c = counts[k]
    const st = (summary.stats && summary.stats[s.id]) || {}
    const cov = summary.coverage && summary.coverage[s.id]
    const tr = thresholdOf.get(s.id)
    const gr = gateOf.get(s.id)
    const props = [
      ['mean', num(meanOf(summary, s.id) ?? null)],
      ['std', num(st.std)],
      ['ci95.low', st.ci95 ? num(st.ci95[0]) : ''],
      ['ci95.high', st.ci95 ? num(st.ci95[1]) : ''],
      ['coverage', cov ? `${cov.scored}/${cov.total}` : ''],
      ['errors', num(summary.errors ? summary.errors[s.id] : null)],
      ['threshold', s.gate ? 'gate (score 1)' : thresholdText(s.threshold)],
      ['passed', tr ? String(tr.passed) : gr ? String(gr.passed) : ''],
      ['trials', num(summary.trials)],
    ].filter(([, v]) => v !== '')
    yield [
      `  <testsuite${attr('name', s.id)}${attr('tests', items.length)}${attr('failures', c.failure)}${attr('errors', c.error)}${attr('skipped', c.skipped)}>`,
      '    <properties>',
      ...props.map(([key, v]) => `      <property${attr('name', key)}${attr('value', v)}/>`),
      '    </properties>',
      '',
    ].join('\n')
    for (const it of items) {
      const name = `item ${it.index}${it.id !== undefined ? ` (${it.id})` : ''}`
      const v = verdictOf(s, it)
      const score = v.score
      const time = typeof it.durationMs === 'number' ? (it.durationMs / 1000).toFixed(3) : undefined
      let inner = ''
      if (v.kind === 'skipped' && v.notScorable) {
        inner = `<skipped${attr('message', clip(`not scorable at ${v.notScorable.step}${v.notScorable.reason ? `: ${asText(v.notScorable.reason)}` : ''}`, 500))}/>`
      } else if (v.kind === 'skipped') {
        inner = `<skipped${attr('message', clip(`not scored (allowed by maxErrors): ${v.err.code || v.err.name}: ${asText(v.err.message)}`, 500))}/>`
      } else if (v.kind === 'error') {
        const text = `${v.err.failedStep ? `step ${v.err.failedStep}: ` : ''}${asText(v.err.message)}`
        inner = `<error${attr('type', v.err.code || v.err.name)}${attr('message', clip(asText(v.err.message), 500))}>${xmlEscape(text)}</error>`
      } else if (v.kind === 'failure') {
        const msg = `score ${score === null ? 'none' : score} ${s.gate ? 'is not 1 (gate)' : `misses the threshold ${thresholdText(s.threshold)}`}`
        inner = `<failure${attr('type', s.gate ? 'gate' : 'threshold')}${attr('message', msg)}>${xmlEscape(clip(itemReason(it, s.id), 4000))}</failure>`
      }
      const out = `score: ${score === null ? 'none' : score}\ninput: ${clip(asText(it.input), 2000)}\noutput: ${clip(asText(it.output), 2000)}\nreason: ${clip(itemReason(it, s.id), 4000)}`
      inner += `<system-out>${xmlEscape(out)}</system-out>`
      yield `    <testcase${attr('name', name)}${attr('classname', `oxeval.${s.id}`)}${attr('time', time)}>${inner}</testcase>\n`
    }
    yield '  </testsuite>\n'
  }
  yield '</testsuites>\n'
}

/** The XML text. */
export function renderJunit(report) {
  return Array.from(junitChunks(report)).join('')
}

/** Writes the XML to `file`, chunk by chunk (flat memory). */
export async function writeJunitReport(file, report) {
  await writeChunks(file, junitChunks(report))
}
