// JUnit XML of an eval run: one <testsuite> per scorer (and gate), one <testcase> per item;
// a <failure> when the item's score misses the scorer's threshold (a gate: is not 1), an
// <error> when the scorer failed on the item. Suite <properties> carry the aggregates.
import { writeFile } from 'node:fs/promises'
import { asText, itemError, itemReason, itemScore, meetsThreshold, thresholdText } from './items.mjs'

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
 * The XML text. `report`: `{ header: { scorers: [{ id, threshold? }], gates?: string[], model? },
 * summary: EvalRunResult, items: EvalItemResult[] }`.
 */
export function renderJunit(report) {
  const { header, summary } = report
  const items = [...report.items].sort((a, b) => a.index - b.index)
  const suites = [
    ...header.scorers.map((s) => ({ id: s.id, threshold: s.threshold, gate: false })),
    ...(header.gates || []).map((id) => ({ id, threshold: { min: 1 }, gate: true })),
  ]
  const out = ['<?xml version="1.0" encoding="UTF-8"?>']
  const totals = { tests: 0, failures: 0, errors: 0 }
  const body = []
  for (const s of suites) {
    const cases = []
    let failures = 0
    let errors = 0
    for (const it of items) {
      const name = `item ${it.index}${it.id !== undefined ? ` (${it.id})` : ''}`
      const score = itemScore(it, s.id)
      const err = itemError(it, s.id)
      const time = typeof it.durationMs === 'number' ? (it.durationMs / 1000).toFixed(3) : undefined
      let inner = ''
      if (err) {
        errors++
        inner = `<error${attr('type', err.code || err.name)}${attr('message', clip(asText(err.message), 500))}>${xmlEscape(
          `${err.failedStep ? `step ${err.failedStep}: ` : ''}${asText(err.message)}`,
        )}</error>`
      } else if (s.threshold !== undefined && !meetsThreshold(score, s.threshold)) {
        failures++
        const msg = `score ${score === null ? 'none' : score} ${s.gate ? 'is not 1 (gate)' : `misses the threshold ${thresholdText(s.threshold)}`}`
        inner = `<failure${attr('type', 'threshold')}${attr('message', msg)}>${xmlEscape(clip(itemReason(it, s.id), 4000))}</failure>`
      }
      const out = `score: ${score === null ? 'none' : score}\ninput: ${clip(asText(it.input), 2000)}\noutput: ${clip(asText(it.output), 2000)}\nreason: ${clip(itemReason(it, s.id), 4000)}`
      inner += `<system-out>${xmlEscape(out)}</system-out>`
      cases.push(`    <testcase${attr('name', name)}${attr('classname', `oxeval.${s.id}`)}${attr('time', time)}>${inner}</testcase>`)
    }
    totals.tests += items.length
    totals.failures += failures
    totals.errors += errors
    const st = (summary.stats && summary.stats[s.id]) || {}
    const cov = summary.coverage && summary.coverage[s.id]
    const tr = (summary.thresholdResults || []).find((t) => t.id === s.id)
    const gr = (summary.gateResults || []).find((g) => g.id === s.id)
    const props = [
      ['mean', num(summary.scores ? summary.scores[s.id] : null)],
      ['std', num(st.std)],
      ['ci95.low', st.ci95 ? num(st.ci95[0]) : ''],
      ['ci95.high', st.ci95 ? num(st.ci95[1]) : ''],
      ['coverage', cov ? `${cov.scored}/${cov.total}` : ''],
      ['errors', num(summary.errors ? summary.errors[s.id] : null)],
      ['threshold', s.gate ? 'gate (score 1)' : thresholdText(s.threshold)],
      ['passed', tr ? String(tr.passed) : gr ? String(gr.passed) : ''],
      ['trials', num(summary.trials)],
    ].filter(([, v]) => v !== '')
    body.push(
      `  <testsuite${attr('name', s.id)}${attr('tests', items.length)}${attr('failures', failures)}${attr('errors', errors)}${attr('skipped', 0)}>`,
      '    <properties>',
      ...props.map(([k, v]) => `      <property${attr('name', k)}${attr('value', v)}/>`),
      '    </properties>',
      ...cases,
      '  </testsuite>',
    )
  }
  out.push(`<testsuites${attr('name', 'oxeval')}${attr('tests', totals.tests)}${attr('failures', totals.failures)}${attr('errors', totals.errors)}>`)
  out.push(...body, '</testsuites>', '')
  return out.join('\n')
}

export async function writeJunitReport(file, report) {
  await writeFile(file, renderJunit(report))
}
