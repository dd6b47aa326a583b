'use strict'
// Result shaping: the core's result as Mastra's result object (the run's own fields, runId,
// the eight step keys, oxeval's judge records and warnings).

/** The eight step keys of Mastra's result, always present (undefined when not applicable). */
const STEP_KEYS = [
  'score',
  'generateScorePrompt',
  'reason',
  'generateReasonPrompt',
  'preprocessStepResult',
  'preprocessPrompt',
  'analyzeStepResult',
  'analyzePrompt',
]

/**
 * The core sends an execution's prompt/output that repeats its step's field as `promptOf` /
 * `outputOf` (the field's name): point it at the same string/object (shared, not copied),
 * keeping Mastra's key order (status, prompt, output, …).
 */
function linkShared(out, judge) {
  for (const step of Object.values(judge)) {
    step.executions = step.executions.map((e) => {
      if (e.promptOf === undefined && e.outputOf === undefined) return e
      const linked = {}
      for (const k of Object.keys(e)) {
        if (k === 'promptOf' || k === 'outputOf') continue
        linked[k] = k === 'prompt' && e.promptOf !== undefined ? out[e.promptOf] : e[k]
        if (k === 'prompt' && e.outputOf !== undefined) linked.output = out[e.outputOf]
      }
      return linked
    })
  }
  return judge
}

function shapeResult(run, r) {
  const out = run !== null && typeof run === 'object' && !Array.isArray(run) ? { ...run } : {}
  // Mastra's internal bookkeeping on a run is not part of the result
  delete out._internal
  out.runId = r.runId
  for (const k of STEP_KEYS) out[k] = r[k]
  if (r.judge !== undefined) out.judge = linkShared(out, r.judge)
  if (r.warnings !== undefined) out.warnings = r.warnings
  return out
}

module.exports = { shapeResult }
