'use strict'
// Result shaping: the core's result as Mastra's result object (the run's own fields, runId,
// the eight step keys, oxeval's judge records and warnings).

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
  // the run's own fields first, then runId and the eight step keys in Mastra's order.
  // Object.assign onto a fresh object, then named stores: V8 adds each key to a spread copy
  // through its slow path (~40x the cost here). A run with an own `__proto__` key (from
  // JSON.parse) is spread instead, so that key stays a plain property.
  const plain = run !== null && typeof run === 'object' && !Array.isArray(run)
  const out = !plain ? {} : Object.hasOwn(run, '__proto__') ? { ...run } : Object.assign({}, run)
  // Mastra's internal bookkeeping on a run is not part of the result
  if ('_internal' in out) delete out._internal
  out.runId = r.runId
  out.score = r.score
  out.generateScorePrompt = r.generateScorePrompt
  out.reason = r.reason
  out.generateReasonPrompt = r.generateReasonPrompt
  out.preprocessStepResult = r.preprocessStepResult
  out.preprocessPrompt = r.preprocessPrompt
  out.analyzeStepResult = r.analyzeStepResult
  out.analyzePrompt = r.analyzePrompt
  if (r.judge !== undefined) out.judge = linkShared(out, r.judge)
  if (r.warnings !== undefined) out.warnings = r.warnings
  return out
}

module.exports = { shapeResult }
