// The calibration set: boundary cases in calibrate/cases/*.jsonl, one JSON object a line:
//   { id, scorer (an oxeval factory name, the anchor's too), step (the step whose rule the case
//     sits on), anchor ('mastra' | 'ragas'), rule (the named rule), side (which side of it, in
//     words), expected ('pass' | 'fail': the verdict the ANCHOR's rule gives), cut (the score
//     at which a run passes: score >= cut), run ({ input?, output?, groundTruth?, context? }),
//     options? (the scorer's own options, e.g. { context } or { mode }) }
// Every text is oxeval's own. `checkCases` is the offline part (tested in npm test): the set
// loads, every case routes to an existing scorer and step, and each scorer has at least
// MIN_PER_SCORER cases.
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'

export const CASE_DIR = fileURLToPath(new URL('./cases/', import.meta.url))
export const MIN_PER_SCORER = 10
const ANCHORS = ['mastra', 'ragas']
const RUN_KEYS = ['input', 'output', 'groundTruth', 'context']

/** Every case of every `*.jsonl` file in `dir`, with its `file` and `line`; a bad line throws naming it. */
export function loadCases(dir = CASE_DIR) {
  const cases = []
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort()) {
    const lines = readFileSync(join(dir, file), 'utf8').split('\n')
    lines.forEach((text, i) => {
      if (text.trim() === '') return
      let c
      try {
        c = JSON.parse(text)
      } catch (e) {
        throw new Error(`${file}:${i + 1}: not JSON (${e.message})`)
      }
      cases.push({ ...c, file, line: i + 1 })
    })
  }
  return cases
}

/** A judge-free model config: building a scorer checks its options without calling anyone. */
const OFFLINE_MODEL = { id: 'openai/calibrate-offline-check', url: 'http://127.0.0.1:9/v1', apiKey: 'offline' }

/**
 * What is wrong with the set (empty when nothing): fields, unique ids, the scorer exists in
 * `oxeval` and builds with the case's options, the step is one of its steps, and each scorer
 * has at least `MIN_PER_SCORER` cases.
 */
export function checkCases(cases, oxeval) {
  const problems = []
  const seen = new Set()
  const perScorer = new Map()
  for (const c of cases) {
    const at = `${c.file}:${c.line} (${c.id ?? 'no id'})`
    const bad = (m) => problems.push(`${at}: ${m}`)
    if (typeof c.id !== 'string' || c.id === '') bad('id must be a non-empty string')
    else if (seen.has(c.id)) bad('id appears twice')
    else seen.add(c.id)
    for (const k of ['rule', 'side']) if (typeof c[k] !== 'string' || c[k].trim() === '') bad(`${k} must name the rule and its side`)
    if (!ANCHORS.includes(c.anchor)) bad(`anchor must be one of ${ANCHORS.join(', ')}`)
    if (c.expected !== 'pass' && c.expected !== 'fail') bad("expected must be 'pass' or 'fail'")
    if (typeof c.cut !== 'number' || !(c.cut > 0 && c.cut <= 1)) bad('cut must be a number in (0, 1]')
    if (c.run === null || typeof c.run !== 'object') bad('run must be an object')
    else for (const k of Object.keys(c.run)) if (!RUN_KEYS.includes(k)) bad(`run.${k} is not a run field (${RUN_KEYS.join(', ')})`)
    const factory = oxeval[c.scorer]
    if (typeof factory !== 'function') {
      bad(`scorer ${String(c.scorer)} is not an oxeval factory`)
      continue
    }
    perScorer.set(c.scorer, (perScorer.get(c.scorer) ?? 0) + 1)
    let scorer
    try {
      scorer = factory({ model: OFFLINE_MODEL, ...(c.options ?? {}) })
    } catch (e) {
      bad(`${c.scorer} does not build with these options: ${e.message}`)
      continue
    }
    const steps = scorer.getSteps().map((s) => s.name)
    if (!steps.includes(c.step)) bad(`step ${String(c.step)} is not a step of ${c.scorer} (${steps.join(', ')})`)
  }
  for (const [scorer, n] of perScorer) if (n < MIN_PER_SCORER) problems.push(`${scorer}: ${n} cases, at least ${MIN_PER_SCORER} needed`)
  return problems
}

/** A run's verdict on a case: pass when the score reaches the case's cut; null without a score. */
export function verdictOf(score, cut) {
  return typeof score === 'number' && Number.isFinite(score) ? (score >= cut ? 'pass' : 'fail') : null
}
