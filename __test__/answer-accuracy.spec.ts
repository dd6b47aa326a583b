// Answer accuracy (Ragas / NVIDIA AnswerAccuracy, two judges) through the real addon over HTTP.
// Shapes: docs/ragas-step-results.md; semantics: /work/shared/reference/ragas-metrics.md.
import { describe, expect, it } from 'vitest'
import { data, failure, oxeval, schemaName, scorerBuilder, SEP, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'
import { itHasIdentity, itRejectsOptions, itRejectsRunInput, itRunsBothJudgesTogether, MODEL_ID, nvSteps, rating } from './helpers/ragas'

const { createAnswerAccuracyScorer, ScorerRunError } = oxeval

const server = useJudgeServer()
const aaScorer = scorerBuilder(server, createAnswerAccuracyScorer, { modelId: MODEL_ID })

const isAa1 = (req: RecordedRequest) => schemaName(req) === 'nv_rating_0_2_4' && 'candidate_answer' in data(req)
const isAa2 = (req: RecordedRequest) => schemaName(req) === 'nv_rating_0_2_4' && 'proposed_answer' in data(req)

const AA_RUN = { input: 'What is the capital of France?', output: 'Paris is the capital.', groundTruth: 'Paris' }

describe('scorer identity', () => {
  itHasIdentity('answer accuracy', () => aaScorer(), 'answer-accuracy-scorer', 'Answer Accuracy Scorer')

  it('NVIDIA steps: analyze (prompt), generateScore, generateReason (functions)', () => {
    expect(aaScorer().getSteps()).toEqual(nvSteps(/0, 2 or 4/))
    // getSteps returns copies
    const s = aaScorer()
    s.getSteps()[0].name = 'mutated'
    expect(s.getSteps()[0].name).toBe('analyze')
  })
})

describe('round trips', () => {
  itRunsBothJudgesTogether(server, 'answer accuracy', () => aaScorer({}, { maxRetries: 0 }), AA_RUN, 'nv_rating_0_2_4', 4, 1)
})

describe('answer accuracy', () => {
  it('two valid ratings 4 and 2 → 0.75 (unrounded); judge 2 gets the roles swapped', async () => {
    server.on(isAa1, rating(4))
    server.on(isAa2, rating(2))
    const r = await aaScorer().run({ ...AA_RUN, runId: 'aa-1' })
    expect(r.score).toBe(0.75)
    expect(r.reason).toBe('Judge 1 rated 4/4, judge 2 rated 2/4 → 0.75.')
    expect(r.analyzeStepResult).toEqual({
      judges: [
        { rating: 4, normalized: 1, attempts: 1, rawOutputs: ['{"rating":4}'], valid: true },
        { rating: 2, normalized: 0.5, attempts: 1, rawOutputs: ['{"rating":2}'], valid: true },
      ],
    })
    expect(server.requests).toHaveLength(2)
    const j1 = server.requests.find(isAa1)!
    const j2 = server.requests.find(isAa2)!
    expect(data(j1)).toEqual({ question: AA_RUN.input, candidate_answer: AA_RUN.output, reference_answer: AA_RUN.groundTruth })
    expect(data(j2)).toEqual({ question: AA_RUN.input, proposed_answer: AA_RUN.groundTruth, ground_truth: AA_RUN.output })
    expect(j1.user).not.toBe(j2.user)
    expect(r.analyzePrompt).toBe(j1.user + SEP + j2.user)
    expect(r.preprocessStepResult).toBeUndefined()
    expect(r.preprocessPrompt).toBeUndefined()
    expect(Object.keys(r.judge!)).toEqual(['analyze'])
    expect(r.judge!.analyze.executions.map((e) => e.prompt)).toEqual([j1.user, j2.user])
  })

  it('an unrounded mean that does not round to 2 decimals stays as is (0 and 2 → 0.25)', async () => {
    server.on(isAa1, rating(0))
    server.on(isAa2, rating(2))
    const r = await aaScorer().run(AA_RUN)
    expect(r.score).toBe(0.25)
  })

  it('an out-of-set rating (3) is fixed by the engine fallback inside the attempt', async () => {
    server.on(isAa1, rating(3), { times: 1 })
    server.on(isAa1, rating(4))
    server.on(isAa2, rating(2))
    const r = await aaScorer().run(AA_RUN)
    expect(r.score).toBe(0.75)
    expect(server.requests).toHaveLength(3)
    const fallback = server.requests.filter(isAa1)[1]
    expect(fallback.body!.response_format).toBeUndefined()
    expect(fallback.system).toContain('Output schema name: nv_rating_0_2_4')
    expect(fallback.user).toContain('rating 3 is not one of 0, 2 or 4')
    const j1 = r.analyzeStepResult!.judges[0]
    expect(j1).toEqual({ rating: 4, normalized: 1, attempts: 1, rawOutputs: ['{"rating":4}'], valid: true })
    const ex = r.judge!.analyze.executions[0]
    expect(ex.attemptCount).toBe(2)
    expect(ex.modelCallCount).toBe(2)
  })

  it('an invalid attempt (3 twice), then a valid one: 2 attempts, both raw outputs kept', async () => {
    let n = 0
    server.on(isAa1, () => rating(n++ < 2 ? 3 : 4))
    server.on(isAa2, rating(2))
    const r = await aaScorer().run(AA_RUN)
    expect(r.score).toBe(0.75)
    expect(r.analyzeStepResult!.judges[0]).toEqual({
      rating: 4,
      normalized: 1,
      attempts: 2,
      rawOutputs: ['{"rating":3}', '{"rating":4}'],
      valid: true,
    })
    expect(server.requests.filter(isAa1)).toHaveLength(3)
    const execs = r.judge!.analyze.executions
    expect(execs).toHaveLength(3) // judge 1's two attempts, then judge 2's
    expect(execs.map((e) => e.status)).toEqual(['failed', 'success', 'success'])
    expect(execs[0].error!.code).toBe('OXEVAL_JUDGE_OUTPUT')
    expect(data({ user: execs[2].prompt } as RecordedRequest)).toHaveProperty('proposed_answer')
  })

  it('one judge never valid → the score is the other judge’s normalized rating (5 attempts by default)', async () => {
    server.on(isAa1, rating(2))
    server.on(isAa2, rating(3))
    const r = await aaScorer().run(AA_RUN)
    expect(r.score).toBe(0.5)
    expect(Number.isNaN(r.score)).toBe(false)
    expect(r.reason).toBe('Judge 1 rated 2/4; judge 2 gave no valid rating in 5 attempts → 0.5.')
    expect(r.analyzeStepResult!.judges[1]).toEqual({
      rating: null,
      normalized: null,
      attempts: 5,
      rawOutputs: Array(5).fill('{"rating":3}'),
      valid: false,
    })
    // 1 + 5 attempts × (request + engine fallback)
    expect(server.requests).toHaveLength(11)
    expect(r.judge!.analyze.executions).toHaveLength(6)
  })

  it('both judges never valid → ScorerRunError OXEVAL_NO_VALID_JUDGMENT at analyze, raw outputs kept', async () => {
    server.on(isAa1, rating(3))
    server.on(isAa2, 'I cannot rate this.')
    const err = await failure(aaScorer({ maxRetries: 2 }).run(AA_RUN))
    expect(err).toBeInstanceOf(ScorerRunError)
    expect(err.code).toBe('OXEVAL_NO_VALID_JUDGMENT')
    expect(err.failedStep).toBe('analyze')
    expect(err.completedSteps).toEqual([])
    expect(err.message).toContain('neither judge gave a valid rating')
    expect(err.result.score).toBeUndefined()
    expect(typeof err.result.runId).toBe('string')
    const [j1, j2] = err.result.analyzeStepResult.judges
    expect(j1).toEqual({ rating: null, normalized: null, attempts: 2, rawOutputs: ['{"rating":3}', '{"rating":3}'], valid: false })
    expect(j2).toEqual({ rating: null, normalized: null, attempts: 2, rawOutputs: ['I cannot rate this.', 'I cannot rate this.'], valid: false })
    expect(err.result.analyzePrompt).toContain(SEP)
    expect(err.result.judge.analyze.executions).toHaveLength(4)
    expect(server.requests).toHaveLength(8)
  })

  it.each([
    [{ maxRetries: 3 }, 3],
    [{ options: { maxRetries: 1 } }, 1],
    [{ maxRetries: 2, options: { maxRetries: 4 } }, 2],
  ])('maxRetries %j limits the attempts of a judge to %i', async (opts, attempts) => {
    server.on(isAa1, rating(1))
    server.on(isAa2, rating(4))
    const r = await aaScorer(opts).run(AA_RUN)
    expect(r.score).toBe(1)
    expect(r.analyzeStepResult!.judges[0].attempts).toBe(attempts)
    expect(r.analyzeStepResult!.judges[0].valid).toBe(false)
    expect(server.requests.filter(isAa1)).toHaveLength(2 * attempts)
    expect(server.requests).toHaveLength(2 * attempts + 1)
    expect(r.reason).toBe(
      `Judge 1 gave no valid rating in ${attempts === 1 ? '1 attempt' : `${attempts} attempts`}; judge 2 rated 4/4 → 1.0.`,
    )
  })

  it('a numeric string rating "4" is accepted (reported as 4), no fallback', async () => {
    server.on(isAa1, rating('4'))
    server.on(isAa2, rating('0'))
    const r = await aaScorer().run(AA_RUN)
    expect(r.score).toBe(0.5)
    expect(r.analyzeStepResult!.judges[0]).toEqual({ rating: 4, normalized: 1, attempts: 1, rawOutputs: ['{"rating":"4"}'], valid: true })
    expect(r.analyzeStepResult!.judges[1].rating).toBe(0)
    expect(server.requests).toHaveLength(2)
  })

  it('"4.0" is not a rating: the judge is asked again', async () => {
    server.on(isAa1, rating('4.0'), { times: 2 })
    server.on(isAa1, rating(2))
    server.on(isAa2, rating(2))
    const r = await aaScorer().run(AA_RUN)
    expect(r.score).toBe(0.5)
    expect(r.analyzeStepResult!.judges[0]).toMatchObject({ rating: 2, attempts: 2 })
  })
})

describe('factory options are TypeErrors at creation', () => {
  const aa = (o: Record<string, unknown>) => () => createAnswerAccuracyScorer({ model: 'openai/x', ...o } as Any)
  itRejectsOptions([
    ['AA maxRetries 0', aa({ maxRetries: 0 }), /maxRetries must be an integer from 1 to 20; got 0/],
    ['AA maxRetries 2.5', aa({ maxRetries: 2.5 }), /maxRetries must be an integer from 1 to 20; got 2.5/],
    ['AA maxRetries "3"', aa({ options: { maxRetries: '3' } }), /options.options.maxRetries must be an integer/],
  ])

  it('valid option combinations create scorers', () => {
    expect(aa({ maxRetries: 1 })().id).toBe('answer-accuracy-scorer')
  })
})

describe('run input errors are TypeErrors with no request', () => {
  itRejectsRunInput(server, [
    ['AA empty output', () => aaScorer(), { input: 'q', output: '', groundTruth: 'Paris' }, /response is missing/],
    ['AA missing input', () => aaScorer(), { output: 'Paris', groundTruth: 'Paris' }, /user input is missing/],
    ['AA blank input', () => aaScorer(), { input: '  ', output: 'Paris', groundTruth: 'Paris' }, /user input is missing/],
    ['AA missing groundTruth', () => aaScorer(), { input: 'q', output: 'Paris' }, /reference \(run.groundTruth\) is missing/],
    ['AA blank groundTruth', () => aaScorer(), { input: 'q', output: 'Paris', groundTruth: ' ' }, /reference \(run.groundTruth\) is missing/],
  ])
})

// Regressions: bugs these tests found (now fixed); each states the documented behaviour
describe('regressions', () => {
  // Was a bug (core, nvidia/mod.rs + engine): when the run's deadline passes, each judge's first
  // attempt fails with OXEVAL_JUDGE_TIMEOUT (its HTTP timeout was capped to the remaining
  // deadline; message "the run's deadline passed before the judge answered"), is retried
  // (JUDGE_TIMEOUT is not final), and the retry fails with OXEVAL_DEADLINE. The mixed codes
  // defeat the "shared code" rule, so an expired deadline is reported as
  // OXEVAL_NO_VALID_JUDGMENT (as if the judges had answered badly) instead of OXEVAL_DEADLINE.
  it('an expired deadline on both NVIDIA judges is reported as OXEVAL_DEADLINE', async () => {
    server.on(isAa1, { ...rating(4), delayMs: 200 })
    server.on(isAa2, { ...rating(4), delayMs: 200 })
    const err = await failure(aaScorer().run(AA_RUN, { deadlineMs: 50 }))
    expect(err).toBeInstanceOf(ScorerRunError)
    expect(err.failedStep).toBe('analyze')
    expect(err.code).toBe('OXEVAL_DEADLINE')
  })
})
