// Mastra's summarization (createSummarizationScorer, id summarization-scorer) through the real
// addon and the scripted judge server. Decision rules: docs/decision-tables/summarization.md.
import { describe, expect, it } from 'vitest'
import { data, failure, isFallback, oxeval, scorerBuilder, schemaName, thrownBy, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'

const { createSummarizationScorer, ScorerRunError } = oxeval

const server = useJudgeServer()
const make = scorerBuilder(server, createSummarizationScorer, { tag: 'sum' })

const isSource = (req: RecordedRequest) => schemaName(req) === 'summarization_source_judgement'
const isCoverage = (req: RecordedRequest) => schemaName(req) === 'summarization_coverage'
const isReason = (req: RecordedRequest) => req.user.includes('explain a summarization score')

const claim = (c: string, supported: boolean) => ({ claim: c, supported, reason: 'r' })
const cov = (question: string, answered: boolean) => ({ question, answered, reason: 'r' })
function script(alignment: unknown[], questions: string[], answered: boolean[]) {
  server.on(isSource, { json: { alignment, questions } })
  server.on(isCoverage, { json: { coverage: answered.map((a, i) => cov(questions[i] ?? `extra ${i}`, a)) } })
  server.on(isReason, 'The score is X because coverage was weaker.')
}
const SOURCE = 'The bridge opened in 1932. It is 503 m long. It carries a railway.'
const SUMMARY = 'The 503 m bridge opened in 1932.'
const run = { input: SOURCE, output: SUMMARY }
const Qs = ['Did it open in 1932?', 'Is it 503 m long?', 'Does it carry a railway?']

describe('identity', () => {
  it("Mastra's id, name and steps", () => {
    const s = make()
    expect([s.id, s.name, s.type]).toEqual(['summarization-scorer', 'Summarization Scorer', 'agent'])
    expect(s.getSteps().map((x: Any) => [x.name, x.type])).toEqual([
      ['preprocess', 'prompt'],
      ['analyze', 'prompt'],
      ['generateScore', 'function'],
      ['generateReason', 'prompt'],
    ])
  })
})

describe('scoring', () => {
  it('min(alignment, coverage); coverage is judged without the source; result keys as Mastra', async () => {
    script([claim('opened 1932', true), claim('503 m', true)], Qs, [true, true, false])
    const r: Any = await make().run(run)
    expect(r.score).toBe(0.67)
    expect(r.reason).toBe('The score is X because coverage was weaker.')
    expect(Object.keys(r)).toEqual([
      'input', 'output', 'runId', 'score', 'generateScorePrompt', 'reason', 'generateReasonPrompt',
      'preprocessStepResult', 'preprocessPrompt', 'analyzeStepResult', 'analyzePrompt', 'judge',
    ])
    expect(r.preprocessStepResult.questions).toEqual(Qs)
    expect(r.analyzeStepResult.coverage).toHaveLength(3)
    const [src, coverage, reason] = server.requests
    expect(data(src)).toEqual({ source: SOURCE, summary: SUMMARY, maxQuestions: 10 })
    expect(data(coverage)).toEqual({ summary: SUMMARY, questions: Qs })
    expect(coverage.user).not.toContain(SOURCE)
    expect(data(reason)).toMatchObject({ score: 0.67, scale: 1, alignmentScore: 1, coverageScore: 0.67, unsupportedClaims: [], missingQuestions: [Qs[2]] })
  })

  it('alignment as the weaker axis; scale top-level or under options', async () => {
    for (const [opts, want] of [[{}, 0.5], [{ scale: 10 }, 5], [{ options: { scale: 4 } }, 2]] as const) {
      server.reset()
      script([claim('a', true), claim('b', false)], Qs, [true, true, true])
      const r: Any = await make(opts).run(run)
      expect([opts, r.score]).toEqual([opts, want])
      expect(data(server.requests.find(isReason)!).unsupportedClaims).toEqual(['b'])
    }
  })

  it('maxQuestions: only the first questions are asked and count', async () => {
    script([claim('a', true)], Qs, [true, false])
    const r: Any = await make({ options: { maxQuestions: 2 } }).run(run)
    expect(r.score).toBe(0.5)
    expect(data(server.requests[0]).maxQuestions).toBe(2)
    expect(data(server.requests.find(isCoverage)!).questions).toEqual(Qs.slice(0, 2))
    // the judge's full list is kept as it answered
    expect(r.preprocessStepResult.questions).toEqual(Qs)
  })

  it('no claims or no questions: 0; without questions no coverage call', async () => {
    script([], Qs, [true, true, true])
    expect((await make().run(run)).score).toBe(0)
    server.reset()
    script([claim('a', true)], [], [])
    const r: Any = await make().run(run)
    expect(r.score).toBe(0)
    expect(r.analyzeStepResult).toEqual({ coverage: [] })
    expect(server.requests.filter(isCoverage)).toHaveLength(0)
  })

  it('an empty summary scores 0 without a judge call', async () => {
    const r: Any = await make().run({ input: SOURCE, output: '' })
    expect(r.score).toBe(0)
    expect(r.reason).toMatch(/summary is empty/)
    expect(r.judge).toBeUndefined()
    expect(server.requests).toHaveLength(0)
  })

  it('a coverage count that differs from the questions: one fallback, then a warning; missing verdicts count as unanswered', async () => {
    script([claim('a', true)], Qs, [true])
    const r: Any = await make().run(run)
    expect(r.score).toBe(0.33)
    expect(r.warnings).toEqual(['analyze: 1 verdict for 3 questions'])
    expect(server.requests.filter(isCoverage).map(isFallback)).toEqual([false, true])
  })
})

describe('source text', () => {
  it('run.source, then the source option, then the user message', async () => {
    script([claim('a', true)], ['q?'], [true])
    await make({ source: 'from option' }).run({ ...run, source: 'from run' })
    expect(data(server.requests[0]).source).toBe('from run')
    server.reset()
    script([claim('a', true)], ['q?'], [true])
    await make({ options: { source: 'from option' } }).run(run)
    expect(data(server.requests[0]).source).toBe('from option')
  })

  it('no source anywhere: a TypeError, no judge call', async () => {
    const e = await failure(make().run({ output: SUMMARY }))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toMatch(/summarization-scorer: the source text is missing: pass run\.source/)
    const e2 = await failure(make().run({ output: SUMMARY, source: 5 }))
    expect(e2.message).toMatch(/run\.source must be a string/)
    expect(server.requests).toHaveLength(0)
  })

  const agentRun = {
    input: { inputMessages: [{ id: 'u', role: 'user', createdAt: 0, content: 'Summarize the doc.' }], rememberedMessages: [], systemMessages: [], taggedSystemMessages: {} },
    output: [{ id: 'a', role: 'assistant', createdAt: 0, content: SUMMARY }],
  }

  it("Mastra's sourceExtractor (top-level or nested, may be async): its text is the source of an agent run; run.source still wins", async () => {
    for (const opts of [{ sourceExtractor: () => SOURCE }, { options: { sourceExtractor: async () => SOURCE, source: 'not this' } }]) {
      server.reset()
      script([claim('a', true)], ['q?'], [true])
      const r: Any = await make(opts).run(agentRun)
      expect(r.score).toBe(1)
      expect(data(server.requests[0]).source).toBe(SOURCE)
      // the result echoes the run, not the extractor's field
      expect(r).not.toHaveProperty('extractedSource')
    }
    server.reset()
    script([claim('a', true)], ['q?'], [true])
    let calls = 0
    await make({ sourceExtractor: () => (calls++, SOURCE) }).run({ ...agentRun, source: 'from run' })
    expect([data(server.requests[0]).source, calls]).toEqual(['from run', 0])
  })

  it('a sourceExtractor that throws, returns a non-string or never settles fails the run at step sourceExtractor, before any judge call', async () => {
    const e = await failure(make({ sourceExtractor: () => { throw new RangeError('store offline') } }).run(agentRun))
    expect(e).toBeInstanceOf(ScorerRunError)
    expect([e.failedStep, e.code, e.cause?.name]).toEqual(['sourceExtractor', 'OXEVAL_CONTEXT_EXTRACTOR', 'RangeError'])
    expect(e.message).toMatch(/store offline/)
    const e2 = await failure(make({ sourceExtractor: () => 42 }).run(agentRun))
    expect(e2).toBeInstanceOf(TypeError)
    expect(e2.message).toMatch(/the sourceExtractor's result must be a string .*got number/)
    const e3 = await failure(make({ sourceExtractor: () => new Promise(() => {}) }).run(agentRun, { callbackTimeoutMs: 50 }))
    expect([e3.failedStep, e3.code]).toEqual(['sourceExtractor', 'OXEVAL_CONTEXT_EXTRACTOR'])
    expect(e3.message).toMatch(/sourceExtractor did not settle within 50 ms/)
    expect(server.requests).toHaveLength(0)
  })

  it('a sourceExtractor that is not a function is a TypeError at creation; other scorers refuse one', () => {
    const e = thrownBy(() => createSummarizationScorer({ model: 'openai/gpt-4o-mini', sourceExtractor: 'x' } as Any))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toMatch(/options\.sourceExtractor must be a function \(input, output\) => string; got string/)
    const f = thrownBy(() => oxeval.createFaithfulnessScorer({ model: 'openai/gpt-4o-mini', sourceExtractor: () => 'x' } as Any))
    expect(f).toBeInstanceOf(TypeError)
    expect(f.message).toMatch(/sourceExtractor is a callback oxeval does not take/)
  })
})

describe('factory options are TypeErrors at creation', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ maxQuestions: 0 }, /options\.maxQuestions must be an integer from 1 to 100; got 0/],
    [{ options: { maxQuestions: 1.5 } }, /options\.options\.maxQuestions must be an integer from 1 to 100/],
    [{ scale: 0 }, /options\.scale must be a number greater than 0/],
    [{ source: '' }, /options\.source must not be empty/],
    [{ options: { source: ['a'] } }, /options\.options\.source must be a string; got array/],
  ]
  it.each(cases)('%j', (opts, want) => {
    const e = thrownBy(() => createSummarizationScorer({ model: 'openai/gpt-4o-mini', ...opts } as Any))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toMatch(want)
  })
})

describe('faults', () => {
  it('a transient reset on analyze is retried', async () => {
    server.on(isCoverage, { fault: 'reset' }, { times: 1 })
    script([claim('a', true)], ['q?'], [true])
    const r: Any = await make().run(run)
    expect(r.score).toBe(1)
    expect(r.judge.analyze.executions[0]).toMatchObject({ status: 'success', modelCallCount: 2 })
  })

  it('persistent schema-invalid output on preprocess fails there', async () => {
    server.on(isSource, { json: { alignment: 'x' } })
    const e = await failure(make().run(run))
    expect(e).toBeInstanceOf(ScorerRunError)
    expect([e.failedStep, e.completedSteps, e.code]).toEqual(['preprocess', [], 'OXEVAL_JUDGE_OUTPUT'])
    expect(e.result.judge.preprocess.executions[0].attemptCount).toBe(2)
  })

  it('a persistent 429 on analyze keeps the preprocess result', async () => {
    server.on(isCoverage, { status: 429, headers: { 'retry-after': '0' } })
    script([claim('a', true)], ['q?'], [true])
    const e = await failure(make({}, { maxRetries: 1 }).run(run))
    expect([e.failedStep, e.completedSteps, e.code]).toEqual(['analyze', ['preprocess'], 'OXEVAL_JUDGE_HTTP'])
    expect(e.result.preprocessStepResult).toEqual({ alignment: [claim('a', true)], questions: ['q?'] })
  })
})
