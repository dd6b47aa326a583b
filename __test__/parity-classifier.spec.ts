// Parity with @mastra/core 1.71's createClassifierScorer: one Mastra `Classifier` over one
// scripted evaluation model (`doEvaluate`) given to both libraries (Mastra's scorer, oxeval's
// createClassifierScorer and oxeval/mastra's): the model receives the same call, and the
// scores, reasons and evidence (analyzeStepResult) are the same. Deliberate differences:
// oxeval's evidence adds `probabilitySource`, and its `response.timestamp` is ISO text (the
// result crosses as JSON), not a Date. A bad answer fails both.
import { describe, expect, it } from 'vitest'
import { Classifier } from '@mastra/core/classifier'
import { MastraScorer, createClassifierScorer as mastraClassifierScorer } from '@mastra/core/evals'
import * as oxevalMastra from '../mastra/index.mjs'
import { failure, oxeval, type Any } from './helpers/setup'

const questions = {
  tone: { type: 'choice', instructions: 'Which tone?', criteria: { calm: 'measured', angry: null, mixed: null } },
  quality: { type: 'score', criteria: ['poor', { level: 'fair' }, 'good', 'great'] },
  safe: { type: 'boolean', criteria: { true: 'nothing harmful' } },
} as const

/** A scripted evaluation model: `answers` per call, recording what it was asked. */
function scripted(result: Any) {
  const seen: Any[] = []
  return {
    seen,
    model: {
      specificationVersion: 'v4' as const,
      provider: 'scripted',
      modelId: 'eval-1',
      supportedQuestionTypes: ['choice', 'score', 'boolean'] as const,
      async doEvaluate(options: Any) {
        seen.push({ state: options.state, questions: options.questions, providerOptions: options.providerOptions })
        return structuredClone(result)
      },
    },
  }
}

const stamp = new Date('2026-03-04T05:06:07.000Z')
const result = (answers: Any, extra: Any = {}) => ({
  answers: { tone: { type: 'choice', choice: 'calm' }, quality: { type: 'score', score: 3 }, safe: { type: 'boolean', probability: 0.5 }, ...answers },
  usage: { inputTokens: 42, outputTokens: 7 },
  warnings: [{ type: 'other', message: 'scripted' }],
  response: { id: 'r-1', timestamp: stamp, modelId: 'eval-1-2026' },
  ...extra,
})

interface Case {
  name: string
  question: keyof typeof questions
  scores?: Record<string, number>
  result: Any
  score: number
}

const cases: Case[] = [
  { name: 'choice with its distribution', question: 'tone', scores: { calm: 1, angry: 0, mixed: 0.4 }, result: result({ tone: { type: 'choice', choice: 'mixed', probabilities: { calm: 0.25, angry: 0.25, mixed: 0.5 } } }), score: 0.4 },
  { name: 'choice, no distribution', question: 'tone', scores: { calm: 1, angry: 0, mixed: 0.4 }, result: result({}), score: 1 },
  { name: 'score with its distribution (rounded to 2 decimals)', question: 'quality', result: result({ quality: { type: 'score', score: 1.9, probabilities: { '0': 0.1, '1': 0.2, '2': 0.4, '3': 0.3 } } }, { rounding: { probabilityDecimals: 2, scoreDecimals: 1 } }), score: 1.9 / 3 },
  { name: 'boolean; no usage, no response, provider metadata', question: 'safe', result: { answers: result({ safe: { type: 'boolean', probability: 0.85 } }).answers, warnings: [], providerMetadata: { scripted: { cost: 1 } } }, score: 0.85 },
]

const state = ({ run }: Any) => ({ text: run.output, asked: run.input })
const run = { input: 'Is it fine?', output: 'It is fine.' }

/** The evidence as both libraries can carry it: the timestamp as ISO text, oxeval's extra key off. */
function comparable(e: Any) {
  const { probabilitySource, ...rest } = e
  const ts = rest.response.timestamp
  const iso = ts instanceof Date ? ts.toISOString() : ts
  // a model that gives no timestamp: both libraries stamp the answer's arrival
  const now = Math.abs(Date.parse(iso) - Date.now()) < 10_000
  return { ...rest, response: { ...rest.response, timestamp: now ? 'now' : iso } }
}

describe('oxeval and @mastra/core 1.71 on one scripted evaluation model', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const m = scripted(c.result)
      const o = scripted(c.result)
      const x = scripted(c.result)
      const options = (s: Any) => ({ id: 'cls', classifier: new Classifier({ id: 'reply', model: s.model, questions }), question: c.question, state, ...(c.scores ? { scores: c.scores } : {}), providerOptions: { scripted: { seed: 1 } } })
      const mastra: Any = await mastraClassifierScorer(options(m) as Any).run(run)
      const ours: Any = await oxeval.createClassifierScorer(options(o) as Any).run(run)
      const wrapped = (oxevalMastra as Any).createClassifierScorer(options(x))
      expect(wrapped).toBeInstanceOf(MastraScorer)
      const viaMastra: Any = await wrapped.run(run)

      expect(mastra.score).toBeCloseTo(c.score, 12)
      for (const r of [ours, viaMastra]) {
        expect(r.score).toBe(mastra.score)
        expect(r.reason).toBe(mastra.reason)
        expect(comparable(r.analyzeStepResult)).toEqual(comparable(mastra.analyzeStepResult))
        expect(r.analyzeStepResult.probabilitySource).toBe('evaluationModel')
      }
      // the model was asked the same: one call, the same state, questions and provider options
      expect(o.seen).toEqual(m.seen)
      expect(x.seen).toEqual(m.seen)
      expect(m.seen).toHaveLength(1)
    })
  }
})

describe('a bad answer fails both', () => {
  const bad: [string, Any][] = [
    ['a choice that does not exist', result({ tone: { type: 'choice', choice: 'furious' } })],
    ['probabilities that do not sum to 1', result({ tone: { type: 'choice', choice: 'calm', probabilities: { calm: 0.6, angry: 0.1, mixed: 0.1 } } })],
    ['a probability that is not finite', result({ safe: { type: 'boolean', probability: Number.NaN } })],
    ['a score off its distribution mean', result({ quality: { type: 'score', score: 3, probabilities: { '0': 0.25, '1': 0.25, '2': 0.25, '3': 0.25 } } })],
  ]
  for (const [what, r] of bad) {
    it(what, async () => {
      const options = (s: Any) => ({ id: 'cls', classifier: new Classifier({ id: 'reply', model: s.model, questions }), question: 'tone', state, scores: { calm: 1, angry: 0, mixed: 0.5 } })
      const me: Any = await failure(mastraClassifierScorer(options(scripted(r)) as Any).run(run))
      expect(me).toBeInstanceOf(Error)
      const oe: Any = await failure(oxeval.createClassifierScorer(options(scripted(r)) as Any).run(run))
      expect([oe.code, oe.failedStep]).toEqual(['OXEVAL_JUDGE_OUTPUT', 'analyze'])
    })
  }

  it('bad scores are a TypeError at both factories', () => {
    for (const scores of [undefined, { calm: 1, angry: 0 }, { calm: 1, angry: 0, mixed: 0.5, furious: 0 }, { calm: 2, angry: 0, mixed: 0 }]) {
      const classifier = new Classifier({ id: 'reply', model: scripted(result({})).model, questions })
      const o = { id: 'cls', classifier, question: 'tone', state, scores } as Any
      expect(() => mastraClassifierScorer(o)).toThrow(TypeError)
      expect(() => oxeval.createClassifierScorer(o)).toThrow(TypeError)
    }
  })
})
