// Ragas metrics through the real addon over HTTP: FactualCorrectness and the three NVIDIA
// dual-judge metrics (AnswerAccuracy, ContextRelevance, ResponseGroundedness).
// Shapes: docs/ragas-step-results.md; semantics: /work/shared/reference/ragas-metrics.md.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createRequire } from 'node:module'
import { startJudgeServer, type JudgeServer, type RecordedRequest } from '../testing/judge-server.mjs'

const require = createRequire(import.meta.url)
const {
  createFactualCorrectnessScorer,
  createAnswerAccuracyScorer,
  createContextRelevanceScorer,
  createResponseGroundednessScorer,
  ScorerRunError,
  AbortError,
} = require('../index.js') as typeof import('../index.js')

let server: JudgeServer
beforeAll(async () => {
  server = await startJudgeServer()
})
afterAll(async () => {
  await server.close()
})
afterEach(() => server.reset())

// ---------------------------------------------------------------------------------------
// helpers

const MODEL = () => ({ id: 'openai/gpt-4o-mini', url: server.url })
const SEP = '\n\n-----\n\n'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any

function fcScorer(extra: Record<string, unknown> = {}, settings: Record<string, unknown> = {}) {
  return createFactualCorrectnessScorer({ model: MODEL(), modelSettings: { retryDelayMs: 1, ...settings }, ...extra } as Any)
}
function aaScorer(extra: Record<string, unknown> = {}, settings: Record<string, unknown> = {}) {
  return createAnswerAccuracyScorer({ model: MODEL(), modelSettings: { retryDelayMs: 1, ...settings }, ...extra } as Any)
}
function crScorer(extra: Record<string, unknown> = {}, settings: Record<string, unknown> = {}) {
  return createContextRelevanceScorer({ model: MODEL(), modelSettings: { retryDelayMs: 1, ...settings }, ...extra } as Any)
}
function rgScorer(extra: Record<string, unknown> = {}, settings: Record<string, unknown> = {}) {
  return createResponseGroundednessScorer({ model: MODEL(), modelSettings: { retryDelayMs: 1, ...settings }, ...extra } as Any)
}

/** Schema name of a structured call: native response_format, or the fallback's system line. */
function schemaName(req: RecordedRequest): string | undefined {
  const native = (req.body?.response_format as Any)?.json_schema?.name
  if (native) return native
  return /Output schema name: (\S+)/.exec(req.system)?.[1]
}

/** The last DATA line of the user prompt, parsed. */
function data(req: RecordedRequest): Record<string, unknown> {
  const line = req.user
    .split('\n')
    .filter((l) => l.startsWith('DATA: '))
    .pop()!
  return JSON.parse(line.slice('DATA: '.length))
}

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

const rating = (r: unknown) => ({ json: { rating: r } })
const isAa1 = (req: RecordedRequest) => schemaName(req) === 'nv_rating_0_2_4' && 'candidate_answer' in data(req)
const isAa2 = (req: RecordedRequest) => schemaName(req) === 'nv_rating_0_2_4' && 'proposed_answer' in data(req)
const isNv012 = (req: RecordedRequest) => schemaName(req) === 'nv_rating_0_1_2'
/** Judge 1 of context relevance and response groundedness carries DATA.context. */
const isJudge1Ctx = (req: RecordedRequest) => isNv012(req) && 'context' in data(req)
const isJudge2Ctx = (req: RecordedRequest) => isNv012(req) && ('passage' in data(req) || 'passages' in data(req))

const AA_RUN = { input: 'What is the capital of France?', output: 'Paris is the capital.', groundTruth: 'Paris' }

async function rejection(p: Promise<unknown>): Promise<Any> {
  return p.then(
    (v) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(v)}`)
    },
    (e) => e,
  )
}

// ---------------------------------------------------------------------------------------
// 7. identity

describe('scorer identity', () => {
  const nvSteps = (analyze: RegExp) => [
    { name: 'analyze', type: 'prompt', description: expect.stringMatching(analyze) },
    { name: 'generateScore', type: 'function', description: expect.any(String) },
    { name: 'generateReason', type: 'function', description: expect.any(String) },
  ]
  it.each([
    ['factual correctness', () => fcScorer(), 'factual-correctness-scorer', 'Factual Correctness Scorer'],
    ['answer accuracy', () => aaScorer(), 'answer-accuracy-scorer', 'Answer Accuracy Scorer'],
    ['context relevance', () => crScorer(), 'nv-context-relevance-scorer', 'Context Relevance Scorer'],
    ['response groundedness', () => rgScorer(), 'response-groundedness-scorer', 'Response Groundedness Scorer'],
  ])('%s: id, name, type, judge', (_n, make, id, name) => {
    const s = make()
    expect(s.id).toBe(id)
    expect(s.name).toBe(name)
    expect(s.type).toBe('agent')
    expect(typeof s.description).toBe('string')
    expect(s.description.length).toBeGreaterThan(10)
    expect(s.judge).toEqual({ model: 'openai/gpt-4o-mini', instructions: expect.any(String) })
    expect(s.judge!.instructions.length).toBeGreaterThan(20)
  })

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

  it('NVIDIA steps: analyze (prompt), generateScore, generateReason (functions)', () => {
    expect(aaScorer().getSteps()).toEqual(nvSteps(/0, 2 or 4/))
    expect(crScorer().getSteps()).toEqual(nvSteps(/0, 1 or 2/))
    expect(rgScorer().getSteps()).toEqual(nvSteps(/0, 1 or 2/))
    // getSteps returns copies
    const s = aaScorer()
    s.getSteps()[0].name = 'mutated'
    expect(s.getSteps()[0].name).toBe('analyze')
  })
})

// ---------------------------------------------------------------------------------------
// 1. factual correctness: scoring and result shape

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

// ---------------------------------------------------------------------------------------
// 2. round trips

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

  it.each([
    ['answer accuracy', () => aaScorer({}, { maxRetries: 0 }), AA_RUN, 'nv_rating_0_2_4', 4, 1],
    ['context relevance', () => crScorer({}, { maxRetries: 0 }), { input: 'Where is Paris?', output: 'x', context: ['Paris is in France.'] }, 'nv_rating_0_1_2', 2, 1],
    ['response groundedness', () => rgScorer({}, { maxRetries: 0 }), { output: 'Paris is in France.', context: ['France contains Paris.'] }, 'nv_rating_0_1_2', 2, 1],
  ] as const)('%s: both judges in flight together, 2 requests', async (_n, make, run, schema, r1, want) => {
    const seen: number[] = []
    server.on(
      (q) => schemaName(q) === schema,
      async () => {
        await server.waitForRequests(2, 2000)
        seen.push(server.requests.length)
        return rating(r1)
      },
    )
    const r = await make().run(run as Any)
    expect(r.score).toBe(want)
    expect(seen).toEqual([2, 2])
    expect(server.requests).toHaveLength(2)
    expect(server.maxInFlight).toBe(2)
  })
})

// ---------------------------------------------------------------------------------------
// 3. FC failures

describe('factual correctness: judge failures', () => {
  it('malformed decomposition JSON twice → ScorerRunError at preprocess with the raw output kept', async () => {
    let n = 0
    server.on(isClaims(SEED.response), () => (n++ === 0 ? 'these are not claims' : 'still no json here'))
    server.on(isClaims(SEED.reference), claimsReply(SEED.referenceClaims))
    const err = await rejection(fcScorer().run({ input: 'q', output: SEED.response, groundTruth: SEED.reference, runId: 'bad-1' }))
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

// ---------------------------------------------------------------------------------------
// 4. answer accuracy

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
    const err = await rejection(aaScorer({ maxRetries: 2 }).run(AA_RUN))
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

// ---------------------------------------------------------------------------------------
// 5. context scorers

const toolOutput = () => [
  {
    id: 'm1',
    role: 'assistant',
    content: {
      format: 2,
      toolInvocations: [
        { state: 'result', toolCallId: 'a', toolName: 'search', args: {}, result: 'legacy doc A' },
        { state: 'call', toolCallId: 'pending', toolName: 'search', args: {} },
      ],
      parts: [
        { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'b', toolName: 'search', args: {}, result: { title: 'B' } } },
        { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'c', toolName: 'search', args: {} } },
        { type: 'text', text: 'Paris is the capital of France.' },
      ],
    },
  },
]

describe.each([
  ['context relevance', crScorer, 'What is the capital of France?'],
  ['response groundedness', rgScorer, 'Tell me something.'],
] as const)('%s: retrieved contexts', (_name, make, question) => {
  const baseRun = () => ({ input: question, output: 'Paris is the capital of France.' })
  /** Script both judges (rating 2 and 1 → 0.75) and return judge 1's DATA.context. */
  const script = () => {
    server.on(isJudge1Ctx, rating(2))
    server.on(isJudge2Ctx, rating(1))
  }
  const sentContext = () => {
    const j1 = server.requests.filter(isJudge1Ctx)
    const j2 = server.requests.filter(isJudge2Ctx)
    expect(j1).toHaveLength(1)
    expect(j2).toHaveLength(1)
    const d2 = data(j2[0])
    expect(d2.passage ?? d2.passages).toBe(data(j1[0]).context)
    return data(j1[0]).context
  }

  it('scores 2 and 1 → 0.75 with the step result', async () => {
    script()
    const r = await make().run({ ...baseRun(), context: ['Paris is the capital of France.'] })
    expect(r.score).toBe(0.75)
    expect(r.reason).toBe('Judge 1 rated 2/2, judge 2 rated 1/2 → 0.75.')
    expect(r.analyzeStepResult!.judges.map((j) => j.normalized)).toEqual([1, 0.5])
  })

  it('run.context wins over contextExtractor, which is then not called', async () => {
    script()
    const extractor = vi.fn(() => ['from extractor'])
    const r = await make({ contextExtractor: extractor, context: ['from option'] }).run({ ...baseRun(), context: ['from run', 'second'] })
    expect(r.score).toBe(0.75)
    expect(sentContext()).toBe('from run\nsecond')
    expect(extractor).not.toHaveBeenCalled()
    // the result echoes the run, not the facade's extractedContext
    expect(r.context).toEqual(['from run', 'second'])
    expect('extractedContext' in r).toBe(false)
  })

  it('contextExtractor(input, output) wins over the factory context', async () => {
    script()
    const extractor = vi.fn((_i: unknown, _o: unknown) => ['x', 'y'])
    const run = { ...baseRun(), output: toolOutput() }
    await make({ contextExtractor: extractor, context: ['from option'] }).run(run)
    expect(extractor).toHaveBeenCalledTimes(1)
    expect(extractor.mock.calls[0][0]).toBe(run.input)
    expect(extractor.mock.calls[0][1]).toBe(run.output)
    expect(sentContext()).toBe('x\ny')
  })

  it('contextExtractor is called when run.context is null', async () => {
    script()
    const extractor = vi.fn(() => ['extracted'])
    await make({ contextExtractor: extractor }).run({ ...baseRun(), context: null } as Any)
    expect(extractor).toHaveBeenCalledTimes(1)
    expect(sentContext()).toBe('extracted')
  })

  it('a contextExtractor returning undefined falls through to the factory context', async () => {
    script()
    const extractor = vi.fn(() => undefined)
    await make({ contextExtractor: extractor as Any, context: ['from option'] }).run(baseRun())
    expect(extractor).toHaveBeenCalledTimes(1)
    expect(sentContext()).toBe('from option')
  })

  it('an async contextExtractor works', async () => {
    script()
    const r = await make({
      contextExtractor: async () => {
        await new Promise((res) => setTimeout(res, 5))
        return ['async ctx']
      },
    }).run(baseRun())
    expect(r.score).toBe(0.75)
    expect(sentContext()).toBe('async ctx')
  })

  it('the factory context (or options.context) wins over tool results', async () => {
    script()
    await make({ context: ['from option'] }).run({ ...baseRun(), output: toolOutput() })
    expect(sentContext()).toBe('from option')
    server.requests.length = 0
    await make({ options: { context: ['nested option'] } }).run({ ...baseRun(), output: toolOutput() })
    expect(sentContext()).toBe('nested option')
  })

  it('tool results in the output messages come last (legacy toolInvocations and parts; pending and missing results skipped)', async () => {
    script()
    await make().run({ ...baseRun(), output: toolOutput() })
    expect(sentContext()).toBe('legacy doc A\n{"title":"B"}')
  })

  it('the same toolCallId in toolInvocations and parts counts once (parts win)', async () => {
    script()
    const output = [
      {
        role: 'assistant',
        content: {
          format: 2,
          toolInvocations: [{ state: 'result', toolCallId: 'same', toolName: 't', args: {}, result: 'old' }],
          parts: [
            { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'same', toolName: 't', args: {}, result: 'new' } },
            { type: 'text', text: 'Paris is the capital of France.' },
          ],
        },
      },
    ]
    await make().run({ ...baseRun(), output })
    expect(sentContext()).toBe('new')
  })

  it.each([
    ['sync', () => {
      throw new Error('vector store down')
    }],
    ['async', async () => {
      throw new Error('vector store down')
    }],
  ])('a throwing contextExtractor (%s) → ScorerRunError at contextExtractor, no request', async (_k, extractor) => {
    const err = await rejection(make({ contextExtractor: extractor }).run({ ...baseRun(), runId: 'ce-1' }))
    expect(err).toBeInstanceOf(ScorerRunError)
    expect(err.failedStep).toBe('contextExtractor')
    expect(err.code).toBe('OXEVAL_CONTEXT_EXTRACTOR')
    expect(err.completedSteps).toEqual([])
    expect(err.message).toContain('vector store down')
    expect(err.cause.message).toBe('vector store down')
    expect(err.result.runId).toBe('ce-1')
    expect(err.result.score).toBeUndefined()
    expect(server.requests).toHaveLength(0)
  })

  it.each([
    ['run.context []', {}, { context: [] }],
    ['run.context [] beats the factory context', { context: ['from option'] }, { context: [] }],
    ['contextExtractor returning []', { contextExtractor: () => [] }, {}],
    ['nothing anywhere', {}, {}],
  ])('empty contexts list (%s) → TypeError, no request', async (_k, opts, extra) => {
    const err = await rejection(make(opts).run({ ...baseRun(), ...extra }))
    expect(err).toBeInstanceOf(TypeError)
    expect(err.code).toBe('OXEVAL_INVALID_INPUT')
    expect(err.message).toMatch(/retrieved contexts are missing/)
    expect(server.requests).toHaveLength(0)
  })

  it.each([
    [{ context: 5 }, /run.context must be an array of strings; got number/],
    [{ context: ['ok', 2] }, /run.context\[1\] must be a string; got number/],
    [{ context: 'one text' }, /run.context must be an array of strings; got string/],
  ])('run.context of the wrong type %j → TypeError, no request', async (extra, re) => {
    const err = await rejection(make().run({ ...baseRun(), ...extra } as Any))
    expect(err).toBeInstanceOf(TypeError)
    expect(err.message).toMatch(re)
    expect(server.requests).toHaveLength(0)
  })

  it('a contextExtractor returning a non-array → TypeError, no request', async () => {
    const err = await rejection(make({ contextExtractor: () => 'just text' }).run(baseRun()))
    expect(err).toBeInstanceOf(TypeError)
    expect(err.message).toMatch(/must be an array of strings/)
    expect(server.requests).toHaveLength(0)
  })
})

describe('no-call 0.0 shortcuts', () => {
  const expectShortcut = (r: Any) => {
    expect(r.score).toBe(0)
    expect(r.reason).toMatch(/^The score is 0 because .+\.$/)
    expect(r.judge).toBeUndefined()
    expect('judge' in r).toBe(false)
    expect(r.analyzeStepResult).toBeUndefined()
    expect(r.analyzePrompt).toBeUndefined()
    expect(Object.keys(r)).toContain('analyzeStepResult')
    expect(typeof r.runId).toBe('string')
  }

  it.each([
    ['blank question', { input: '   ', context: ['Paris is in France.'] }, /question is blank/],
    ['blank joined context', { input: 'Where is Paris?', context: ['  ', '', '\t'] }, /context is blank/],
    ['question equals context (trimmed)', { input: ' What is X? ', context: ['What is X?  '] }, /repeats the question/],
    ['context substring of question', { input: 'Tell me about Paris and Rome', context: ['Paris'] }, /part of the question/],
  ])('context relevance: %s', async (_k, run, why) => {
    const r = await crScorer().run({ output: 'whatever', ...run })
    expectShortcut(r)
    expect(r.reason).toMatch(why)
    expect(server.requests).toHaveLength(0)
  })

  it('context relevance: two contexts joined with \\n are not a substring of the question → judges are called', async () => {
    server.on(isNv012, rating(0))
    const r = await crScorer().run({ input: 'Tell me about Paris and Rome', output: 'x', context: ['Paris', 'Rome'] })
    expect(r.score).toBe(0)
    expect(r.judge).toBeDefined()
    expect(server.requests).toHaveLength(2)
    expect(data(server.requests.find(isJudge1Ctx)!)).toEqual({ question: 'Tell me about Paris and Rome', context: 'Paris\nRome' })
  })

  it.each([
    ['blank response', { output: '   ', context: ['Paris is in France.'] }, /response is blank/],
    ['blank context', { output: 'Paris is in France.', context: [' ', '\n'] }, /context is blank/],
  ])('response groundedness: %s', async (_k, run, why) => {
    const r = await rgScorer().run(run)
    expectShortcut(r)
    expect(r.reason).toMatch(why)
    expect(server.requests).toHaveLength(0)
  })

  it('response groundedness: judge DATA keys (response/context, reply/passages)', async () => {
    server.on(isJudge1Ctx, rating(2))
    server.on(isJudge2Ctx, rating(2))
    const r = await rgScorer().run({ output: 'Paris is in France.', context: ['a', 'b'] })
    expect(r.score).toBe(1)
    expect(data(server.requests.find(isJudge1Ctx)!)).toEqual({ response: 'Paris is in France.', context: 'a\nb' })
    expect(data(server.requests.find(isJudge2Ctx)!)).toEqual({ reply: 'Paris is in France.', passages: 'a\nb' })
  })

  it('context relevance: judge DATA keys (question/context, question/passage)', async () => {
    server.on(isJudge1Ctx, rating(1))
    server.on(isJudge2Ctx, rating(0))
    const r = await crScorer().run({ input: 'Where is Paris?', output: 'x', context: ['a', 'b'] })
    expect(r.score).toBe(0.25)
    expect(data(server.requests.find(isJudge2Ctx)!)).toEqual({ question: 'Where is Paris?', passage: 'a\nb' })
  })
})

// ---------------------------------------------------------------------------------------
// 6. option and input errors

describe('factory options are TypeErrors at creation', () => {
  const fc = (o: Record<string, unknown>) => () => createFactualCorrectnessScorer({ model: 'openai/x', ...o } as Any)
  const aa = (o: Record<string, unknown>) => () => createAnswerAccuracyScorer({ model: 'openai/x', ...o } as Any)
  const cr = (o: Record<string, unknown>) => () => createContextRelevanceScorer({ model: 'openai/x', ...o } as Any)
  const rg = (o: Record<string, unknown>) => () => createResponseGroundednessScorer({ model: 'openai/x', ...o } as Any)
  it.each([
    ['FC unknown mode', fc({ mode: 'f2' }), /mode must be 'f1' \| 'precision' \| 'recall'; got 'f2'/],
    ['FC atomicity medium', fc({ atomicity: 'medium' }), /atomicity must be 'low' \| 'high'; got 'medium'/],
    ['FC coverage full (nested)', fc({ options: { coverage: 'full' } }), /options.options.coverage must be 'low' \| 'high'/],
    ['FC beta 0', fc({ beta: 0 }), /options.beta must be a number at least 0.001 and at most 1000; got 0/],
    ['FC beta -1', fc({ beta: -1 }), /at least 0.001/],
    ['FC beta "x"', fc({ beta: 'x' }), /beta must be a number; got string/],
    ['FC beta NaN', fc({ beta: NaN }), /finite/],
    ['FC llmReason "yes"', fc({ llmReason: 'yes' }), /llmReason must be a boolean/],
    ['AA maxRetries 0', aa({ maxRetries: 0 }), /maxRetries must be an integer from 1 to 20; got 0/],
    ['AA maxRetries 2.5', aa({ maxRetries: 2.5 }), /maxRetries must be an integer from 1 to 20; got 2.5/],
    ['AA maxRetries "3"', aa({ options: { maxRetries: '3' } }), /options.options.maxRetries must be an integer/],
    ['CR maxRetries 0', cr({ maxRetries: 0 }), /maxRetries/],
    ['RG maxRetries 2.5', rg({ maxRetries: 2.5 }), /maxRetries/],
    ["CR context 'text'", cr({ context: 'text' }), /options.context must be an array of strings; got string/],
    ['CR context [1,2]', cr({ context: [1, 2] }), /options.context\[0\] must be a string; got number/],
    ["RG context 'text'", rg({ context: 'text' }), /options.context must be an array of strings/],
    ['RG context [1,2] (nested)', rg({ options: { context: [1, 2] } }), /options.options.context\[0\] must be a string/],
    ["CR contextExtractor 'fn'", cr({ contextExtractor: 'fn' }), /contextExtractor must be a function/],
    ["RG contextExtractor 'fn'", rg({ contextExtractor: 'fn' }), /contextExtractor must be a function/],
  ])('%s', (_k, create, re) => {
    let thrown: Any
    try {
      create()
    } catch (e) {
      thrown = e
    }
    expect(thrown).toBeInstanceOf(TypeError)
    expect(thrown.code).toBe('OXEVAL_INVALID_OPTIONS')
    expect(thrown.message).toMatch(re)
  })

  it('valid option combinations create scorers', () => {
    expect(fc({ mode: 'recall', beta: 0.25, atomicity: 'high', coverage: 'high', llmReason: false })().id).toBe('factual-correctness-scorer')
    expect(aa({ maxRetries: 1 })().id).toBe('answer-accuracy-scorer')
    expect(cr({ context: [], contextExtractor: () => [] })().id).toBe('nv-context-relevance-scorer')
    expect(rg({ options: { context: ['a'], maxRetries: 9 } })().id).toBe('response-groundedness-scorer')
  })
})

describe('run input errors are TypeErrors with no request', () => {
  it.each([
    ['FC without groundTruth', () => fcScorer(), { input: 'q', output: 'Paris.' }, /reference \(run.groundTruth\) is missing/],
    ['FC blank groundTruth', () => fcScorer(), { input: 'q', output: 'Paris.', groundTruth: '   ' }, /reference \(run.groundTruth\) is missing/],
    ['FC numeric groundTruth', () => fcScorer(), { input: 'q', output: 'Paris.', groundTruth: 42 }, /run.groundTruth must be the reference text/],
    ['FC empty output', () => fcScorer(), { input: 'q', output: '', groundTruth: 'Paris.' }, /response is missing/],
    ['FC blank output', () => fcScorer(), { input: 'q', output: '  ', groundTruth: 'Paris.' }, /response is missing/],
    ['FC user-only output', () => fcScorer(), { input: 'q', output: [{ role: 'user', content: 'hi' }], groundTruth: 'Paris.' }, /response is missing/],
    ['AA empty output', () => aaScorer(), { input: 'q', output: '', groundTruth: 'Paris' }, /response is missing/],
    ['AA missing input', () => aaScorer(), { output: 'Paris', groundTruth: 'Paris' }, /user input is missing/],
    ['AA blank input', () => aaScorer(), { input: '  ', output: 'Paris', groundTruth: 'Paris' }, /user input is missing/],
    ['AA missing groundTruth', () => aaScorer(), { input: 'q', output: 'Paris' }, /reference \(run.groundTruth\) is missing/],
    ['AA blank groundTruth', () => aaScorer(), { input: 'q', output: 'Paris', groundTruth: ' ' }, /reference \(run.groundTruth\) is missing/],
    ['CR empty input', () => crScorer(), { input: '', output: 'x', context: ['c'] }, /user input is missing/],
    ['CR missing input', () => crScorer(), { output: 'x', context: ['c'] }, /user input is missing/],
    ['RG empty output', () => rgScorer(), { output: '', context: ['c'] }, /response is missing/],
  ])('%s', async (_k, make, run, re) => {
    const err = await rejection(make().run(run as Any))
    expect(err).toBeInstanceOf(TypeError)
    expect(err.code).toBe('OXEVAL_INVALID_INPUT')
    expect(err.message).toMatch(re)
    expect(server.requests).toHaveLength(0)
  })
})

// ---------------------------------------------------------------------------------------
// 8. atomicity × coverage

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

// ---------------------------------------------------------------------------------------
// Regressions: bugs these tests found (now fixed); each states the documented behaviour

describe('regressions', () => {
  // Was a bug: the facade runs contextExtractor (index.js, Scorer.run → #prepare) before it wires
  // the AbortSignal to the native CancelHandle, and the listener is added after the signal has
  // already fired, so an abort during extraction is lost: the run goes on, calls both judges
  // and resolves with a score. index.d.ts: "signal: Cancels the run ... the promise rejects
  // with an AbortError".
  it('an abort while contextExtractor runs rejects with AbortError and makes no request', async () => {
    server.on(isNv012, rating(2))
    const ac = new AbortController()
    const s = rgScorer({
      contextExtractor: async () => {
        ac.abort()
        await new Promise((res) => setTimeout(res, 5))
        return ['Paris is in France.']
      },
    })
    const outcome = await s.run({ output: 'Paris is in France.' }, { signal: ac.signal }).then(
      (r) => ({ resolved: r.score }),
      (e) => e,
    )
    expect(server.requests).toHaveLength(0) // today: 2 judge requests
    expect(outcome).toBeInstanceOf(AbortError) // today: resolves with { score: 1 }
  })

  // Was a bug: same root cause: deadlineMs ("Overall deadline for the whole run") only starts when
  // the native run starts, so time spent in contextExtractor is not counted: a run with
  // deadlineMs 30 whose extractor takes 150 ms resolves with a score after ~150 ms.
  it('deadlineMs also bounds the time spent in contextExtractor', async () => {
    server.on(isNv012, rating(2))
    const s = rgScorer({
      contextExtractor: async () => {
        await new Promise((res) => setTimeout(res, 150))
        return ['Paris is in France.']
      },
    })
    const outcome = await s.run({ output: 'Paris is in France.' }, { deadlineMs: 30 }).then(
      (r) => ({ resolved: r.score }),
      (e) => e,
    )
    expect(outcome).toBeInstanceOf(ScorerRunError) // today: resolves with { score: 1 }
    expect(outcome.code).toBe('OXEVAL_DEADLINE')
  })

  // Was a bug: a contextExtractor failure builds its partial result from run.runId only, so a run
  // without a runId gets `result.runId === undefined`, while every other failure (and
  // index.d.ts: `result: ... & { runId: string }`) carries a generated id.
  it('a contextExtractor failure result has a string runId when the run has none', async () => {
    const err = await rejection(
      crScorer({
        contextExtractor: () => {
          throw new Error('down')
        },
      }).run({ input: 'q', output: 'a' }),
    )
    expect(err).toBeInstanceOf(ScorerRunError)
    expect(typeof err.result.runId).toBe('string') // today: undefined
  })

  // Was a bug (core, nvidia/mod.rs + engine): when the run's deadline passes, each judge's first
  // attempt fails with OXEVAL_JUDGE_TIMEOUT (its HTTP timeout was capped to the remaining
  // deadline; message "the run's deadline passed before the judge answered"), is retried
  // (JUDGE_TIMEOUT is not final), and the retry fails with OXEVAL_DEADLINE. The mixed codes
  // defeat the "shared code" rule, so an expired deadline is reported as
  // OXEVAL_NO_VALID_JUDGMENT (as if the judges had answered badly) instead of OXEVAL_DEADLINE.
  it('an expired deadline on both NVIDIA judges is reported as OXEVAL_DEADLINE', async () => {
    server.on(isAa1, { ...rating(4), delayMs: 200 })
    server.on(isAa2, { ...rating(4), delayMs: 200 })
    const err = await rejection(aaScorer().run(AA_RUN, { deadlineMs: 50 }))
    expect(err).toBeInstanceOf(ScorerRunError)
    expect(err.failedStep).toBe('analyze')
    expect(err.code).toBe('OXEVAL_DEADLINE') // today: OXEVAL_NO_VALID_JUDGMENT
  })
})
