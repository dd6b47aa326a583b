// oxeval/testing's createTestJudge: every scorer in the registry runs offline on its default
// replies; rules script a step by schema name or prompt content; faults are injected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestJudge, stepOf, type TestJudge } from '../testing/index.mjs'
import { failure, oxeval, thrownBy, type Any } from './helpers/setup'

const SCORERS = require('../generated/scorers.js') as Array<{ factory: string; id: string; kind: string }>

/** Options a factory cannot do without (beside model). */
const REQUIRED: Record<string, Record<string, unknown>> = {
  createNoiseSensitivityScorerLLM: { options: { baselineResponse: 'Paris is the capital of France.', noisyQuery: 'What is the capital of France? Also, cats.' } },
  createMultiTurnJudgeScorer: { criterion: 'The assistant names the capital of France.' },
  createToolCallAccuracyScorerLLM: { availableTools: [{ id: 'search', description: 'Search the web' }] },
  createClassifierScorer: {
    classifier: { questions: { topic: { type: 'choice', criteria: { geography: 'capitals and places', cooking: 'recipes' } } } },
    question: 'topic',
    scores: { geography: 1, cooking: 0 },
    state: ({ run }: { run: { output: unknown } }) => run.output,
  },
}

const item = {
  input: 'What is the capital of France?',
  output: 'Paris is the capital of France. It is known for the Eiffel Tower.',
  groundTruth: 'The capital of France is Paris.',
  context: ['Paris is the capital and largest city of France.', 'The Eiffel Tower is in Paris.'],
}

let judge: TestJudge
beforeAll(async () => {
  judge = await createTestJudge()
})
afterAll(() => judge.close())

describe('default replies', () => {
  // the judged scorers (code scorers and checks call no judge: code-agent-parity.spec.ts)
  it.each(SCORERS.filter((s) => s.kind !== 'code').map((s) => [s.factory, s.id]))('%s scores offline with a finite score', async (factory) => {
    const create = (oxeval as Any)[factory]
    let scorer
    const base = { model: judge.model, modelSettings: { retries: 0 }, ...REQUIRED[factory] }
    try {
      scorer = create({ ...base, context: item.context })
    } catch {
      scorer = create(base)
    }
    const r = await scorer.run({ ...item })
    expect(Number.isFinite(r.score)).toBe(true)
    expect(r.score).toBeGreaterThanOrEqual(0)
    expect(r.warnings ?? []).toEqual([]) // defaults are consistent (verdict counts match)
  })
})

describe('rules', () => {
  it('script a step by schema name, `times`, and record requests per step', async () => {
    const j = await createTestJudge({
      rules: [
        { step: 'answer_relevancy_statements', json: { statements: ['Paris.', 'Cats are nice.'] } },
        { step: 'answer_relevancy_verdicts', json: { results: [{ result: 'yes', reason: 'on topic' }, { result: 'no', reason: 'off topic' }] }, times: 1 },
      ],
    })
    try {
      const s = oxeval.createAnswerRelevancyScorer({ model: j.model })
      const r = await s.run({ input: 'Capital of France?', output: 'whatever' })
      expect(r.score).toBe(0.5)
      expect(j.requestsFor('answer_relevancy_statements')).toHaveLength(1)
      expect(j.requestsFor('text')).toHaveLength(1) // the reason
      expect(stepOf(j.requests[0])).toBe('answer_relevancy_statements')
      // `times: 1` retired the verdict rule: the default (heuristic) answers now
      const r2 = await s.run({ input: 'Capital of France?', output: 'whatever' })
      expect(r2.analyzeStepResult.results.map((x: Any) => x.reason)).not.toContain('on topic')
    } finally {
      await j.close()
    }
  })

  it('match by prompt content; a reply function for the rest', async () => {
    const j = await createTestJudge({
      rules: [{ match: /Eiffel/, step: 'answer_relevancy_verdicts', json: (req: Any) => ({ results: [{ result: 'unsure', reason: `saw ${stepOf(req)}` }] }) }],
      reply: (req) => (stepOf(req) === undefined ? { content: 'Custom reason.' } : undefined),
    })
    try {
      const s = oxeval.createAnswerRelevancyScorer({ model: j.model })
      const r = await s.run({ input: 'Where is the Eiffel Tower?', output: 'In Paris.' })
      expect(r.analyzeStepResult.results[0]).toEqual({ result: 'unsure', reason: 'saw answer_relevancy_verdicts' })
      expect(r.reason).toBe('Custom reason.')
    } finally {
      await j.close()
    }
  })

  it.each([
    ['http500', 'OXEVAL_JUDGE_HTTP'],
    ['malformed', 'OXEVAL_JUDGE_OUTPUT'],
    ['refusal', 'OXEVAL_JUDGE_REFUSAL'],
  ])('fault %s → %s naming the step', async (fault, code) => {
    const j = await createTestJudge({ rules: [{ step: 'answer_relevancy_verdicts', fault: fault as Any }] })
    try {
      const s = oxeval.createAnswerRelevancyScorer({ model: j.model, modelSettings: { retries: 1, retryDelayMs: 1 } })
      const e = await failure(s.run({ input: 'Capital of France?', output: 'Paris.' }))
      expect(e.code).toBe(code)
      expect(e.failedStep).toBe('analyze')
      expect(e.result.preprocessStepResult).toEqual({ statements: ['Paris.'] })
    } finally {
      await j.close()
    }
  })

  it('a transient fault is retried away', async () => {
    const j = await createTestJudge({ rules: [{ step: 'answer_relevancy_verdicts', fault: 'http429', times: 1 }] })
    try {
      const s = oxeval.createAnswerRelevancyScorer({ model: j.model, modelSettings: { retries: 2, retryDelayMs: 1 } })
      const r = await s.run({ input: 'Capital of France?', output: 'Paris is the capital of France.' })
      expect(Number.isFinite(r.score)).toBe(true)
      expect(j.requestsFor('answer_relevancy_verdicts')).toHaveLength(2)
    } finally {
      await j.close()
    }
  })

  it('bad rules are TypeErrors', async () => {
    for (const [rules, want] of [
      [[{ step: 'x' }], 'exactly one of'],
      [[{ json: {}, text: 'a' }], 'exactly one of'],
      [[{ fault: 'boom' }], 'fault must be one of'],
      [[{ json: {}, times: 0 }], 'times'],
      [[{ json: {}, match: 5 }], 'match'],
    ] as const) {
      const e = await failure(createTestJudge({ rules: rules as Any }))
      expect(e).toBeInstanceOf(TypeError)
      expect(e.message).toContain(want)
    }
    expect(thrownBy(() => judge.addRule({} as Any))).toBeInstanceOf(TypeError)
  })
})

describe('schemaInstance (defaults for steps the heuristic judge does not know)', () => {
  it('shapes a reply by the schema and the DATA', async () => {
    const { schemaInstance } = await import('../testing/judge-server.mjs')
    const schema = {
      type: 'object',
      properties: {
        verdicts: { type: 'array', items: { $ref: '#/$defs/V' } },
        missingItems: { type: 'array', items: { type: 'string' } },
        summary: { type: 'string' },
        score: { type: 'number', maximum: 4 },
      },
      $defs: { V: { type: 'object', properties: { claim: { type: 'string' }, verdict: { type: 'string' }, reason: { type: 'string' }, ok: { type: 'boolean' } } } },
    }
    const out = schemaInstance(schema, { context: ['c1', 'c2', 'c3'], claims: ['A.', 'B.'] }) as Any
    expect(out.verdicts).toHaveLength(2) // aligned with the claims, not the contexts
    expect(out.verdicts[1]).toEqual({ claim: 'B.', verdict: 'yes', reason: 'Default reply of the oxeval test judge.', ok: true })
    expect(out.missingItems).toEqual([])
    expect(out.summary).toBe('test')
    expect(out.score).toBe(4)
    const indexed = schemaInstance({ type: 'object', properties: { v: { type: 'array', items: { type: 'object', properties: { context_index: { type: 'number' } } } } } }, { claims: ['x'], context: ['a', 'b'] }) as Any
    expect(indexed.v).toEqual([{ context_index: 0 }, { context_index: 1 }])
    expect(schemaInstance({ type: 'object', properties: { claims: { type: 'array', items: { type: 'string' } } } }, { output: 'One. Two!' })).toEqual({ claims: ['One.', 'Two!'] })
  })
})

// the rubric's and the multi-turn judge's default reply: how a criterion is judged
describe('the default reply for a criterion (rubric, multi-turn judge)', async () => {
  const { judgeCriterion } = await import('../testing/replies/agent.mjs')
  it('answering: off-task, declining and empty texts fail; an on-task answer passes', () => {
    expect(judgeCriterion('Answers the question', 'The capital of France is Paris.', 'What is the capital of France?').satisfied).toBe(true)
    expect(judgeCriterion('Answers the question', 'My cat enjoys sleeping in the sun.', 'What is the capital of France?').satisfied).toBe(false)
    expect(judgeCriterion('The assistant answers the question it was asked.', "I cannot help with that. Have you tried searching online?").satisfied).toBe(false)
    expect(judgeCriterion('The assistant answers the question it was asked.', 'Paris.').satisfied).toBe(true)
    expect(judgeCriterion('Responds to the request', '   ').satisfied).toBe(false)
  })
  it('length: at most the largest number of sentences named', () => {
    expect(judgeCriterion('Is one or two sentences', 'One. Two.').satisfied).toBe(true)
    expect(judgeCriterion('Is one or two sentences', 'One. Two. Three.').satisfied).toBe(false)
    expect(judgeCriterion('At most 3 sentences', 'One. Two. Three.').satisfied).toBe(true)
  })
  it('any other criterion: most of its content words appear', () => {
    expect(judgeCriterion('Mentions the Eiffel Tower', 'Paris has the Eiffel Tower.').satisfied).toBe(true)
    expect(judgeCriterion('Mentions the Eiffel Tower', 'Paris is in France.').satisfied).toBe(false)
  })
})
