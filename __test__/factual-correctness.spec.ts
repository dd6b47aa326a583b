// Factual correctness (Ragas FactualCorrectness) through the real addon over HTTP.
// Shapes: docs/ragas-step-results.md; semantics: /work/shared/reference/ragas-metrics.md.
import { describe, expect, it } from 'vitest'
import { data, failure, oxeval, schemaName, scorerBuilder, SEP, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'
import { itHasIdentity, itRejectsOptions, itRejectsRunInput, MODEL_ID } from './helpers/ragas'

const { createFactualCorrectnessScorer, ScorerRunError } = oxeval

const server = useJudgeServer()
const fcScorer = scorerBuilder(server, createFactualCorrectnessScorer, { modelId: MODEL_ID })

const isClaims = (text: string) => (req: RecordedRequest) => schemaName(req) === 'factual_correctness_claims' && data(req).text === text
const isNli = (premise: string) => (req: RecordedRequest) => schemaName(req) === 'factual_correctness_verdicts' && data(req).context === premise

const claimsReply = (claims: string[]) => ({ json: { claims } })
const verdictsReply = (statements: string[], verdicts: number[]) => ({
  json: { statements: verdicts.map((verdict, i) => ({ statement: statements[i] ?? `s${i}`, reason: `r${i}`, verdict })) },
})

const SEED = {
  response: 'The Eiffel Tower is located in Paris.',
  reference: 'The Eiffel Tower is located in Paris. It has a height of 1000ft.',
  responseClaims: ['The Eiffel Tower is located in Paris.'],
  referenceClaims: ['The Eiffel Tower is located in Paris.', 'The Eiffel Tower has a height of 1000ft.'],
}

/** Script a full FC exchange: decompositions by DATA.text, NLI passes by DATA.context. */
function scriptFc(o: {
  response: string
  reference: string
  responseClaims: string[]
  referenceClaims: string[]
  responseVerdicts: number[]
  referenceVerdicts: number[]
}) {
  server.on(isClaims(o.response), claimsReply(o.responseClaims))
  server.on(isClaims(o.reference), claimsReply(o.referenceClaims))
  server.on(isNli(o.reference), verdictsReply(o.responseClaims, o.responseVerdicts)) // response claims vs reference
  server.on(isNli(o.response), verdictsReply(o.referenceClaims, o.referenceVerdicts)) // reference claims vs response
}
const scriptSeed = () => scriptFc({ ...SEED, responseVerdicts: [1], referenceVerdicts: [1, 0] })

/** Hand-computed F-beta (Ragas's fbeta_score). */
function fbeta(tp: number, fp: number, fn: number, beta: number) {
  const p = tp + fp > 0 ? tp / (tp + fp) : 0
  const r = tp + fn > 0 ? tp / (tp + fn) : 0
  if (p === 0 && r === 0) return 0
  return ((1 + beta * beta) * p * r) / (beta * beta * p + r)
}

/** n × (claim i) with the given verdicts on both sides: counts tp/fp/fn exactly. */
function countsCase(tp: number, fp: number, fn: number, coveredRef = 0) {
  const response = `Response text with ${tp} good and ${fp} bad claims.`
  const reference = `Reference text with ${fn} uncovered claims.`
  const responseClaims = Array.from({ length: tp + fp }, (_, i) => `response claim ${i}`)
  const referenceClaims = Array.from({ length: fn + coveredRef }, (_, i) => `reference claim ${i}`)
  scriptFc({
    response,
    reference,
    responseClaims,
    referenceClaims,
    responseVerdicts: [...Array(tp).fill(1), ...Array(fp).fill(0)],
    referenceVerdicts: [...Array(coveredRef).fill(1), ...Array(fn).fill(0)],
  })
  return { input: 'q', output: response, groundTruth: reference }
}

describe('scorer identity', () => {
  itHasIdentity('factual correctness', () => fcScorer(), 'factual-correctness-scorer', 'Factual Correctness Scorer')

  it('factual correctness steps; generateReason becomes a prompt step with llmReason', () => {
    expect(fcScorer().getSteps()).toEqual([
      { name: 'preprocess', type: 'prompt', description: expect.any(String) },
      { name: 'analyze', type: 'prompt', description: expect.any(String) },
      { name: 'generateScore', type: 'function', description: expect.any(String) },
      { name: 'generateReason', type: 'function', description: expect.any(String) },
    ])
    expect(fcScorer({ llmReason: true }).getSteps().map((s) => [s.name, s.type])).toEqual([
      ['preprocess', 'prompt'],
      ['analyze', 'prompt'],
      ['generateScore', 'function'],
      ['generateReason', 'prompt'],
    ])
    expect(fcScorer({ options: { llmReason: true } }).getSteps()[3].type).toBe('prompt')
  })
})

describe('factual correctness: the Ragas seed', () => {
  it.each([
    ['f1', 0.67, '= 0.67.'],
    ['precision', 1, 'precision = TP / (TP + FP) = 1.0.'],
    ['recall', 0.5, 'recall = TP / (TP + FN) = 0.5.'],
  ] as const)('mode %s → %s', async (mode, want, tail) => {
    scriptSeed()
    const r = await fcScorer({ mode }).run({ input: 'Where is the Eiffel Tower?', output: SEED.response, groundTruth: SEED.reference })
    expect(r.score).toBe(want)
    expect(r.reason!.endsWith(tail)).toBe(true)
    expect(r.analyzeStepResult!.mode).toBe(mode)
    expect(server.requests).toHaveLength(mode === 'precision' ? 2 : 4)
  })

  it('result shape, key by key (f1)', async () => {
    scriptSeed()
    const r = await fcScorer().run({
      input: 'Where is the Eiffel Tower?',
      output: SEED.response,
      groundTruth: SEED.reference,
      runId: 'fc-1',
      extra: { echo: true },
    })
    expect(Object.keys(r)).toEqual([
      'input',
      'output',
      'groundTruth',
      'runId',
      'extra',
      'score',
      'generateScorePrompt',
      'reason',
      'generateReasonPrompt',
      'preprocessStepResult',
      'preprocessPrompt',
      'analyzeStepResult',
      'analyzePrompt',
      'judge',
    ])
    expect(r.runId).toBe('fc-1')
    expect(r.extra).toEqual({ echo: true })
    expect(r.score).toBe(0.67)
    expect(r.generateScorePrompt).toBeUndefined()
    expect(r.generateReasonPrompt).toBeUndefined()
    expect(r.reason).toBe(
      '1 of 1 response claims are supported by the reference (TP 1, FP 0); 1 of 2 reference claims are missing from the response (FN 1); F1 of precision TP / (TP + FP) and recall TP / (TP + FN) = 0.67.',
    )
    expect(r.preprocessStepResult).toEqual({ responseClaims: SEED.responseClaims, referenceClaims: SEED.referenceClaims })
    expect(r.analyzeStepResult).toEqual({
      responseVerdicts: [{ statement: SEED.responseClaims[0], reason: 'r0', verdict: 1 }],
      referenceVerdicts: [
        { statement: SEED.referenceClaims[0], reason: 'r0', verdict: 1 },
        { statement: SEED.referenceClaims[1], reason: 'r1', verdict: 0 },
      ],
      tp: 1,
      fp: 0,
      fn: 1,
      precision: 1 / (1 + 1e-8),
      recall: 1 / (2 + 1e-8),
      mode: 'f1',
      beta: 1,
    })
    // the reason is consistent with the score and counts
    expect(r.analyzeStepResult!.precision).not.toBe(1) // unrounded, with Ragas's epsilon
    expect(Math.round(fbeta(1, 0, 1, 1) * 100) / 100).toBe(r.score)

    // prompts = what was sent, response side first
    const reqs = server.requests
    expect(reqs).toHaveLength(4)
    const respDec = reqs.find(isClaims(SEED.response))!
    const refDec = reqs.find(isClaims(SEED.reference))!
    const respNli = reqs.find(isNli(SEED.reference))!
    const refNli = reqs.find(isNli(SEED.response))!
    expect(data(respDec)).toEqual({ text: SEED.response })
    expect(data(refDec)).toEqual({ text: SEED.reference })
    expect(data(respNli)).toEqual({ context: SEED.reference, statements: SEED.responseClaims })
    expect(data(refNli)).toEqual({ context: SEED.response, statements: SEED.referenceClaims })
    expect(r.preprocessPrompt).toBe(respDec.user + SEP + refDec.user)
    expect(r.analyzePrompt).toBe(respNli.user + SEP + refNli.user)

    // judge records: 2 per step, response side first
    expect(Object.keys(r.judge!).sort()).toEqual(['analyze', 'preprocess'])
    const pre = r.judge!.preprocess.executions
    const an = r.judge!.analyze.executions
    expect(pre).toHaveLength(2)
    expect(an).toHaveLength(2)
    expect(pre.map((e) => e.prompt)).toEqual([respDec.user, refDec.user])
    expect(an.map((e) => e.prompt)).toEqual([respNli.user, refNli.user])
    expect(pre[0].output).toEqual({ claims: SEED.responseClaims })
    expect(pre[1].output).toEqual({ claims: SEED.referenceClaims })
    expect((an[1].output as Any).statements.map((s: Any) => s.verdict)).toEqual([1, 0])
    for (const e of [...pre, ...an]) {
      expect(e.status).toBe('success')
      expect(e.judgeModelId).toBe('gpt-4o-mini')
      expect(e.judgeProvider).toBe('openai')
      expect(e.attemptCount).toBe(1)
      expect(e.modelCallCount).toBe(1)
      expect(e.error).toBeUndefined()
    }
    // strict json_schema per structured call; no text (reason) call by default
    expect(reqs.every((q) => (q.body!.response_format as Any)?.type === 'json_schema')).toBe(true)
    expect((respDec.body!.response_format as Any).json_schema.strict).toBe(true)
  })

  it('precision mode: reference not decomposed (referenceClaims/referenceVerdicts null, fn 0)', async () => {
    scriptSeed()
    const r = await fcScorer({ mode: 'precision' }).run({ input: 'q', output: SEED.response, groundTruth: SEED.reference })
    expect(r.preprocessStepResult).toEqual({ responseClaims: SEED.responseClaims, referenceClaims: null })
    expect(r.analyzeStepResult).toEqual({
      responseVerdicts: [{ statement: SEED.responseClaims[0], reason: 'r0', verdict: 1 }],
      referenceVerdicts: null,
      tp: 1,
      fp: 0,
      fn: 0,
      precision: 1 / (1 + 1e-8),
      recall: null, // no reference side in precision mode
      mode: 'precision',
      beta: 1,
    })
    expect(r.reason).toBe('1 of 1 response claims are supported by the reference (TP 1, FP 0); precision = TP / (TP + FP) = 1.0.')
    expect(r.judge!.preprocess.executions).toHaveLength(1)
    expect(r.judge!.analyze.executions).toHaveLength(1)
    expect(r.preprocessPrompt).toBe(server.requests[0].user)
    expect(r.preprocessPrompt).not.toContain(SEP)
    expect(r.analyzePrompt).toBe(server.requests[1].user)
    expect(server.requests.some(isClaims(SEED.reference))).toBe(false)
  })

  it("Mastra's options form sets the mode; top-level wins", async () => {
    scriptSeed()
    const run = { input: 'q', output: SEED.response, groundTruth: SEED.reference }
    expect((await fcScorer({ options: { mode: 'recall' } }).run(run)).score).toBe(0.5)
    expect((await fcScorer({ mode: 'precision', options: { mode: 'recall' } }).run(run)).score).toBe(1)
  })

  it('llmReason: true makes one text call whose answer is the reason', async () => {
    scriptSeed()
    server.on((q) => q.body!.response_format === undefined && schemaName(q) === undefined, {
      content: '  The score is 0.67 because the height claim is missing.  ',
    })
    const r = await fcScorer({ llmReason: true }).run({ input: 'q', output: SEED.response, groundTruth: SEED.reference })
    expect(server.requests).toHaveLength(5)
    const reasonReq = server.requests[4]
    expect(reasonReq.body!.response_format).toBeUndefined()
    const d = data(reasonReq)
    expect(Object.keys(d).sort()).toEqual(['analysis', 'reference', 'response', 'score'])
    expect(d.response).toBe(SEED.response)
    expect(d.reference).toBe(SEED.reference)
    expect(d.score).toBe(0.67)
    expect(d.analysis).toEqual(r.analyzeStepResult)
    expect(r.reason).toBe('The score is 0.67 because the height claim is missing.')
    expect(r.generateReasonPrompt).toBe(reasonReq.user)
    expect(r.judge!.generateReason.executions).toHaveLength(1)
    expect(r.judge!.generateReason.executions[0].output).toBe('The score is 0.67 because the height claim is missing.')
    expect(r.score).toBe(0.67)
  })

  it('groundTruth as assistant messages: its text is the reference', async () => {
    scriptSeed()
    const r = await fcScorer().run({
      input: 'q',
      output: [{ role: 'assistant', content: SEED.response }],
      groundTruth: [
        { role: 'user', content: 'ignored' },
        { role: 'assistant', content: SEED.reference },
      ],
    })
    expect(r.score).toBe(0.67)
    expect(server.requests.filter(isClaims(SEED.reference))).toHaveLength(1)
  })
})

describe('factual correctness: counting and F-beta', () => {
  // tp 2, fp 1, fn 3 (2 of 5 reference claims covered): p = 2/3, r = 2/5
  it.each([
    [1, 0.5, 'F1 of precision TP / (TP + FP) and recall TP / (TP + FN) = 0.5'],
    [2, 0.43, 'F-beta (beta 2) of precision TP / (TP + FP) and recall TP / (TP + FN) = 0.43'],
    [0.5, 0.59, 'F-beta (beta 0.5) of precision TP / (TP + FP) and recall TP / (TP + FN) = 0.59'],
  ])('beta %s → %s', async (beta, want, label) => {
    const run = countsCase(2, 1, 3, 2)
    const r = await fcScorer({ beta }).run(run)
    const hand = fbeta(2, 1, 3, beta)
    expect(Math.abs(hand - want)).toBeLessThan(0.005)
    expect(r.score).toBe(want)
    expect(r.analyzeStepResult).toMatchObject({ tp: 2, fp: 1, fn: 3, beta, mode: 'f1' })
    expect(r.reason).toBe(
      `2 of 3 response claims are supported by the reference (TP 2, FP 1); 3 of 5 reference claims are missing from the response (FN 3); ${label}.`,
    )
  })

  it('the seed with beta 2 and 0.5 (p = 1, r = 0.5)', async () => {
    scriptSeed()
    const run = { input: 'q', output: SEED.response, groundTruth: SEED.reference }
    const b2 = await fcScorer({ beta: 2 }).run(run)
    const bh = await fcScorer({ options: { beta: 0.5 } }).run(run)
    expect(fbeta(1, 0, 1, 2)).toBeCloseTo(2.5 / 4.5, 12) // 0.5556
    expect(fbeta(1, 0, 1, 0.5)).toBeCloseTo(0.625 / 0.75, 12) // 0.8333
    expect(b2.score).toBe(0.56)
    expect(bh.score).toBe(0.83)
    expect(b2.reason!.endsWith('F-beta (beta 2) of precision TP / (TP + FP) and recall TP / (TP + FN) = 0.56.')).toBe(true)
    expect(bh.analyzeStepResult!.beta).toBe(0.5)
  })

  it('rounds half to even: F1 exactly 0.625 → 0.62 (tp 5, fp 3, fn 3)', async () => {
    expect(fbeta(5, 3, 3, 1)).toBe(0.625)
    const r = await fcScorer().run(countsCase(5, 3, 3, 5))
    expect(r.score).toBe(0.62) // Math.round-style half-up would say 0.63
    expect(r.reason!.endsWith('= 0.62.')).toBe(true)
  })

  it('rounds half to even: F1 exactly 0.375 → 0.38 (tp 3, fp 5, fn 5)', async () => {
    expect(fbeta(3, 5, 5, 1)).toBe(0.375)
    const r = await fcScorer().run(countsCase(3, 5, 5))
    expect(r.score).toBe(0.38) // half-down/truncation would say 0.37
  })

  it('precision mode, 5 of 8 supported → 0.62', async () => {
    const r = await fcScorer({ mode: 'precision' }).run(countsCase(5, 3, 0))
    expect(r.analyzeStepResult).toMatchObject({ tp: 5, fp: 3, fn: 0, precision: 5 / (8 + 1e-8) })
    expect(r.score).toBe(0.62)
    expect(r.reason).toBe('5 of 8 response claims are supported by the reference (TP 5, FP 3); precision = TP / (TP + FP) = 0.62.')
    expect(r.analyzeStepResult!.recall).toBeNull()
    expect(server.requests).toHaveLength(2)
  })

  it('verdict 2 counts as supported', async () => {
    scriptFc({ ...SEED, responseVerdicts: [2], referenceVerdicts: [2, 0] })
    const r = await fcScorer().run({ input: 'q', output: SEED.response, groundTruth: SEED.reference })
    expect(r.analyzeStepResult).toMatchObject({ tp: 1, fp: 0, fn: 1 })
    expect(r.analyzeStepResult!.responseVerdicts[0].verdict).toBe(2)
    expect(r.score).toBe(0.67)
  })

  it('fewer verdicts than claims: the fallback is asked, then the verdicts are counted with a warning', async () => {
    scriptFc({
      response: 'Three facts here.',
      reference: 'Two facts there.',
      responseClaims: ['a', 'b', 'c'],
      referenceClaims: ['x', 'y'],
      responseVerdicts: [1],
      referenceVerdicts: [0],
    })
    const r = await fcScorer().run({ input: 'q', output: 'Three facts here.', groundTruth: 'Two facts there.' })
    expect(r.analyzeStepResult).toMatchObject({ tp: 1, fp: 0, fn: 1 })
    expect(r.analyzeStepResult!.responseVerdicts).toHaveLength(1)
    expect(r.score).toBe(0.67)
    expect(r.reason).toBe(
      '1 of 1 response claims are supported by the reference (TP 1, FP 0); 1 of 1 reference claims are missing from the response (FN 1); F1 of precision TP / (TP + FP) and recall TP / (TP + FN) = 0.67.',
    )
    // each NLI call was a format error first: the fallback stated the mismatch
    const fallbacks = server.requests.filter((q) => q.user.includes('REJECTED:'))
    expect(fallbacks.map((q) => JSON.parse(q.user.split('REJECTED: ')[1].split('\n')[0])).sort()).toEqual([
      '1 verdict for 2 claims',
      '1 verdict for 3 claims',
    ])
    expect(r.warnings).toEqual(['analyze: 1 verdict for 3 claims', 'analyze: 1 verdict for 2 claims'])
    for (const ex of r.judge!.analyze.executions) expect(ex.attemptCount).toBe(2)
  })

  it('no response claims: the response-side NLI call is skipped', async () => {
    scriptFc({ ...SEED, responseClaims: [], responseVerdicts: [], referenceVerdicts: [1, 0] })
    const r = await fcScorer().run({ input: 'q', output: SEED.response, groundTruth: SEED.reference })
    expect(server.requests).toHaveLength(3)
    expect(server.requests.filter(isNli(SEED.reference))).toHaveLength(0)
    expect(r.analyzeStepResult).toMatchObject({ responseVerdicts: [], tp: 0, fp: 0, fn: 1, precision: 0, recall: 0 })
    expect(r.analyzeStepResult!.referenceVerdicts).toHaveLength(2)
    expect(r.judge!.analyze.executions).toHaveLength(1)
    expect(r.analyzePrompt).toBe(server.requests.find(isNli(SEED.response))!.user)
    expect(r.score).toBe(0)
    expect(r.reason).toBe(
      'The response had no claims to check against the reference (TP 0, FP 0); 1 of 2 reference claims are missing from the response (FN 1); F1 of precision TP / (TP + FP) and recall TP / (TP + FN) = 0.0.',
    )
  })

  it('no reference claims: the reference-side NLI call is skipped (referenceVerdicts [])', async () => {
    scriptFc({ ...SEED, referenceClaims: [], responseVerdicts: [1], referenceVerdicts: [] })
    const r = await fcScorer().run({ input: 'q', output: SEED.response, groundTruth: SEED.reference })
    expect(server.requests).toHaveLength(3)
    expect(server.requests.filter(isNli(SEED.response))).toHaveLength(0)
    expect(r.preprocessStepResult).toEqual({ responseClaims: SEED.responseClaims, referenceClaims: [] })
    expect(r.analyzeStepResult).toMatchObject({ referenceVerdicts: [], tp: 1, fp: 0, fn: 0 })
    expect(r.judge!.analyze.executions).toHaveLength(1)
    expect(r.score).toBe(1)
    expect(r.reason).toBe(
      '1 of 1 response claims are supported by the reference (TP 1, FP 0); the reference had no claims to check against the response (FN 0); F1 of precision TP / (TP + FP) and recall TP / (TP + FN) = 1.0.',
    )
  })

  it('no claims on either side: no NLI call, analyze absent, score 0 (never NaN)', async () => {
    scriptFc({ ...SEED, responseClaims: [], referenceClaims: [], responseVerdicts: [], referenceVerdicts: [] })
    for (const mode of ['f1', 'precision', 'recall']) {
      server.requests.length = 0
      const r = await fcScorer({ mode }).run({ input: 'q', output: SEED.response, groundTruth: SEED.reference })
      expect(r.score).toBe(0)
      expect(Number.isNaN(r.analyzeStepResult!.precision)).toBe(false)
      expect(r.analyzePrompt).toBeUndefined()
      expect(r.judge!.analyze).toBeUndefined()
      expect(server.requests).toHaveLength(mode === 'precision' ? 1 : 2)
    }
  })
})

describe('round trips', () => {
  it('FC f1: 2 decompositions in flight together, then 2 NLI calls together; 4 requests', async () => {
    const seenAtAnswer: number[] = []
    const after = (n: number, reply: Any) => async () => {
      await server.waitForRequests(n, 2000)
      seenAtAnswer.push(server.requests.length)
      return reply
    }
    server.on(isClaims(SEED.response), after(2, claimsReply(SEED.responseClaims)))
    server.on(isClaims(SEED.reference), after(2, claimsReply(SEED.referenceClaims)))
    server.on(isNli(SEED.reference), after(4, verdictsReply(SEED.responseClaims, [1])))
    server.on(isNli(SEED.response), after(4, verdictsReply(SEED.referenceClaims, [1, 0])))
    const r = await fcScorer({}, { maxRetries: 0 }).run({ input: 'q', output: SEED.response, groundTruth: SEED.reference })
    expect(r.score).toBe(0.67)
    // both decompositions answered when exactly 2 requests had arrived; both NLI at 4
    expect(seenAtAnswer).toEqual([2, 2, 4, 4])
    expect(server.requests).toHaveLength(4)
    expect(server.requests.slice(0, 2).map(schemaName)).toEqual(['factual_correctness_claims', 'factual_correctness_claims'])
    expect(server.requests.slice(2).map(schemaName)).toEqual(['factual_correctness_verdicts', 'factual_correctness_verdicts'])
    expect(server.maxInFlight).toBe(2)
  })

  it('FC precision: 2 sequential requests (1 decomposition, 1 NLI)', async () => {
    scriptSeed()
    const r = await fcScorer({ mode: 'precision' }).run({ input: 'q', output: SEED.response, groundTruth: SEED.reference })
    expect(r.score).toBe(1)
    expect(server.requests.map(schemaName)).toEqual(['factual_correctness_claims', 'factual_correctness_verdicts'])
    expect(server.maxInFlight).toBe(1)
  })
})

describe('factual correctness: judge failures', () => {
  it('malformed decomposition JSON twice → ScorerRunError at preprocess with the raw output kept', async () => {
    let n = 0
    server.on(isClaims(SEED.response), () => (n++ === 0 ? 'these are not claims' : 'still no json here'))
    server.on(isClaims(SEED.reference), claimsReply(SEED.referenceClaims))
    const err = await failure(fcScorer().run({ input: 'q', output: SEED.response, groundTruth: SEED.reference, runId: 'bad-1' }))
    expect(err).toBeInstanceOf(ScorerRunError)
    expect(err.name).toBe('ScorerRunError')
    expect(err.failedStep).toBe('preprocess')
    expect(err.code).toBe('OXEVAL_JUDGE_OUTPUT')
    expect(err.completedSteps).toEqual([])
    expect(err.message).toMatch(/^Scorer Run Failed: step 'preprocess' failed: /)
    expect(err.result.runId).toBe('bad-1')
    expect(err.result.score).toBeUndefined()
    expect(err.result.preprocessStepResult).toBeUndefined()
    expect(err.result.analyzeStepResult).toBeUndefined()
    expect(typeof err.result.preprocessPrompt).toBe('string')
    expect(err.result.preprocessPrompt).toContain(SEP)
    const execs = err.result.judge.preprocess.executions
    expect(execs).toHaveLength(2)
    const failed = execs.find((e: Any) => e.status === 'failed')
    expect(execs.indexOf(failed)).toBe(0) // response side first
    expect(failed.rawOutput).toBe('still no json here')
    expect(failed.attemptCount).toBe(2)
    expect(failed.modelCallCount).toBe(2)
    expect(failed.error.code).toBe('OXEVAL_JUDGE_OUTPUT')
    expect(execs[1].status).toBe('success')
    expect(err.result.judge.analyze).toBeUndefined()
    expect(err.cause.rawOutput).toBe('still no json here')
    // 2 requests for the response side (first + fallback), 1 for the reference, no NLI
    expect(server.requests).toHaveLength(3)
    expect(server.requests.filter((q) => schemaName(q) === 'factual_correctness_verdicts')).toHaveLength(0)
  })
})

describe('factory options are TypeErrors at creation', () => {
  const fc = (o: Record<string, unknown>) => () => createFactualCorrectnessScorer({ model: 'openai/x', ...o } as Any)
  itRejectsOptions([
    ['FC unknown mode', fc({ mode: 'f2' }), /mode must be 'f1' \| 'precision' \| 'recall'; got 'f2'/],
    ['FC atomicity medium', fc({ atomicity: 'medium' }), /atomicity must be 'low' \| 'high'; got 'medium'/],
    ['FC coverage full (nested)', fc({ options: { coverage: 'full' } }), /options.options.coverage must be 'low' \| 'high'/],
    ['FC beta 0', fc({ beta: 0 }), /options.beta must be a number at least 0.001 and at most 1000; got 0/],
    ['FC beta -1', fc({ beta: -1 }), /at least 0.001/],
    ['FC beta "x"', fc({ beta: 'x' }), /beta must be a number; got string/],
    ['FC beta NaN', fc({ beta: NaN }), /finite/],
    ['FC llmReason "yes"', fc({ llmReason: 'yes' }), /llmReason must be a boolean/],
  ])

  it('valid option combinations create scorers', () => {
    expect(fc({ mode: 'recall', beta: 0.25, atomicity: 'high', coverage: 'high', llmReason: false })().id).toBe('factual-correctness-scorer')
  })
})

describe('run input errors are TypeErrors with no request', () => {
  itRejectsRunInput(server, [
    ['FC without groundTruth', () => fcScorer(), { input: 'q', output: 'Paris.' }, /reference \(run.groundTruth\) is missing/],
    ['FC blank groundTruth', () => fcScorer(), { input: 'q', output: 'Paris.', groundTruth: '   ' }, /reference \(run.groundTruth\) is missing/],
    ['FC empty output', () => fcScorer(), { input: 'q', output: '', groundTruth: 'Paris.' }, /response is missing/],
    ['FC blank output', () => fcScorer(), { input: 'q', output: '  ', groundTruth: 'Paris.' }, /response is missing/],
    ['FC user-only output', () => fcScorer(), { input: 'q', output: [{ role: 'user', content: 'hi' }], groundTruth: 'Paris.' }, /response is missing/],
  ])
})

describe('factual correctness: atomicity × coverage', () => {
  it('the four combinations send four different decomposition prompts (default = low/low)', async () => {
    server.on((q) => schemaName(q) === 'factual_correctness_claims', claimsReply(['c']))
    server.on((q) => schemaName(q) === 'factual_correctness_verdicts', verdictsReply(['c'], [1]))
    const combos = [
      ['low', 'low'],
      ['low', 'high'],
      ['high', 'low'],
      ['high', 'high'],
    ] as const
    const prompts: string[] = []
    for (const [atomicity, coverage] of combos) {
      server.requests.length = 0
      const r = await fcScorer({ mode: 'precision', atomicity, coverage }).run({ input: 'q', output: 'Some text.', groundTruth: 'Ref.' })
      expect(r.score).toBe(1)
      const dec = server.requests.filter((q) => schemaName(q) === 'factual_correctness_claims')
      expect(dec).toHaveLength(1)
      expect(data(dec[0])).toEqual({ text: 'Some text.' })
      expect(r.preprocessPrompt).toBe(dec[0].user)
      prompts.push(dec[0].user)
    }
    for (let i = 0; i < prompts.length; i++) {
      for (let j = i + 1; j < prompts.length; j++) expect(prompts[i], `${combos[i]} vs ${combos[j]}`).not.toBe(prompts[j])
    }
    // the defaults are low/low; Mastra's options form works too
    server.requests.length = 0
    await fcScorer({ mode: 'precision' }).run({ input: 'q', output: 'Some text.', groundTruth: 'Ref.' })
    expect(server.requests[0].user).toBe(prompts[0])
    server.requests.length = 0
    await fcScorer({ mode: 'precision', options: { atomicity: 'high', coverage: 'high' } }).run({ input: 'q', output: 'Some text.', groundTruth: 'Ref.' })
    expect(server.requests[0].user).toBe(prompts[3])
  })
})
