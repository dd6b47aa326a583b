// The fault matrix of fault-matrix.spec.ts, extended to the Ragas scorers: the same 11 scripted
// faults, injected once (transient) or on every request (persistent), into
// - factual correctness (f1): one side's call of `preprocess` (decomposition) or `analyze` (NLI);
//   the other side answers normally. A run recovers with the right attempt counts, or rejects
//   with a ScorerRunError naming the step, keeping completed steps and the raw output;
// - the NVIDIA dual judges (answer accuracy, context relevance, response groundedness): judge 1
//   only (the run succeeds on judge 2 alone), both judges (ScorerRunError at analyze with the
//   shared transport code or OXEVAL_NO_VALID_JUDGMENT), both transient (full success).
// Every run settles within its deadline. Shapes: docs/ragas-step-results.md; routing by schema
// name and DATA line as in the Ragas scorer specs (factual-correctness.spec.ts and the others).
import { describe, expect, it } from 'vitest'
import { callCode, callCounts, expectCause, expectFailedAtStep, expectRetryOrFallback, faultReply, FAULTS, isTransport, replyText, settleWithin, TRANSPORT_CODE, type Fault } from './helpers/fault-matrix'
import { data, oxeval, schemaName, scorerBuilder, SEP, useJudgeServer, type Any, type RecordedRequest, type ReplyObject } from './helpers/setup'

const {
  createFactualCorrectnessScorer,
  createAnswerAccuracyScorer,
  createContextRelevanceScorer,
  createResponseGroundednessScorer,
  ScorerRunError,
} = oxeval

const server = useJudgeServer({ hangMs: 5000 })

// faults: the shared matrix (helpers/fault-matrix.ts)

const DEADLINE_MS = 5000
const SETTINGS = { maxRetries: 1, timeoutMs: 300 }
const fcScorer = scorerBuilder(server, createFactualCorrectnessScorer, { settings: SETTINGS })
const aaScorer = scorerBuilder(server, createAnswerAccuracyScorer, { settings: SETTINGS })
const crScorer = scorerBuilder(server, createContextRelevanceScorer, { settings: SETTINGS })
const rgScorer = scorerBuilder(server, createResponseGroundednessScorer, { settings: SETTINGS })

/** Run with the deadline; assert it settled within it. */
const settle = (p: () => Promise<Any>) => settleWithin(DEADLINE_MS, p)

// ---------------------------------------------------------------------------------------
// 1. factual correctness (f1)

const SEED = {
  response: 'The Eiffel Tower is located in Paris.',
  reference: 'The Eiffel Tower is located in Paris. It has a height of 1000ft.',
  responseClaims: ['The Eiffel Tower is located in Paris.'],
  referenceClaims: ['The Eiffel Tower is located in Paris.', 'The Eiffel Tower has a height of 1000ft.'],
}
const SEED_SCORE = 0.67
const SEED_REASON =
  '1 of 1 response claims are supported by the reference (TP 1, FP 0); 1 of 2 reference claims are missing from the response (FN 1); F1 of precision TP / (TP + FP) and recall TP / (TP + FN) = 0.67.'

type FcStep = 'preprocess' | 'analyze'
type Side = 'response' | 'reference'

const verdicts = (statements: string[], v: number[]) => ({
  json: { statements: v.map((verdict, i) => ({ statement: statements[i], reason: `r${i}`, verdict })) },
})

/** The four calls of an f1 run: matcher and happy reply per step and side. */
const FC_CALLS: Record<FcStep, Record<Side, { match: (q: RecordedRequest) => boolean; happy: ReplyObject }>> = {
  preprocess: {
    response: {
      match: (q) => schemaName(q) === 'factual_correctness_claims' && data(q).text === SEED.response,
      happy: { json: { claims: SEED.responseClaims } },
    },
    reference: {
      match: (q) => schemaName(q) === 'factual_correctness_claims' && data(q).text === SEED.reference,
      happy: { json: { claims: SEED.referenceClaims } },
    },
  },
  analyze: {
    // response claims judged against the reference (premise = reference)
    response: {
      match: (q) => schemaName(q) === 'factual_correctness_verdicts' && data(q).context === SEED.reference,
      happy: verdicts(SEED.responseClaims, [1]),
    },
    // reference claims judged against the response (premise = response)
    reference: {
      match: (q) => schemaName(q) === 'factual_correctness_verdicts' && data(q).context === SEED.response,
      happy: verdicts(SEED.referenceClaims, [1, 0]),
    },
  },
}
const SIDE_INDEX: Record<Side, number> = { response: 0, reference: 1 }

async function runFc(step: FcStep, side: Side, fault: Fault, persistent: boolean) {
  const target = FC_CALLS[step][side]
  server.on(target.match, faultReply(fault, target.happy), persistent ? {} : { times: 1 })
  for (const s of ['preprocess', 'analyze'] as FcStep[]) {
    for (const d of ['response', 'reference'] as Side[]) server.on(FC_CALLS[s][d].match, FC_CALLS[s][d].happy)
  }
  const scorer = fcScorer({ mode: 'f1' })
  return settle(() =>
    scorer.run({ input: 'Where is the Eiffel Tower?', output: SEED.response, groundTruth: SEED.reference }, { deadlineMs: DEADLINE_MS }),
  )
}

const FC_CASES: [FcStep, Side][] = [
  ['preprocess', 'response'],
  ['preprocess', 'reference'],
  ['analyze', 'response'],
  ['analyze', 'reference'],
]

describe.each(FC_CASES)('factual correctness: fault on %s (%s side)', (step, side) => {
  const i = SIDE_INDEX[side]
  const other = 1 - i

  it.each(FAULTS)('transient %s → recovers with the seed scores', async (fault) => {
    const { result, error } = await runFc(step, side, fault, false)
    expect(error).toBeUndefined()
    expect(result.score).toBe(SEED_SCORE)
    expect(result.reason).toBe(SEED_REASON)
    expect(result.preprocessStepResult).toEqual({ responseClaims: SEED.responseClaims, referenceClaims: SEED.referenceClaims })
    expect(result.analyzeStepResult).toMatchObject({ tp: 1, fp: 0, fn: 1, mode: 'f1' })
    const execs = result.judge[step].executions
    expect(execs).toHaveLength(2)
    const ex = execs[i]
    expect(ex.status).toBe('success')
    expect(ex.error).toBeUndefined()
    expect([ex.attemptCount, ex.modelCallCount]).toEqual(callCounts(fault))
    expect([execs[other].status, execs[other].attemptCount, execs[other].modelCallCount]).toEqual(['success', 1, 1])
    // 4 calls + the one extra request (HTTP retry or format fallback)
    expect(server.requests).toHaveLength(5)
    const schema = step === 'preprocess' ? 'factual_correctness_claims' : 'factual_correctness_verdicts'
    expectRetryOrFallback(server.requests.filter(FC_CALLS[step][side].match), fault, schema)
  })

  it.each(FAULTS)('persistent %s → ScorerRunError at the step, completed steps kept', async (fault) => {
    const { result, error } = await runFc(step, side, fault, true)
    expect(result).toBeUndefined()
    expectFailedAtStep(error, step, step === 'preprocess' ? [] : ['preprocess'])
    expect(error.code).toBe(callCode(fault))
    expectCause(error, fault)

    const r = error.result
    expect(typeof r.runId).toBe('string')
    expect(r.score).toBeUndefined()
    expect(r.reason).toBeUndefined()
    expect(r.analyzeStepResult).toBeUndefined()
    expect(r.preprocessPrompt).toContain(SEP)
    if (step === 'preprocess') {
      expect(r.preprocessStepResult).toBeUndefined()
      expect(r.judge.analyze).toBeUndefined()
      // no NLI call after a failed decomposition: 2 requests for the faulted call + 1
      expect(server.requests.filter((q) => schemaName(q) === 'factual_correctness_verdicts')).toHaveLength(0)
      expect(server.requests).toHaveLength(3)
    } else {
      expect(r.preprocessStepResult).toEqual({ responseClaims: SEED.responseClaims, referenceClaims: SEED.referenceClaims })
      expect(r.analyzePrompt).toContain(SEP)
      expect(r.judge.preprocess.executions.map((e: Any) => e.status)).toEqual(['success', 'success'])
      expect(server.requests).toHaveLength(5)
    }

    const execs = r.judge[step].executions
    expect(execs).toHaveLength(2)
    const ex = execs[i]
    expect(ex.status).toBe('failed')
    expect(ex.error.code).toBe(error.code)
    expect([ex.attemptCount, ex.modelCallCount]).toEqual(callCounts(fault))
    expect(execs[other].status).toBe('success')
    if (!isTransport(fault) && fault !== 'empty') {
      const sent = faultReply(fault, FC_CALLS[step][side].happy)
      expect(ex.rawOutput).toBe(replyText(sent))
      expect(error.cause.rawOutput).toBe(ex.rawOutput)
    }
  })
})

// ---------------------------------------------------------------------------------------
// 2./3. NVIDIA dual judges

type NvCase = {
  name: string
  make: () => Any
  run: Record<string, unknown>
  judge1: (q: RecordedRequest) => boolean
  judge2: (q: RecordedRequest) => boolean
  happy1: ReplyObject
  happy2: ReplyObject
  max: number
  both: number // score with both judges valid
}

const NV_OPTS = { maxRetries: 2 }
const isNv024 = (q: RecordedRequest) => schemaName(q) === 'nv_rating_0_2_4'
const isNv012 = (q: RecordedRequest) => schemaName(q) === 'nv_rating_0_1_2'

const NV_CASES: NvCase[] = [
  {
    name: 'answer accuracy',
    make: () => aaScorer(NV_OPTS),
    run: { input: 'What is the capital of France?', output: 'Paris is the capital.', groundTruth: 'Paris' },
    judge1: (q) => isNv024(q) && 'candidate_answer' in data(q),
    judge2: (q) => isNv024(q) && 'proposed_answer' in data(q),
    happy1: { json: { rating: 4 } },
    happy2: { json: { rating: 2 } },
    max: 4,
    both: 0.75,
  },
  {
    name: 'context relevance',
    make: () => crScorer(NV_OPTS),
    run: { input: 'Where is Paris?', output: 'x', context: ['Paris is the capital of France.'] },
    judge1: (q) => isNv012(q) && 'context' in data(q),
    judge2: (q) => isNv012(q) && 'passage' in data(q),
    happy1: { json: { rating: 2 } },
    happy2: { json: { rating: 1 } },
    max: 2,
    both: 0.75,
  },
  {
    name: 'response groundedness',
    make: () => rgScorer(NV_OPTS),
    run: { output: 'Paris is in France.', context: ['France contains Paris.'] },
    judge1: (q) => isNv012(q) && 'context' in data(q),
    judge2: (q) => isNv012(q) && 'passages' in data(q),
    happy1: { json: { rating: 2 } },
    happy2: { json: { rating: 1 } },
    max: 2,
    both: 0.75,
  },
]

/** Judge 2's rating alone, normalized: 2/4 and 1/2 are both 0.5. */
const JUDGE2_ALONE = 0.5
const ATTEMPTS = 2

/** judges[i] of a judge that every attempt failed with the fault. */
function invalidJudge(fault: Fault, happy: ReplyObject) {
  const sent = faultReply(fault, happy)
  // transport failures have no reply text; format failures keep the reply of each attempt
  const raw = isTransport(fault) ? [] : Array(ATTEMPTS).fill(fault === 'empty' ? '' : replyText(sent))
  return { rating: null, normalized: null, attempts: ATTEMPTS, rawOutputs: raw, valid: false }
}

describe.each(NV_CASES)('$name: dual-judge faults', (c) => {
  const rating1 = (c.happy1.json as Any).rating
  const rating2 = (c.happy2.json as Any).rating

  async function runNv(fault: Fault, mode: 'judge1' | 'both' | 'transient') {
    const opts = mode === 'transient' ? { times: 1 } : {}
    server.on(c.judge1, faultReply(fault, c.happy1), opts)
    if (mode !== 'judge1') server.on(c.judge2, faultReply(fault, c.happy2), opts)
    server.on(c.judge1, c.happy1)
    server.on(c.judge2, c.happy2)
    return settle(() => c.make().run(c.run, { deadlineMs: DEADLINE_MS }))
  }

  it.each(FAULTS)('judge 1 persistent %s → succeeds on judge 2 alone', async (fault) => {
    const { result, error } = await runNv(fault, 'judge1')
    expect(error).toBeUndefined()
    expect(result.score).toBe(JUDGE2_ALONE)
    expect(result.reason).toBe(`Judge 1 gave no valid rating in ${ATTEMPTS} attempts; judge 2 rated ${rating2}/${c.max} → 0.5.`)
    const [j1, j2] = result.analyzeStepResult.judges
    expect(j1).toEqual(invalidJudge(fault, c.happy1))
    expect(j2).toEqual({ rating: rating2, normalized: JUDGE2_ALONE, attempts: 1, rawOutputs: [JSON.stringify(c.happy2.json)], valid: true })
    // judge 1's attempts first, then judge 2's
    const execs = result.judge.analyze.executions
    expect(execs).toHaveLength(ATTEMPTS + 1)
    for (const ex of execs.slice(0, ATTEMPTS)) {
      expect(ex.status).toBe('failed')
      expect(ex.error.code).toBe(callCode(fault))
      expect([ex.attemptCount, ex.modelCallCount]).toEqual(callCounts(fault))
    }
    expect([execs[ATTEMPTS].status, execs[ATTEMPTS].attemptCount, execs[ATTEMPTS].modelCallCount]).toEqual(['success', 1, 1])
    expect(server.requests.filter(c.judge1)).toHaveLength(ATTEMPTS * 2)
    expect(server.requests.filter(c.judge2)).toHaveLength(1)
  })

  it.each(FAULTS)('both judges persistent %s → ScorerRunError at analyze, both judges kept', async (fault) => {
    const { result, error } = await runNv(fault, 'both')
    expect(result).toBeUndefined()
    expect(error).toBeInstanceOf(ScorerRunError)
    expect(error.failedStep).toBe('analyze')
    expect(error.completedSteps).toEqual([])
    // every attempt failed the same way: a transport fault is reported as such; format
    // failures are not transport errors
    expect(error.code).toBe(isTransport(fault) ? TRANSPORT_CODE[fault] : 'OXEVAL_NO_VALID_JUDGMENT')
    expect(error.message).toMatch(/^Scorer Run Failed: step 'analyze' failed: /)
    if (isTransport(fault)) expectCause(error, fault)
    else expect(error.message).toContain('neither judge gave a valid rating')
    const r = error.result
    expect(typeof r.runId).toBe('string')
    expect(r.score).toBeUndefined()
    expect(r.reason).toBeUndefined()
    expect(r.analyzePrompt).toContain(SEP)
    expect(r.analyzeStepResult.judges).toEqual([invalidJudge(fault, c.happy1), invalidJudge(fault, c.happy2)])
    const execs = r.judge.analyze.executions
    expect(execs).toHaveLength(2 * ATTEMPTS)
    for (const ex of execs) {
      expect(ex.status).toBe('failed')
      expect(ex.error.code).toBe(callCode(fault))
      expect([ex.attemptCount, ex.modelCallCount]).toEqual(callCounts(fault))
    }
    expect(server.requests).toHaveLength(2 * ATTEMPTS * 2)
  })

  it.each(FAULTS)('both judges transient %s → success with both ratings', async (fault) => {
    const { result, error } = await runNv(fault, 'transient')
    expect(error).toBeUndefined()
    expect(result.score).toBe(c.both)
    expect(result.reason).toBe(`Judge 1 rated ${rating1}/${c.max}, judge 2 rated ${rating2}/${c.max} → 0.75.`)
    expect(result.analyzeStepResult.judges).toEqual([
      { rating: rating1, normalized: 1, attempts: 1, rawOutputs: [JSON.stringify(c.happy1.json)], valid: true },
      { rating: rating2, normalized: 0.5, attempts: 1, rawOutputs: [JSON.stringify(c.happy2.json)], valid: true },
    ])
    const execs = result.judge.analyze.executions
    expect(execs).toHaveLength(2)
    for (const ex of execs) {
      expect(ex.status).toBe('success')
      expect([ex.attemptCount, ex.modelCallCount]).toEqual(callCounts(fault))
    }
    expect(server.requests).toHaveLength(4)
    const schema = c.name === 'answer accuracy' ? 'nv_rating_0_2_4' : 'nv_rating_0_1_2'
    expectRetryOrFallback(server.requests.filter(c.judge1), fault, schema)
    expectRetryOrFallback(server.requests.filter(c.judge2), fault, schema)
  })
})

describe('answer accuracy: different persistent faults on the two judges', () => {
  const c = NV_CASES[0]
  // The shared code is reported only when every attempt of both judges failed with the same
  // transport error (same code and HTTP status); reset and truncate are both connection
  // failures without a status, so they share OXEVAL_JUDGE_NETWORK.
  it.each([
    ['500', '503', 'OXEVAL_NO_VALID_JUDGMENT'],
    ['429', 'invalid-json', 'OXEVAL_NO_VALID_JUDGMENT'],
    ['length', 'empty', 'OXEVAL_NO_VALID_JUDGMENT'],
    ['reset', 'truncate', 'OXEVAL_JUDGE_NETWORK'],
  ] as [Fault, Fault, string][])('judge 1 %s, judge 2 %s → %s', async (f1, f2, code) => {
    server.on(c.judge1, faultReply(f1, c.happy1))
    server.on(c.judge2, faultReply(f2, c.happy2))
    const { result, error } = await settle(() => c.make().run(c.run, { deadlineMs: DEADLINE_MS }))
    expect(result).toBeUndefined()
    expect(error).toBeInstanceOf(ScorerRunError)
    expect(error.failedStep).toBe('analyze')
    expect(error.code).toBe(code)
    expect(error.result.analyzeStepResult.judges).toEqual([invalidJudge(f1, c.happy1), invalidJudge(f2, c.happy2)])
    expect(error.result.judge.analyze.executions.map((e: Any) => e.error.code)).toEqual([
      callCode(f1),
      callCode(f1),
      callCode(f2),
      callCode(f2),
    ])
  })
})
