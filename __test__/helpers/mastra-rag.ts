// Shared by the specs of the Mastra RAG scorers (faithfulness, hallucination, context
// precision, context recall): routing the scripted judge by step, the result keys Mastra
// returns, and the transient / persistent fault checks on one judge call.
import { expect } from 'vitest'
import { schemaName, type Any, type JudgeServer, type RecordedRequest, type ReplyObject } from './setup'

/** The eight step keys of Mastra's result, in Mastra's order. */
export const STEP_KEYS = [
  'score',
  'generateScorePrompt',
  'reason',
  'generateReasonPrompt',
  'preprocessStepResult',
  'preprocessPrompt',
  'analyzeStepResult',
  'analyzePrompt',
] as const

/** A matcher for the requests of one step: a structured step by its schema name, the reason by a phrase of its prompt. */
export function stepMatcher(schema: string | undefined, phrase?: string) {
  return (r: RecordedRequest) => (schema ? schemaName(r) === schema : phrase !== undefined && r.user.includes(phrase))
}

export interface StepRoute {
  /** Schema name of a structured step (undefined for the free-text reason). */
  schema?: string
  /** A phrase of the step's prompt (the reason step). */
  phrase?: string
  /** The happy reply. */
  reply: ReplyObject
}

/**
 * Script `routes` (happy replies, persistent), with `fault` placed before them on `step`:
 * once (`times: 1`) or on every request.
 */
export function script(server: JudgeServer, routes: Record<string, StepRoute>, fault?: { step: string; reply: ReplyObject; persistent: boolean }) {
  if (fault) {
    const r = routes[fault.step]
    server.on(stepMatcher(r.schema, r.phrase), fault.reply, fault.persistent ? {} : { times: 1 })
  }
  for (const r of Object.values(routes)) server.on(stepMatcher(r.schema, r.phrase), r.reply)
}

/** A transient 500 on `step` is retried: the run succeeds and the step's execution shows 2 HTTP calls. */
export function expectRecovered(result: Any, step: string) {
  const ex = result.judge[step].executions[0]
  expect(ex.status).toBe('success')
  expect([ex.attemptCount, ex.modelCallCount]).toEqual([1, 2])
}

/** A persistent fault on `step` rejects with a ScorerRunError naming it and keeping what completed. */
export function expectFailedAt(error: Any, ScorerRunError: Any, step: string, completed: string[], code: string) {
  expect(error).toBeInstanceOf(ScorerRunError)
  expect(error.failedStep).toBe(step)
  expect(error.completedSteps).toEqual(completed)
  expect(error.code).toBe(code)
  expect(error.message).toMatch(new RegExp(`^Scorer Run Failed: step '${step}' failed: `))
  const ex = error.result.judge[step].executions[0]
  expect(ex.status).toBe('failed')
  expect(ex.error.code).toBe(code)
}

/** The outcome of a promise as `{ result }` or `{ error }`. */
export async function settle<T>(p: Promise<T>): Promise<{ result?: T; error?: Any }> {
  try {
    return { result: await p }
  } catch (error) {
    return { error }
  }
}
