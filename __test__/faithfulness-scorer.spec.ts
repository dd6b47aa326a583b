// createFaithfulnessScorer through the real addon over HTTP: identity, options (both forms,
// defaults, ranges), context sources and the missing-context TypeError, result keys, faults on
// one judge call, verdict-count mismatch.
import { describe, expect, it } from 'vitest'
import { data, failure, isFallback, oxeval, rejectedBecause, scorerBuilder, thrownBy, useJudgeServer, type Any } from './helpers/setup'
import { expectFailedAt, expectRecovered, script, settle, STEP_KEYS, type StepRoute } from './helpers/mastra-rag'

const { createFaithfulnessScorer, ScorerRunError } = oxeval

const server = useJudgeServer({ hangMs: 3000 })
const faithfulness = scorerBuilder(server, createFaithfulnessScorer, { tag: 'faith' })

const CONTEXT = ['Paris is the capital of France.', 'Paris has about 2.1 million inhabitants.']
const OUTPUT = 'Paris is the capital of France. It has 9 million inhabitants.'
const ROUTES = (verdicts: string[] = ['yes', 'no']): Record<string, StepRoute> => ({
  preprocess: { schema: 'faithfulness_claims', reply: { json: { claims: ['Paris is the capital of France.', 'Paris has 9 million inhabitants.'] } } },
  analyze: { schema: 'faithfulness_verdicts', reply: { json: { verdicts: verdicts.map((verdict, i) => ({ verdict, reason: `r${i}` })) } } },
  generateReason: { phrase: 'explain a faithfulness score', reply: { content: 'The score is 0.5 because one claim is supported.' } },
})

describe('identity', () => {
  it('id, name, type, judge and steps', () => {
    const s = faithfulness()
    expect([s.id, s.name, s.type]).toEqual(['faithfulness-scorer', 'Faithfulness Scorer', 'agent'])
    expect(s.description).toMatch(/faithful/)
    expect(s.judge?.instructions).toMatch(/faithfulness/)
    expect(s.getSteps().map((x) => [x.name, x.type])).toEqual([
      ['preprocess', 'prompt'],
      ['analyze', 'prompt'],
      ['generateScore', 'function'],
      ['generateReason', 'prompt'],
    ])
  })
})

describe('run', () => {
  it('scores the share of supported claims; the step results, prompts and keys are Mastra’s', async () => {
    script(server, ROUTES(['Yes', 'no']))
    const run = { input: 'Tell me about Paris.', output: OUTPUT, context: CONTEXT, runId: 'f-1', extra: 1 }
    const r: Any = await faithfulness().run(run)
    expect(r.score).toBe(0.5)
    expect(r.reason).toBe('The score is 0.5 because one claim is supported.')
    expect(r.preprocessStepResult).toEqual({ claims: ['Paris is the capital of France.', 'Paris has 9 million inhabitants.'] })
    // labels are recorded trimmed and lowercased
    expect(r.analyzeStepResult).toEqual({ verdicts: [{ verdict: 'yes', reason: 'r0' }, { verdict: 'no', reason: 'r1' }] })
    expect(Object.keys(r)).toEqual([...Object.keys(run), ...STEP_KEYS, 'judge'])
    expect(Object.keys(r.judge)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(r.generateScorePrompt).toBeUndefined()
    const [pre, an, reason] = server.requests
    expect(data(pre)).toEqual({ output: OUTPUT })
    expect(data(an)).toEqual({ context: CONTEXT, claims: r.preprocessStepResult.claims })
    expect(data(reason)).toMatchObject({ context: CONTEXT, input: 'Tell me about Paris.', output: OUTPUT, score: 0.5, scale: 1 })
  })

  it('empty output: score 0, Mastra’s empty step results, no judge call', async () => {
    const r: Any = await faithfulness().run({ output: '  ', context: CONTEXT })
    expect(r.score).toBe(0)
    expect(r.preprocessStepResult).toEqual({ claims: [] })
    expect(r.analyzeStepResult).toEqual({ verdicts: [] })
    expect(r.reason).toMatch(/^The score is 0 because the output is empty/)
    expect(r.judge).toBeUndefined()
    expect(server.requests).toHaveLength(0)
  })

  it('no claims: score 0 and no analyze call', async () => {
    const routes = ROUTES()
    routes.preprocess.reply = { json: { claims: [] } }
    script(server, routes)
    const r: Any = await faithfulness().run({ output: 'Hello!', context: CONTEXT })
    expect(r.score).toBe(0)
    expect(r.analyzeStepResult).toEqual({ verdicts: [] })
    expect(Object.keys(r.judge)).toEqual(['preprocess', 'generateReason'])
  })
})

describe('options', () => {
  it.each([
    ['top-level', { scale: 10 }, 5],
    ['under options (Mastra)', { options: { scale: 10 } }, 5],
    ['top-level wins', { scale: 2, options: { scale: 10 } }, 1],
    ['defaults', {}, 0.5],
    ['options without scale keeps the default (Mastra would too: scale || 1)', { options: { context: CONTEXT } }, 0.5],
  ])('scale %s', async (_k, extra, want) => {
    script(server, ROUTES())
    const r: Any = await faithfulness(extra).run({ output: OUTPUT, context: CONTEXT })
    expect(r.score).toBe(want)
  })

  it.each([
    [{ scale: 0 }, "options.scale must be a number greater than 0 and at most 1000000; got 0"],
    [{ scale: -1 }, 'options.scale must be a number greater than 0'],
    [{ options: { scale: 2e6 } }, 'options.options.scale must be a number greater than 0 and at most 1000000'],
    [{ scale: '2' }, 'options.scale must be a number'],
    [{ scale: Number.NaN }, 'numbers must be finite'],
    [{ context: 'Paris' }, 'options.context must be an array of strings; got string'],
    [{ options: { context: [1] } }, 'options.options.context[0] must be a string; got number'],
  ])('%j is a TypeError at the factory', (extra, message) => {
    const e = thrownBy(() => faithfulness(extra))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.code).toBe('OXEVAL_INVALID_OPTIONS')
    expect(e.message).toContain(message)
  })
})

describe('context', () => {
  const toolOutput = [
    {
      role: 'assistant',
      content: {
        format: 2,
        parts: [
          { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 't1', toolName: 'search', args: {}, result: 'Paris is the capital of France.' } },
          { type: 'text', text: OUTPUT },
        ],
      },
    },
  ]

  it.each([
    ['run.context wins over the option', { context: ['from option'] }, { output: OUTPUT, context: ['from run'] }, ['from run']],
    ['the context option (top-level)', { context: ['from option'] }, { output: OUTPUT }, ['from option']],
    ['the context option (Mastra’s options form)', { options: { context: ['from option'] } }, { output: OUTPUT }, ['from option']],
    ['tool results in the output', {}, { output: toolOutput }, ['Paris is the capital of France.']],
  ])('%s', async (_k, extra, run, want) => {
    script(server, ROUTES())
    await faithfulness(extra).run(run)
    expect(data(server.requests[1]).context).toEqual(want)
  })

  it.each([
    ['no source at all', {}, { output: OUTPUT }, 'the tool results in run.output gave none'],
    ['an empty run.context', { context: ['ignored'] }, { output: OUTPUT, context: [] }, 'run.context gave none'],
    ['an empty context option', { context: [] }, { output: OUTPUT }, "the scorer's context option gave none"],
  ])('%s is a TypeError naming where it looked, before any judge call', async (_k, extra, run, where) => {
    const e = await failure(faithfulness(extra).run(run))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.code).toBe('OXEVAL_INVALID_INPUT')
    expect(e.message).toContain('faithfulness-scorer: there is no context to check the output against')
    expect(e.message).toContain(where)
    expect(e.message).toContain("looked at run.context, the scorer's context option and the tool results in run.output")
    expect(server.requests).toHaveLength(0)
  })

  it('a wrong run.context type is a TypeError', async () => {
    const e = await failure(faithfulness().run({ output: OUTPUT, context: 'Paris' }))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toBe('run.context must be an array of strings; got string')
  })
})

describe('faults on one judge call', () => {
  const s = () => faithfulness({}, { maxRetries: 1, timeoutMs: 300 })
  const run = { output: OUTPUT, context: CONTEXT }

  it.each(['preprocess', 'analyze', 'generateReason'])('a transient 500 on %s is retried', async (step) => {
    script(server, ROUTES(), { step, reply: { status: 500 }, persistent: false })
    const r: Any = await s().run(run)
    expect(r.score).toBe(0.5)
    expectRecovered(r, step)
  })

  it('a persistent 500 on analyze fails the step and keeps the claims', async () => {
    script(server, ROUTES(), { step: 'analyze', reply: { status: 500 }, persistent: true })
    const { error } = await settle(s().run(run))
    expectFailedAt(error, ScorerRunError, 'analyze', ['preprocess'], 'OXEVAL_JUDGE_HTTP')
    expect(error.result.preprocessStepResult.claims).toHaveLength(2)
    expect(error.result.judge.analyze.executions[0].modelCallCount).toBe(2)
  })

  it('a persistent hang on generateReason fails it with the score kept', async () => {
    script(server, ROUTES(), { step: 'generateReason', reply: { fault: 'hang' }, persistent: true })
    const { error } = await settle(s().run(run))
    expectFailedAt(error, ScorerRunError, 'generateReason', ['preprocess', 'analyze', 'generateScore'], 'OXEVAL_JUDGE_TIMEOUT')
    expect(error.result.score).toBe(0.5)
  })

  it('persistent invalid JSON on preprocess: an output error with the raw output kept', async () => {
    script(server, ROUTES(), { step: 'preprocess', reply: { content: 'I cannot do that.' }, persistent: true })
    const { error } = await settle(s().run(run))
    expectFailedAt(error, ScorerRunError, 'preprocess', [], 'OXEVAL_JUDGE_OUTPUT')
    expect(error.result.judge.preprocess.executions[0].attemptCount).toBe(2)
    expect(error.result.judge.preprocess.executions[0].rawOutput).toContain('I cannot do that.')
  })
})

describe('verdict count and labels', () => {
  it('one verdict for two claims: the fallback is told, then a warning; Mastra’s formula over the verdicts given', async () => {
    script(server, ROUTES(['yes']))
    const r: Any = await faithfulness().run({ output: OUTPUT, context: CONTEXT })
    const analyze = server.requests.filter((q) => q.user.includes('decide whether the context supports it'))
    expect(analyze).toHaveLength(2)
    expect(isFallback(analyze[1])).toBe(true)
    expect(rejectedBecause(analyze[1])).toContain('1 verdict for 2 claims')
    expect(r.judge.analyze.executions[0].attemptCount).toBe(2)
    expect(r.warnings).toEqual(['analyze: 1 verdict for 2 claims'])
    expect(r.score).toBe(1)
  })

  it('a label outside yes/no/unsure: fallback, then recorded as unsure with a warning', async () => {
    script(server, ROUTES(['yes', 'partly']))
    const r: Any = await faithfulness().run({ output: OUTPUT, context: CONTEXT })
    expect(r.analyzeStepResult.verdicts.map((v: Any) => v.verdict)).toEqual(['yes', 'unsure'])
    expect(r.warnings).toEqual(['analyze: verdict 2 ("partly") is not yes, no, or unsure (counted as unsure)'])
    expect(r.score).toBe(0.5)
  })

  it('a fallback that fixes the count is accepted without a warning', async () => {
    const routes = ROUTES()
    server.on((q) => q.user.includes('decide whether the context supports it') && !isFallback(q), { json: { verdicts: [{ verdict: 'yes', reason: 'r' }] } }, { times: 1 })
    script(server, routes)
    const r: Any = await faithfulness().run({ output: OUTPUT, context: CONTEXT })
    expect(r.warnings).toBeUndefined()
    expect(r.analyzeStepResult.verdicts).toHaveLength(2)
    expect(r.score).toBe(0.5)
  })
})
