// createHallucinationScorer through the real addon over HTTP: identity, options (both forms,
// defaults, ranges), context sources incl. getContext (called per step under the run's
// deadline and signal), the missing-context TypeError, result keys, faults on one judge call,
// verdict-count mismatch.
import { describe, expect, it } from 'vitest'
import { data, failure, isFallback, oxeval, rejectedBecause, scorerBuilder, thrownBy, useJudgeServer, type Any } from './helpers/setup'
import { expectFailedAt, expectRecovered, script, settle, STEP_KEYS, type StepRoute } from './helpers/mastra-rag'

const { createHallucinationScorer, ScorerRunError, AbortError } = oxeval

const server = useJudgeServer({ hangMs: 3000 })
const hallucination = scorerBuilder(server, createHallucinationScorer, { tag: 'hall' })

const CONTEXT = ['The museum opened in March 1998.', 'It receives about 1.2 million visitors a year.']
const OUTPUT = "The museum opened in 1998. It is the city's leading attraction."
const CLAIMS = ['The museum opened in 1998.', "The museum is the city's leading attraction."]
const ROUTES = (verdicts: string[] = ['no', 'yes']): Record<string, StepRoute> => ({
  preprocess: { schema: 'hallucination_claims', reply: { json: { claims: CLAIMS } } },
  analyze: { schema: 'hallucination_verdicts', reply: { json: { verdicts: verdicts.map((verdict, i) => ({ statement: CLAIMS[i] ?? `c${i}`, verdict, reason: `r${i}` })) } } },
  generateReason: { phrase: 'explain a hallucination score', reply: { content: 'The score is 0.5 because one claim is unsupported.' } },
})
const ANALYZE_PHRASE = 'decide whether it is a hallucination'

describe('identity', () => {
  it('id, name, type, judge and steps', () => {
    const s = hallucination({ context: CONTEXT })
    expect([s.id, s.name, s.type]).toEqual(['hallucination-scorer', 'Hallucination Scorer', 'agent'])
    expect(s.judge?.instructions).toMatch(/hallucination/)
    expect(s.getSteps().map((x) => [x.name, x.type])).toEqual([
      ['preprocess', 'prompt'],
      ['analyze', 'prompt'],
      ['generateScore', 'function'],
      ['generateReason', 'prompt'],
    ])
  })
})

describe('run', () => {
  it('scores the share of hallucinated claims; step results and keys are Mastra’s', async () => {
    script(server, ROUTES(['no', ' Yes ']))
    const run = { input: 'Tell me about the museum.', output: OUTPUT, context: CONTEXT, runId: 'h-1' }
    const r: Any = await hallucination().run(run)
    expect(r.score).toBe(0.5)
    expect(r.preprocessStepResult).toEqual({ claims: CLAIMS })
    expect(r.analyzeStepResult).toEqual({
      verdicts: [
        { statement: CLAIMS[0], verdict: 'no', reason: 'r0' },
        { statement: CLAIMS[1], verdict: 'yes', reason: 'r1' },
      ],
    })
    expect(Object.keys(r)).toEqual([...Object.keys(run), ...STEP_KEYS, 'judge'])
    expect(data(server.requests[1])).toEqual({ context: CONTEXT, claims: CLAIMS })
    expect(data(server.requests[2])).toMatchObject({ context: CONTEXT, input: 'Tell me about the museum.', score: 0.5, scale: 1 })
  })

  it('empty output: score 0, no judge call, getContext not called', async () => {
    let calls = 0
    const r: Any = await hallucination({ getContext: () => (calls++, CONTEXT) }).run({ output: '' })
    expect([r.score, calls, server.requests.length]).toEqual([0, 0, 0])
    expect(r.analyzeStepResult).toEqual({ verdicts: [] })
  })
})

describe('options', () => {
  it.each([
    ['top-level', { scale: 10, context: CONTEXT }, 5],
    ['under options (Mastra)', { options: { scale: 10, context: CONTEXT } }, 5],
    ['defaults', { context: CONTEXT }, 0.5],
  ])('scale %s', async (_k, extra, want) => {
    script(server, ROUTES())
    expect((await hallucination(extra).run({ output: OUTPUT })).score).toBe(want)
  })

  it.each([
    [{ scale: 0 }, 'options.scale must be a number greater than 0 and at most 1000000; got 0'],
    [{ options: { scale: 1e7 } }, 'options.options.scale must be a number greater than 0 and at most 1000000'],
    [{ context: [1] }, 'options.context[0] must be a string; got number'],
    [{ getContext: ['a'] }, 'options.getContext must be a function ({ run, results, score?, step }) => string[] | Promise<string[]>; got array'],
    [{ options: { getContext: 'ctx' } }, 'options.options.getContext must be a function'],
  ])('%j is a TypeError at the factory', (extra, message) => {
    const e = thrownBy(() => hallucination(extra))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.code).toBe('OXEVAL_INVALID_OPTIONS')
    expect(e.message).toContain(message)
  })
})

describe('context', () => {
  it('getContext (Mastra’s options form) is called at analyze and generateReason with the run, the results so far and the step', async () => {
    script(server, ROUTES())
    const calls: Any[] = []
    const getContext = async (params: Any) => {
      calls.push(structuredClone(params))
      return params.step === 'analyze' ? CONTEXT : ['reason context']
    }
    const run = { input: 'q?', output: OUTPUT, runId: 'gc-1', requestContext: { tenant: 't' } }
    const r: Any = await hallucination({ options: { getContext, context: ['ignored'] } }).run(run)
    expect(r.score).toBe(0.5)
    expect(calls.map((c) => c.step)).toEqual(['analyze', 'generateReason'])
    expect(calls[0]).toEqual({ run: { ...run }, results: { preprocessStepResult: { claims: CLAIMS } }, step: 'analyze' })
    expect(calls[1]).toEqual({
      run: { ...run },
      results: { preprocessStepResult: { claims: CLAIMS }, analyzeStepResult: r.analyzeStepResult, generateScoreStepResult: 0.5 },
      score: 0.5,
      step: 'generateReason',
    })
    expect(data(server.requests[1]).context).toEqual(CONTEXT)
    expect(data(server.requests[2]).context).toEqual(['reason context'])
  })

  it('run.context wins over getContext (not called) and the option; the option is used without them', async () => {
    script(server, ROUTES())
    let calls = 0
    await hallucination({ getContext: () => (calls++, ['x']), context: ['opt'] }).run({ output: OUTPUT, context: ['from run'] })
    expect(calls).toBe(0)
    expect(data(server.requests[1]).context).toEqual(['from run'])
    await hallucination({ context: ['opt'] }).run({ output: OUTPUT })
    expect(data(server.requests[4]).context).toEqual(['opt'])
  })

  it('no context anywhere is a TypeError naming where it looked, before any judge call', async () => {
    const e = await failure(hallucination().run({ output: OUTPUT }))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.code).toBe('OXEVAL_INVALID_INPUT')
    expect(e.message).toContain('hallucination-scorer: there is no context to check the output against (the tool results in run.output gave none)')
    expect(e.message).toContain("looked at run.context, the scorer's getContext and context options and the tool results in run.output")
    expect(server.requests).toHaveLength(0)
  })

  it.each([
    ['throws', () => { throw new RangeError('retriever down') }, 'getContext threw: retriever down', 'RangeError'],
    ['rejects', async () => { throw new Error('nope') }, 'getContext threw: nope', 'Error'],
    ['returns a string', () => 'ctx', 'getContext must return an array of strings (or a promise of one); got string', 'Error'],
    ['returns []', () => [], 'getContext returned no context for the analyze step', 'Error'],
    ['returns a cyclic value', () => { const a: Any = []; a.push(a); return a }, 'getContext returned a value that is not JSON-serializable data', 'TypeError'],
  ])('getContext that %s fails the analyze step (OXEVAL_CONTEXT_EXTRACTOR), keeping the claims', async (_k, getContext, message, name) => {
    script(server, ROUTES())
    const e = await failure(hallucination({ getContext }).run({ output: OUTPUT }))
    expect(e).toBeInstanceOf(ScorerRunError)
    expect([e.failedStep, e.code]).toEqual(['analyze', 'OXEVAL_CONTEXT_EXTRACTOR'])
    expect(e.completedSteps).toEqual(['preprocess'])
    expect(e.message).toContain(message)
    if (name !== 'Error') expect(e.cause.name).toBe(name)
    expect(e.result.preprocessStepResult).toEqual({ claims: CLAIMS })
    expect(server.requests).toHaveLength(1)
  })

  it('a getContext that never settles is bounded by deadlineMs; abort() stops it too', async () => {
    script(server, ROUTES())
    const s = hallucination({ getContext: () => new Promise(() => {}) })
    const t0 = Date.now()
    const e = await failure(s.run({ output: OUTPUT }, { deadlineMs: 300 }))
    expect(Date.now() - t0).toBeLessThan(2000)
    expect(e).toBeInstanceOf(ScorerRunError)
    expect([e.failedStep, e.code]).toEqual(['analyze', 'OXEVAL_DEADLINE'])
    const ac = new AbortController()
    const p = s.run({ output: OUTPUT }, { signal: ac.signal })
    setTimeout(() => ac.abort(), 100)
    const a = await failure(p)
    expect(a).toBeInstanceOf(AbortError)
    expect(a.failedStep).toBe('analyze')
  })
})

describe('faults on one judge call', () => {
  const s = () => hallucination({ context: CONTEXT }, { maxRetries: 1, timeoutMs: 300 })

  it.each(['preprocess', 'analyze', 'generateReason'])('a transient 503 on %s is retried', async (step) => {
    script(server, ROUTES(), { step, reply: { status: 503 }, persistent: false })
    const r: Any = await s().run({ output: OUTPUT })
    expect(r.score).toBe(0.5)
    expectRecovered(r, step)
  })

  it('a persistent reset on analyze fails the step and keeps the claims', async () => {
    script(server, ROUTES(), { step: 'analyze', reply: { fault: 'reset' }, persistent: true })
    const { error } = await settle(s().run({ output: OUTPUT }))
    expectFailedAt(error, ScorerRunError, 'analyze', ['preprocess'], 'OXEVAL_JUDGE_NETWORK')
    expect(error.result.preprocessStepResult).toEqual({ claims: CLAIMS })
  })

  it('persistent schema-invalid JSON on analyze: an output error with the raw output kept', async () => {
    script(server, ROUTES(), { step: 'analyze', reply: { json: { unexpected: true } }, persistent: true })
    const { error } = await settle(s().run({ output: OUTPUT }))
    expectFailedAt(error, ScorerRunError, 'analyze', ['preprocess'], 'OXEVAL_JUDGE_OUTPUT')
    expect(error.result.judge.analyze.executions[0].rawOutput).toContain('unexpected')
  })
})

describe('verdict count and labels', () => {
  it('three verdicts for two claims: fallback told, then a warning; Mastra’s formula over the verdicts given', async () => {
    script(server, ROUTES(['yes', 'no', 'yes']))
    const r: Any = await hallucination({ context: CONTEXT }).run({ output: OUTPUT })
    const analyze = server.requests.filter((q) => q.user.includes(ANALYZE_PHRASE))
    expect(analyze).toHaveLength(2)
    expect(isFallback(analyze[1])).toBe(true)
    expect(rejectedBecause(analyze[1])).toContain('3 verdicts for 2 claims')
    expect(r.warnings).toEqual(['analyze: 3 verdicts for 2 claims'])
    expect(r.score).toBe(0.67)
  })

  it('"unsure" is not a hallucination label: fallback, then recorded as no with a warning', async () => {
    script(server, ROUTES(['unsure', 'yes']))
    const r: Any = await hallucination({ context: CONTEXT }).run({ output: OUTPUT })
    expect(r.analyzeStepResult.verdicts.map((v: Any) => v.verdict)).toEqual(['no', 'yes'])
    expect(r.warnings).toEqual(['analyze: verdict 1 ("unsure") is not yes or no (counted as no)'])
    expect(r.score).toBe(0.5)
  })
})
