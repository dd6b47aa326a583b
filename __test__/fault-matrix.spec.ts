// Every fault × every step of answer relevancy, once (transient) and on every request
// (persistent): a run either succeeds after retries/fallback with the right attempt counts, or
// rejects with a ScorerRunError naming the failed step, keeping completed steps and raw output.
import { describe, expect, it } from 'vitest'
import { expectFailedAtStep, expectFailedExecution, faultReply, FAULTS, settleWithin, TRANSPORT, type Fault } from './helpers/fault-matrix'
import { oxeval, scorerBuilder, STEP, useJudgeServer, type ReplyObject } from './helpers/setup'

const { createAnswerRelevancyScorer } = oxeval

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

const DEADLINE_MS = 5000
const MAX_RETRIES = 1

const scorer = scorerBuilder(server, createAnswerRelevancyScorer, { settings: { maxRetries: MAX_RETRIES, timeoutMs: 300 } })

async function runWith(step: Step, fault: Fault, persistent: boolean) {
  server.on(STEP[step], faultReply(fault, HAPPY[step]), persistent ? {} : { times: 1 })
  for (const s of Object.keys(STEP) as Step[]) server.on(STEP[s], HAPPY[s])
  return settleWithin(DEADLINE_MS, () => scorer().run({ input: 'What is the capital of France?', output: 'Paris is the capital. Croissants.' }, { deadlineMs: DEADLINE_MS }))
}

const steps: Step[] = ['preprocess', 'analyze', 'generateReason']
const faults: Fault[] = FAULTS
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
    expectFailedAtStep(error, step, BEFORE[step])
    // completed steps keep their results
    if (step !== 'preprocess') expect(error.result.preprocessStepResult).toEqual(HAPPY.preprocess.json)
    if (step === 'generateReason') {
      expect(error.result.analyzeStepResult).toEqual(HAPPY.analyze.json)
      expect(error.result.score).toBe(0.5)
    }
    expectFailedExecution(error, step, fault, MAX_RETRIES)
  })
})
