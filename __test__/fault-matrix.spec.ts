// Every fault × every step of answer relevancy, once (transient) and on every request
// (persistent): a run either succeeds after retries/fallback with the right attempt counts, or
// rejects with a ScorerRunError naming the failed step, keeping completed steps and raw output.
import { describe, expect, it } from 'vitest'
import { oxeval, scorerBuilder, STEP, useJudgeServer, type ReplyObject } from './helpers/setup'

const { createAnswerRelevancyScorer, ScorerRunError } = oxeval

const server = useJudgeServer({ hangMs: 5000 })

type Step = 'preprocess' | 'analyze' | 'generateReason'
const HAPPY: Record<Step, ReplyObject> = {
  preprocess: { json: { statements: ['Paris is the capital.', 'Croissants.'] } },
  analyze: { json: { results: [{ result: 'yes', reason: 'r' }, { result: 'no', reason: 'r' }] } },
  generateReason: { content: 'The score is 0.5 because half of it is relevant.' },
}
const BEFORE: Record<Step, string[]> = {
  preprocess: [],
  analyze: ['preprocess'],
  generateReason: ['preprocess', 'analyze', 'generateScore'],
}

type Fault = '429' | '500' | '502' | '503' | 'reset' | 'hang' | 'truncate' | 'invalid-json' | 'schema-invalid' | 'empty' | 'length'
const TRANSPORT: Fault[] = ['429', '500', '502', '503', 'reset', 'hang', 'truncate']
const OUTPUT: Fault[] = ['invalid-json', 'schema-invalid', 'empty', 'length']

function faultReply(fault: Fault, step: Step): ReplyObject {
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
      const full = HAPPY[step].content ?? JSON.stringify(HAPPY[step].json)
      return { content: full.slice(0, Math.floor(full.length / 2)), finishReason: 'length' }
    }
  }
}

const TRANSPORT_CODE: Record<string, string> = {
  '429': 'OXEVAL_JUDGE_HTTP',
  '500': 'OXEVAL_JUDGE_HTTP',
  '502': 'OXEVAL_JUDGE_HTTP',
  '503': 'OXEVAL_JUDGE_HTTP',
  reset: 'OXEVAL_JUDGE_NETWORK',
  truncate: 'OXEVAL_JUDGE_NETWORK',
  hang: 'OXEVAL_JUDGE_TIMEOUT',
}

const DEADLINE_MS = 5000
const MAX_RETRIES = 1

const scorer = scorerBuilder(server, createAnswerRelevancyScorer, { settings: { maxRetries: MAX_RETRIES, timeoutMs: 300 } })

async function runWith(step: Step, fault: Fault, persistent: boolean) {
  server.on(STEP[step], faultReply(fault, step), persistent ? {} : { times: 1 })
  for (const s of Object.keys(STEP) as Step[]) server.on(STEP[s], HAPPY[s])
  const t0 = Date.now()
  const outcome = await scorer()
    .run({ input: 'What is the capital of France?', output: 'Paris is the capital. Croissants.' }, { deadlineMs: DEADLINE_MS })
    .then(
      (result) => ({ result, error: undefined }),
      (error) => ({ result: undefined, error }),
    )
  const elapsed = Date.now() - t0
  expect(elapsed).toBeLessThan(DEADLINE_MS)
  return outcome
}

const steps: Step[] = ['preprocess', 'analyze', 'generateReason']
const faults: Fault[] = [...TRANSPORT, ...OUTPUT]
const textStepAccepts = (step: Step, fault: Fault) => step === 'generateReason' && (fault === 'invalid-json' || fault === 'schema-invalid')

describe.each(steps)('fault on %s', (step) => {
  it.each(faults)('transient %s → recovers', async (fault) => {
    const { result, error } = await runWith(step, fault, false)
    expect(error).toBeUndefined()
    expect(result!.score).toBe(0.5)
    const ex = result!.judge![step].executions[0]
    expect(ex.status).toBe('success')
    if (TRANSPORT.includes(fault)) {
      expect([ex.attemptCount, ex.modelCallCount]).toEqual([1, 2])
    } else if (textStepAccepts(step, fault)) {
      // free text is free: a non-JSON reason is still a reason
      expect([ex.attemptCount, ex.modelCallCount]).toEqual([1, 1])
    } else {
      expect([ex.attemptCount, ex.modelCallCount]).toEqual([2, 2])
    }
  })

  it.each(faults)('persistent %s → succeeds or fails loudly at the step', async (fault) => {
    const { result, error } = await runWith(step, fault, true)
    if (textStepAccepts(step, fault)) {
      expect(error).toBeUndefined()
      expect(result!.reason).toBeTruthy()
      return
    }
    expect(error).toBeInstanceOf(ScorerRunError)
    expect(error.failedStep).toBe(step)
    expect(error.completedSteps).toEqual(BEFORE[step])
    expect(error.message).toMatch(new RegExp(`^Scorer Run Failed: step '${step}' failed: `))
    // completed steps keep their results
    if (step !== 'preprocess') expect(error.result.preprocessStepResult).toEqual(HAPPY.preprocess.json)
    if (step === 'generateReason') {
      expect(error.result.analyzeStepResult).toEqual(HAPPY.analyze.json)
      expect(error.result.score).toBe(0.5)
    }
    const ex = error.result.judge[step].executions[0]
    expect(ex.status).toBe('failed')
    expect(ex.error.code).toBe(error.code)
    if (TRANSPORT.includes(fault)) {
      expect(error.code).toBe(TRANSPORT_CODE[fault])
      expect(ex.modelCallCount).toBe(MAX_RETRIES + 1)
    } else {
      expect(error.code).toBe(fault === 'length' ? 'OXEVAL_JUDGE_TRUNCATED' : 'OXEVAL_JUDGE_OUTPUT')
      expect(ex.attemptCount).toBe(2)
      if (fault !== 'empty') expect(ex.rawOutput).toBeTruthy()
    }
  })
})
