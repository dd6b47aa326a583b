// createContextRecallScorer through the real addon over HTTP: identity, options (both forms,
// defaults, ranges), context sources incl. contextExtractor, the missing-context and
// missing-groundTruth TypeErrors, result keys, faults on one judge call, verdict-count mismatch.
import { describe, expect, it } from 'vitest'
import { data, failure, isFallback, oxeval, rejectedBecause, scorerBuilder, thrownBy, useJudgeServer, type Any } from './helpers/setup'
import { expectFailedAt, expectRecovered, script, settle, STEP_KEYS, type StepRoute } from './helpers/mastra-rag'

const { createContextRecallScorer, ScorerRunError } = oxeval

const server = useJudgeServer({ hangMs: 3000 })
const recall = scorerBuilder(server, createContextRecallScorer, { tag: 'cr' })

const CONTEXT = ['Marie Curie was born in Warsaw in 1867.', 'She shared the 1903 Nobel Prize in Physics.']
const TRUTH = 'Marie Curie was born in Warsaw in 1867 and won the Nobel Prize in Chemistry in 1911.'
const CLAIMS = ['Marie Curie was born in Warsaw.', 'Marie Curie was born in 1867.', 'Marie Curie won the Nobel Prize in Chemistry in 1911.']
const ROUTES = (verdicts: string[] = ['yes', 'yes', 'no'], claims = CLAIMS): Record<string, StepRoute> => ({
  preprocess: { schema: 'context_recall_claims', reply: { json: { claims } } },
  analyze: { schema: 'context_recall_verdicts', reply: { json: { verdicts: verdicts.map((verdict, i) => ({ verdict, reason: `r${i}` })) } } },
  generateReason: { phrase: 'explain a context recall score', reply: { content: 'The score is 0.67 because two claims are covered.' } },
})
const RUN = { input: 'Tell me about Marie Curie.', output: 'She was a physicist.', groundTruth: TRUTH, context: CONTEXT }

describe('identity', () => {
  it('id, name, type, judge and steps', () => {
    const s = recall()
    expect([s.id, s.name, s.type]).toEqual(['context-recall-scorer', 'Context Recall Scorer', 'agent'])
    expect(s.getSteps().map((x) => [x.name, x.type])).toEqual([
      ['preprocess', 'prompt'],
      ['analyze', 'prompt'],
      ['generateScore', 'function'],
      ['generateReason', 'prompt'],
    ])
  })
})

describe('run', () => {
  it('the share of ground-truth claims the context supports; step results, prompts and keys', async () => {
    script(server, ROUTES(['yes', 'YES ', 'no']))
    const run = { ...RUN, runId: 'cr-1' }
    const r: Any = await recall().run(run)
    expect(r.score).toBe(0.67)
    expect(r.preprocessStepResult).toEqual({ claims: CLAIMS })
    expect(r.analyzeStepResult.verdicts.map((v: Any) => v.verdict)).toEqual(['yes', 'yes', 'no'])
    expect(Object.keys(r)).toEqual([...Object.keys(run), ...STEP_KEYS, 'judge'])
    expect(data(server.requests[0])).toEqual({ ground_truth: TRUTH })
    expect(data(server.requests[1])).toEqual({ context: CONTEXT, claims: CLAIMS })
    expect(data(server.requests[2])).toMatchObject({ ground_truth: TRUTH, context: CONTEXT, score: 0.67, scale: 1 })
  })

  it('a message groundTruth is read as its text', async () => {
    script(server, ROUTES())
    await recall().run({ ...RUN, groundTruth: { role: 'assistant', content: TRUTH } })
    expect(data(server.requests[0])).toEqual({ ground_truth: TRUTH })
  })

  it('no claims: score 0 and no analyze call', async () => {
    script(server, ROUTES([], []))
    const r: Any = await recall().run(RUN)
    expect(r.score).toBe(0)
    expect(r.analyzeStepResult).toEqual({ verdicts: [] })
    expect(Object.keys(r.judge)).toEqual(['preprocess', 'generateReason'])
  })
})

describe('options', () => {
  it.each([
    ['top-level', { scale: 10 }, 6.67],
    ['under options (Mastra)', { options: { scale: 10 } }, 6.67],
    ['defaults', {}, 0.67],
  ])('scale %s', async (_k, extra, want) => {
    script(server, ROUTES())
    expect((await recall(extra).run(RUN)).score).toBe(want)
  })

  it.each([
    [{ scale: 0 }, 'options.scale must be a number greater than 0 and at most 1000000; got 0'],
    [{ options: { scale: -3 } }, 'options.options.scale must be a number greater than 0'],
    [{ options: { context: [] } }, 'options.context must not be empty when given'],
    [{ context: 'c' }, 'options.context must be an array of strings; got string'],
    [{ contextExtractor: 3 }, 'options.contextExtractor must be a function'],
  ])('%j is a TypeError at the factory', (extra, message) => {
    const e = thrownBy(() => recall(extra))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.code).toBe('OXEVAL_INVALID_OPTIONS')
    expect(e.message).toContain(message)
  })
})

describe('inputs and context', () => {
  it('contextExtractor(input, output) when the run has no context; the option without either', async () => {
    script(server, ROUTES())
    const seen: unknown[] = []
    const { context: _c, ...noContext } = RUN
    await recall({ contextExtractor: (i: unknown, o: unknown) => (seen.push(i, o), ['from extractor']) }).run(noContext)
    expect(seen).toEqual([RUN.input, RUN.output])
    expect(data(server.requests[1]).context).toEqual(['from extractor'])
    await recall({ context: ['from option'] }).run(noContext)
    expect(data(server.requests[4]).context).toEqual(['from option'])
  })

  it.each([
    ['no groundTruth', { ...RUN, groundTruth: undefined }, 'context-recall-scorer: the ground truth is missing: pass the reference answer as run.groundTruth'],
    ['a blank groundTruth', { ...RUN, groundTruth: '  ' }, 'the ground truth is missing'],
    ['no context', { ...RUN, context: undefined }, 'context-recall-scorer: there are no retrieved context pieces to check the ground truth against (the tool results in run.output gave none)'],
    ['an empty run.context', { ...RUN, context: [] }, '(run.context gave none)'],
  ])('%s is a TypeError before any judge call', async (_k, run, message) => {
    const e = await failure(recall().run(run))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.code).toBe('OXEVAL_INVALID_INPUT')
    expect(e.message).toContain(message)
    expect(server.requests).toHaveLength(0)
  })
})

describe('faults on one judge call', () => {
  const s = () => recall({}, { maxRetries: 1, timeoutMs: 300 })

  it.each(['preprocess', 'analyze', 'generateReason'])('a transient reset on %s is retried', async (step) => {
    script(server, ROUTES(), { step, reply: { fault: 'reset' }, persistent: false })
    const r: Any = await s().run(RUN)
    expect(r.score).toBe(0.67)
    expectRecovered(r, step)
  })

  it('a persistent 500 on analyze fails the step and keeps the claims', async () => {
    script(server, ROUTES(), { step: 'analyze', reply: { status: 500 }, persistent: true })
    const { error } = await settle(s().run(RUN))
    expectFailedAt(error, ScorerRunError, 'analyze', ['preprocess'], 'OXEVAL_JUDGE_HTTP')
    expect(error.result.preprocessStepResult).toEqual({ claims: CLAIMS })
  })

  it('a persistent empty reply on preprocess: an output error', async () => {
    script(server, ROUTES(), { step: 'preprocess', reply: { fault: 'empty' }, persistent: true })
    const { error } = await settle(s().run(RUN))
    expectFailedAt(error, ScorerRunError, 'preprocess', [], 'OXEVAL_JUDGE_OUTPUT')
    expect(error.result.judge.preprocess.executions[0].attemptCount).toBe(2)
  })
})

describe('verdict count and labels', () => {
  it('one verdict for three claims: fallback told, then a warning; the score divides by the claims (Mastra)', async () => {
    script(server, ROUTES(['yes']))
    const r: Any = await recall().run(RUN)
    const analyze = server.requests.filter((q) => q.user.includes('can be attributed to the context'))
    expect(analyze).toHaveLength(2)
    expect(isFallback(analyze[1])).toBe(true)
    expect(rejectedBecause(analyze[1])).toContain('1 verdict for 3 claims')
    expect(r.warnings).toEqual(['analyze: 1 verdict for 3 claims'])
    expect(r.score).toBe(0.33)
  })

  it('a label outside yes/no: fallback, then recorded as no with a warning', async () => {
    script(server, ROUTES(['yes', 'partially', 'yes']))
    const r: Any = await recall().run(RUN)
    expect(r.analyzeStepResult.verdicts.map((v: Any) => v.verdict)).toEqual(['yes', 'no', 'yes'])
    expect(r.warnings).toEqual(['analyze: verdict 2 ("partially") is not yes or no (counted as no)'])
    expect(r.score).toBe(0.67)
  })
})
