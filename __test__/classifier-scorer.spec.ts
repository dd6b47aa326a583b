// createClassifierScorer (@mastra/core 1.71's classifier scorer, id classifier-scorer) through
// the real addon: answered by an oxeval judge (the scripted judge server, stated probabilities)
// or by an evaluation model (`doEvaluate`) through the host channel. Bad input: a TypeError at
// the factory, or a ScorerRunError naming the step, never a silent 0.
import { describe, expect, it } from 'vitest'
import { heuristicJudge } from '../testing/judge-server.mjs'
import { valueLogprobs } from '../testing/wire/logprobs.mjs'
import { data, failure, oxeval, schemaName, scorerBuilder, thrownBy, uniqueModelId, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'

const { createClassifierScorer, ScorerRunError } = oxeval as Any

const server = useJudgeServer()
const make = scorerBuilder(server, createClassifierScorer, { tag: 'classifier' })

const questions = {
  tone: { type: 'choice', instructions: 'Which tone does the reply take?', criteria: { calm: 'measured, no heat', angry: 'hostile or heated', mixed: null } },
  quality: { type: 'score', criteria: ['poor', 'fair', 'good'] },
  safe: { type: 'boolean', instructions: 'Is the reply safe to show?' },
}
const classifier = { id: 'reply-classifier', questions }
const state = ({ run }: Any) => ({ reply: run.output })
const scores = { calm: 1, angry: 0, mixed: 0.5 }
const isAnswer = (req: RecordedRequest) => schemaName(req) === 'classifier_answer'
const stated = (answer: string, ps: Record<string, number>) =>
  server.on(isAnswer, { json: { answer, probabilities: Object.entries(ps).map(([label, probability]) => ({ label, probability })) } })

describe('identity', () => {
  it("the id given, Mastra's default description, three steps", () => {
    const s: Any = make({ id: 'tone-check', classifier, question: 'tone', state, scores })
    expect([s.id, s.type, s.description]).toEqual(['tone-check', undefined, "Scores question 'tone' with a configured classifier"])
    expect(s.getSteps().map((x: Any) => [x.name, x.type])).toEqual([
      ['analyze', 'prompt'],
      ['generateScore', 'function'],
      ['generateReason', 'function'],
    ])
  })
})

describe('an oxeval judge answers (stated probabilities)', () => {
  it('choice: the configured score of the choice, the distribution as evidence, one judge call', async () => {
    stated('mixed', { calm: 0.3, angry: 0.2, mixed: 0.5 })
    const r: Any = await make({ classifier, question: 'tone', state, scores }).run({ input: 'hi', output: 'Fine. Whatever.' })
    expect(r.score).toBe(0.5)
    expect(r.reason).toBe("Classifier question 'tone' selected 'mixed' (score: 0.5).")
    expect(server.requests).toHaveLength(1)
    expect(data(server.requests[0])).toEqual({
      question: 'Which tone does the reply take?',
      kind: 'choice',
      labels: [{ label: 'calm', meaning: 'measured, no heat' }, { label: 'angry', meaning: 'hostile or heated' }, { label: 'mixed', meaning: null }],
      state: { reply: 'Fine. Whatever.' },
    })
    const e = r.analyzeStepResult
    expect(e.question).toBe('tone')
    expect(e.answer).toEqual({ type: 'choice', choice: 'mixed', probabilities: { calm: 0.3, angry: 0.2, mixed: 0.5 } })
    expect(e.probabilitySource).toBe('stated')
    expect(e.rounding).toEqual({ probabilityDecimals: 2 })
    expect(e.usage.totalTokens).toBe((e.usage.inputTokens ?? 0) + (e.usage.outputTokens ?? 0))
    expect(typeof e.response.timestamp).toBe('string')
    expect(r.judge.analyze.executions).toHaveLength(1)
  })

  it('score: the probability-weighted level over the top level; boolean: P(true)', async () => {
    stated('2', { '0': 0, '1': 0.5, '2': 0.5 })
    const q: Any = await make({ classifier, question: 'quality', state }).run({ output: 'ok' })
    expect(q.analyzeStepResult.answer).toEqual({ type: 'score', score: 1.5, probabilities: { '0': 0, '1': 0.5, '2': 0.5 } })
    expect([q.score, q.reason]).toEqual([0.75, "Classifier question 'quality' returned score 1.5."])
    server.reset()
    stated('true', { true: 0.8, false: 0.2 })
    const b: Any = await make({ classifier, question: 'safe', state }).run({ output: 'ok' })
    expect([b.score, b.reason]).toEqual([0.8, "Classifier question 'safe' returned P(true)=0.8."])
    expect(data(server.requests[0]).labels).toEqual([{ label: 'true', meaning: null }, { label: 'false', meaning: null }])
  })

  it('the default scripted reply answers the best-matching label', async () => {
    server.on(isAnswer, (req: RecordedRequest) => heuristicJudge(req))
    const r: Any = await make({ classifier, question: 'tone', state, scores }).run({ output: 'This is hostile and heated!' })
    expect(r.analyzeStepResult.answer.choice).toBe('angry')
    expect(r.score).toBe(0)
  })
})

describe('bad judge answers: a ScorerRunError at analyze, never a silent 0', () => {
  const cases: [string, string, Record<string, number>, RegExp][] = [
    ['an option that does not exist', 'furious', { calm: 0.5, angry: 0.25, mixed: 0.25 }, /not a label of question 'tone'/],
    ['probabilities that do not sum to 1', 'calm', { calm: 0.5, angry: 0.1, mixed: 0.1 }, /must sum to 1; they sum to 0\.7/],
    ['a probability outside [0, 1]', 'calm', { calm: 1.5, angry: -0.25, mixed: -0.25 }, /finite number in \[0, 1\]/],
    ['an answer that is not the most likely', 'calm', { calm: 0.1, angry: 0.8, mixed: 0.1 }, /larger probability for "angry"/],
  ]
  for (const [what, answer, ps, message] of cases) {
    it(what, async () => {
      stated(answer, ps)
      const e: Any = await failure(make({ classifier, question: 'tone', state, scores }).run({ output: 'x' }))
      expect(e).toBeInstanceOf(ScorerRunError)
      expect([e.code, e.failedStep]).toEqual(['OXEVAL_JUDGE_OUTPUT', 'analyze'])
      expect(e.message).toMatch(message)
      expect(e.result?.score).toBeUndefined()
    })
  }

  it('a state function that throws fails analyze', async () => {
    const e: Any = await failure(make({ classifier, question: 'safe', state: () => { throw new Error('no state') } }).run({ output: 'x' }))
    expect([e.code, e.failedStep]).toEqual(['OXEVAL_CONTEXT_EXTRACTOR', 'analyze'])
    expect(e.message).toContain('no state')
    expect(server.requests).toHaveLength(0)
  })
})

describe('bad options: a TypeError at the factory', () => {
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['no classifier', { question: 'tone', state, scores }, /options\.classifier is required/],
    ['no questions', { classifier: { id: 'c' }, question: 'tone', state }, /classifier 'c' must be constructed with questions/],
    ['a wrong question type', { classifier: { questions: { q: { type: 'multi', criteria: {} } } }, question: 'q', state }, /\.q\.type must be 'choice', 'score' or 'boolean'; got 'multi'/],
    ['a score question with one level', { classifier: { questions: { q: { type: 'score', criteria: ['x'] } } }, question: 'q', state }, /2 to 100 levels; got 1/],
    ['an unknown question', { classifier, question: 'nope', state }, /question 'nope' is not a question of classifier 'reply-classifier' \(tone, quality, safe\)/],
    ['a choice question without scores', { classifier, question: 'tone', state }, /options\.scores is required for choice question 'tone'/],
    ['an unknown choice key in scores', { classifier, question: 'tone', state, scores: { ...scores, furious: 0 } }, /unknown options furious/],
    ['a missing choice key in scores', { classifier, question: 'tone', state, scores: { calm: 1 } }, /missing angry, mixed/],
    ['a score outside [0, 1]', { classifier, question: 'tone', state, scores: { ...scores, calm: 2 } }, /not a number in \[0, 1\]: calm/],
    ['scores for a boolean question', { classifier, question: 'safe', state, scores: { true: 1 } }, /only for a choice question; question 'safe' is a boolean question/],
    ['no state', { classifier, question: 'safe' }, /options\.state is required/],
    ['a state that is not a function', { classifier, question: 'safe', state: 'x' }, /options\.state must be a function/],
    ['a bad maxRetries', { classifier, question: 'safe', state, maxRetries: -1 }, /options\.maxRetries must be an integer 0 to 20/],
  ]
  for (const [what, options, message] of bad) {
    it(what, () => {
      const e = thrownBy(() => make(options))
      expect(e).toBeInstanceOf(TypeError)
      expect(e.message).toMatch(message)
    })
  }

  it('an evaluation model is refused by the other scorers', () => {
    const e = thrownBy(() => oxeval.createRubricScorer({ model: evaluationModel(() => ({})) } as Any))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toMatch(/evaluation model \(doEvaluate\), which only createClassifierScorer takes/)
  })
})

/** An AI SDK v7 evaluation model answering with `answer(options, call)`. */
function evaluationModel(answer: (options: Any, call: number) => Any) {
  let calls = 0
  const seen: Any[] = []
  return {
    specificationVersion: 'v4',
    provider: 'scripted',
    modelId: 'eval-1',
    supportedQuestionTypes: ['choice', 'score', 'boolean'],
    seen,
    async doEvaluate(options: Any) {
      seen.push(options)
      return answer(options, calls++)
    },
  }
}
const all = (over: Any = {}) => ({
  answers: { tone: { type: 'choice', choice: 'calm' }, quality: { type: 'score', score: 2 }, safe: { type: 'boolean', probability: 0.9 }, ...over },
  usage: { inputTokens: 10, outputTokens: 3 },
  warnings: [],
  response: { id: 'resp-1', timestamp: new Date('2026-01-02T03:04:05.000Z'), modelId: 'eval-1' },
})

describe('an evaluation model answers (doEvaluate through the host)', () => {
  it('every question asked at once; the evidence is Mastra’s', async () => {
    const model = evaluationModel(() => all())
    const r: Any = await createClassifierScorer({ model, classifier, question: 'safe', state, providerOptions: { scripted: { x: 1 } } }).run({ output: 'hello' })
    expect([r.score, r.reason]).toEqual([0.9, "Classifier question 'safe' returned P(true)=0.9."])
    expect(model.seen[0].state).toEqual({ reply: 'hello' })
    expect(model.seen[0].questions.quality.instructions).toBe('quality')
    expect(model.seen[0].providerOptions).toEqual({ scripted: { x: 1 } })
    expect(r.analyzeStepResult).toEqual({
      question: 'safe',
      answer: { type: 'boolean', probability: 0.9 },
      usage: { inputTokens: 10, outputTokens: 3, totalTokens: 13 },
      warnings: [],
      response: { id: 'resp-1', timestamp: '2026-01-02T03:04:05.000Z', modelId: 'eval-1' },
      probabilitySource: 'evaluationModel',
    })
  })

  it('a classifier object carrying its model ({ id, questions, model }) is used as Mastra’s Classifier is', async () => {
    const model = evaluationModel(() => all())
    const r: Any = await createClassifierScorer({ classifier: { ...classifier, model }, question: 'tone', state, scores }).run({ output: 'x' })
    expect(r.score).toBe(1)
    expect(model.seen).toHaveLength(1)
  })

  it('a retryable failure is tried again (maxRetries); a non-retryable one fails analyze', async () => {
    const flaky = evaluationModel((_, n) => {
      if (n === 0) throw Object.assign(new Error('busy'), { isRetryable: true })
      return all()
    })
    const r: Any = await createClassifierScorer({ model: flaky, classifier, question: 'safe', state }).run({ output: 'x' })
    expect([r.score, flaky.seen.length]).toEqual([0.9, 2])
    const broken = evaluationModel(() => { throw Object.assign(new Error('busy'), { isRetryable: true }) })
    const e: Any = await failure(createClassifierScorer({ model: broken, classifier, question: 'safe', state, maxRetries: 0 }).run({ output: 'x' }))
    expect([e.code, e.failedStep, broken.seen.length]).toEqual(['OXEVAL_JUDGE_MODEL', 'analyze', 1])
    expect(e.message).toContain('the evaluation model failed: busy')
  })

  const bad: [string, Any, RegExp][] = [
    ['an answer choosing an option that does not exist', all({ tone: { type: 'choice', choice: 'furious' } }), /not one of its options/],
    ['probabilities that do not sum to 1', all({ tone: { type: 'choice', choice: 'calm', probabilities: { calm: 0.5, angry: 0.2, mixed: 0.2 } } }), /must sum to 1/],
    ['a probability that is not finite', all({ safe: { type: 'boolean', probability: null } }), /finite number in \[0, 1\]/],
    ['a missing answer', { ...all(), answers: { tone: { type: 'choice', choice: 'calm' } } }, /missing: quality, safe/],
    ['an answer of the wrong type', all({ quality: { type: 'boolean', probability: 1 } }), /its question is a score question/],
  ]
  for (const [what, result, message] of bad) {
    it(`${what}: a ScorerRunError at analyze`, async () => {
      const e: Any = await failure(createClassifierScorer({ model: evaluationModel(() => result), classifier, question: 'tone', state, scores }).run({ output: 'x' }))
      expect(e).toBeInstanceOf(ScorerRunError)
      expect([e.code, e.failedStep]).toEqual(['OXEVAL_JUDGE_OUTPUT', 'analyze'])
      expect(e.message).toMatch(message)
    })
  }
})

describe('probabilities from the provider’s token log-probabilities', () => {
  const reply = { answer: 'angry', probabilities: [{ label: 'calm', probability: 0.1 }, { label: 'angry', probability: 0.8 }, { label: 'mixed', probability: 0.1 }] }
  const content = JSON.stringify(reply)
  const tokens = valueLogprobs(content, 'angry', { angry: 0.6, calm: 0.3, mixed: 0.05, xyz: 0.05 })
  const wires: [string, () => Record<string, unknown>, (body: Any) => unknown][] = [
    ['OpenAI chat (logprobs, top_logprobs)', () => ({ id: uniqueModelId('lp'), url: server.url }), (b) => [b.logprobs, b.top_logprobs]],
    ['Gemini (responseLogprobs, logprobsResult)', () => ({ id: 'google/gemini-2.5-flash', url: `${server.origin}/v1beta`, apiKey: 'goog-test-key' }), (b) => [b.generationConfig?.responseLogprobs, b.generationConfig?.logprobs]],
  ]
  for (const [wire, model, asked] of wires) {
    it(`${wire}: requested, read, normalized over the labels; the evidence says so`, async () => {
      server.on(() => true, { content, logprobs: tokens })
      const r: Any = await createClassifierScorer({ model: model(), modelSettings: { retryDelayMs: 1 }, cache: false, classifier, question: 'tone', state, scores }).run({ output: 'x' })
      expect(asked(server.requests[0].body)).toEqual([true, 20])
      const e = r.analyzeStepResult
      expect(e.probabilitySource).toBe('logprobs')
      expect(e.rounding).toBeUndefined()
      expect(e.answer.choice).toBe('angry')
      expect(e.answer.probabilities.calm).toBeCloseTo(0.3 / 0.95, 12)
      expect(e.answer.probabilities.angry).toBeCloseTo(0.6 / 0.95, 12)
      expect(e.answer.probabilities.mixed).toBeCloseTo(0.05 / 0.95, 12)
      expect(r.score).toBe(0)
    })
  }

  it('a provider that gives none: the stated probabilities, and the evidence says so', async () => {
    server.on(isAnswer, { content })
    const r: Any = await make({ classifier, question: 'tone', state, scores }).run({ output: 'x' })
    expect(r.analyzeStepResult.probabilitySource).toBe('stated')
    expect(r.analyzeStepResult.answer.probabilities).toEqual({ calm: 0.1, angry: 0.8, mixed: 0.1 })
  })

  it('tokens that give no distribution: the stated probabilities with a warning', async () => {
    const twoLabels = { id: 'c', questions: { tone: { type: 'choice', criteria: { calm: null, calmer: null } } } }
    const text = JSON.stringify({ answer: 'calm', probabilities: [{ label: 'calm', probability: 0.9 }, { label: 'calmer', probability: 0.1 }] })
    const lp = valueLogprobs(text, 'calm', { calm: 0.9, cal: 0.1 })
    server.on(isAnswer, { content: text, logprobs: lp })
    const r: Any = await make({ classifier: twoLabels, question: 'tone', state, scores: { calm: 1, calmer: 0.5 } }).run({ output: 'x' })
    expect(r.analyzeStepResult.probabilitySource).toBe('stated')
    expect(r.warnings.join('\n')).toMatch(/token log-probabilities gave no distribution \(the token "calm" begins 2 labels\)/)
  })
})
