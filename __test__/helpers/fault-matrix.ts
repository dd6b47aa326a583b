// The fault matrix shared by fault-matrix*.spec.ts: the 11 scripted faults, the reply that acts
// each one out on the scripted judge, the codes and attempt counts a judge call hit by it ends
// with, a run settled within its deadline, and the checks every matrix repeats.
import { expect } from 'vitest'
import { oxeval, type Any, type RecordedRequest, type ReplyObject } from './setup'

const { ScorerRunError } = oxeval

export type Fault = '429' | '500' | '502' | '503' | 'reset' | 'hang' | 'truncate' | 'invalid-json' | 'schema-invalid' | 'empty' | 'length'
/** Faults of the transport: retried by HTTP. */
export const TRANSPORT: Fault[] = ['429', '500', '502', '503', 'reset', 'hang', 'truncate']
/** Faults of the output: the format fallback runs. */
export const OUTPUT: Fault[] = ['invalid-json', 'schema-invalid', 'empty', 'length']
export const FAULTS: Fault[] = [...TRANSPORT, ...OUTPUT]
export const isTransport = (f: Fault) => TRANSPORT.includes(f)

/** The fault's reply; `happy` is the reply the call would otherwise get (cut in half for 'length'). */
export function faultReply(fault: Fault, happy: ReplyObject): ReplyObject {
  switch (fault) {
    case '429':
      return { status: 429, headers: { 'retry-after': '0' } }
    case '500':
    case '502':
    case '503':
      return { status: Number(fault) }
    case 'reset':
    case 'hang':
    case 'truncate':
    case 'empty':
      return { fault }
    case 'invalid-json':
      return { content: 'Sorry, I cannot help with that.' }
    case 'schema-invalid':
      return { json: { unexpected: true } }
    case 'length': {
      const full = happy.content ?? JSON.stringify(happy.json)
      return { content: full.slice(0, Math.floor(full.length / 2)), finishReason: 'length' }
    }
  }
}

/** The text a reply object sends (its content, or its JSON). */
export const replyText = (reply: ReplyObject) => reply.content ?? JSON.stringify(reply.json)

export const TRANSPORT_CODE: Record<string, string> = {
  '429': 'OXEVAL_JUDGE_HTTP',
  '500': 'OXEVAL_JUDGE_HTTP',
  '502': 'OXEVAL_JUDGE_HTTP',
  '503': 'OXEVAL_JUDGE_HTTP',
  reset: 'OXEVAL_JUDGE_NETWORK',
  truncate: 'OXEVAL_JUDGE_NETWORK',
  hang: 'OXEVAL_JUDGE_TIMEOUT',
}
/** The code of one failed judge call. */
export const callCode = (f: Fault) => (isTransport(f) ? TRANSPORT_CODE[f] : f === 'length' ? 'OXEVAL_JUDGE_TRUNCATED' : 'OXEVAL_JUDGE_OUTPUT')
/** [attemptCount, modelCallCount] of a call hit by the fault: transport faults are retried by
 *  HTTP (maxRetries 1 → 2 requests, 1 attempt); output faults run the format fallback. */
export const callCounts = (f: Fault) => (isTransport(f) ? [1, 2] : [2, 2])

/** The outcome of a run as `{ result }` or `{ error }`, asserting it settled within `deadlineMs`. */
/** The run's result or error, whichever it settles with. */
export async function settle(run: () => Promise<Any>): Promise<{ result: Any; error: Any }> {
  return run().then(
    (result: Any) => ({ result, error: undefined as Any }),
    (error: Any) => ({ result: undefined as Any, error }),
  )
}

/** `settle`, and it must settle within `deadlineMs`. */
export async function settleWithin(deadlineMs: number, run: () => Promise<Any>): Promise<{ result: Any; error: Any }> {
  const t0 = Date.now()
  const outcome = await settle(run)
  expect(Date.now() - t0).toBeLessThan(deadlineMs)
  return outcome
}

/** A persistent fault on `step`: a ScorerRunError naming it, after the steps of `before`. */
export function expectFailedAtStep(error: Any, step: string, before: string[]) {
  expect(error).toBeInstanceOf(ScorerRunError)
  expect(error.failedStep).toBe(step)
  expect(error.completedSteps).toEqual(before)
  expect(error.message).toMatch(new RegExp(`^Scorer Run Failed: step '${step}' failed: `))
}

/**
 * The failed execution of `step` (its first): the run's code; a transport fault exhausted the
 * HTTP retries (`maxRetries + 1` requests), an output fault the format fallback (2 attempts),
 * keeping the raw output unless the reply was empty.
 */
export function expectFailedExecution(error: Any, step: string, fault: Fault, maxRetries: number) {
  const ex = error.result.judge[step].executions[0]
  expect(ex.status).toBe('failed')
  expect(ex.error.code).toBe(error.code)
  if (isTransport(fault)) {
    expect(error.code).toBe(TRANSPORT_CODE[fault])
    expect(ex.modelCallCount).toBe(maxRetries + 1)
  } else {
    expect(error.code).toBe(fault === 'length' ? 'OXEVAL_JUDGE_TRUNCATED' : 'OXEVAL_JUDGE_OUTPUT')
    expect(ex.attemptCount).toBe(2)
    if (fault !== 'empty') expect(ex.rawOutput).toBeTruthy()
  }
}

/** The two requests of one call hit once by the fault: a transport retry resends the same body;
 *  the format fallback drops response_format, names the schema in the system message and states
 *  the rejection (after finish_reason 'length' with twice the output budget: 4096 when none was set). */
export function expectRetryOrFallback(reqs: RecordedRequest[], fault: Fault, schema: string) {
  expect(reqs).toHaveLength(2)
  const [first, second] = reqs
  expect((first.body!.response_format as Any)?.json_schema?.name).toBe(schema)
  if (isTransport(fault)) {
    expect(second.raw).toBe(first.raw)
  } else {
    expect(second.body!.response_format).toBeUndefined()
    expect(second.system).toContain(`Output schema name: ${schema}`)
    expect(second.user).toContain('A previous answer to this request was rejected')
    if (fault === 'length') expect(second.body!.max_tokens ?? second.body!.max_completion_tokens).toBe(4096)
  }
}

/** The rejection's cause is the failed call's error. */
export function expectCause(error: Any, fault: Fault) {
  expect(error.cause).toBeInstanceOf(Error)
  expect(error.cause.code).toBe(error.code)
  if (['429', '500', '502', '503'].includes(fault)) expect(error.cause.status).toBe(Number(fault))
}
