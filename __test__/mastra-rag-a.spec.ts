// oxeval/mastra for the Mastra RAG scorers (faithfulness, hallucination, context precision,
// context recall): real MastraScorer instances whose run is oxeval's pipeline; getContext and
// contextExtractor reach the user through Mastra's run; failures are Mastra's ScorerRunError.
import { describe, expect, it } from 'vitest'
import { MastraScorer, ScorerRunError as MastraScorerRunError } from '@mastra/core/evals'
import * as esm from '../mastra/index.mjs'
import { createRequire } from 'node:module'
import { failure, useJudgeServer, uniqueModelId, type Any } from './helpers/setup'
import { script } from './helpers/mastra-rag'

const require = createRequire(import.meta.url)
const { createFaithfulnessScorer, createHallucinationScorer, createContextPrecisionScorer, createContextRecallScorer } = esm

const server = useJudgeServer()
const base = () => ({ model: { id: uniqueModelId('mrag'), url: server.url }, modelSettings: { retryDelayMs: 1, maxRetries: 0 } })
const CONTEXT = ['Paris is the capital of France.', 'Paris has about 2.1 million inhabitants.']

function scriptAll() {
  const verdicts = (item: (i: number) => Record<string, unknown>) => ({ json: { verdicts: [0, 1].map((i) => ({ ...item(i), verdict: i === 0 ? 'yes' : 'no', reason: 'r' })) } })
  script(server, {
    fc: { schema: 'faithfulness_claims', reply: { json: { claims: ['a', 'b'] } } },
    fv: { schema: 'faithfulness_verdicts', reply: verdicts(() => ({})) },
    hc: { schema: 'hallucination_claims', reply: { json: { claims: ['a', 'b'] } } },
    hv: { schema: 'hallucination_verdicts', reply: verdicts((i) => ({ statement: String(i) })) },
    pv: { schema: 'context_precision_verdicts', reply: verdicts((i) => ({ context_index: i })) },
    rc: { schema: 'context_recall_claims', reply: { json: { claims: ['a', 'b'] } } },
    rv: { schema: 'context_recall_verdicts', reply: verdicts(() => ({})) },
    reason: { phrase: 'The score runs from 0', reply: { content: 'The score is as scripted.' } },
  })
}

describe('oxeval/mastra: the Mastra RAG scorers', () => {
  it('are MastraScorer instances (ESM and CJS) with oxeval identity, and score through Mastra’s run', async () => {
    scriptAll()
    const cjs = require('../mastra/index.js')
    const made = [
      [createFaithfulnessScorer({ ...base(), context: CONTEXT }), 'faithfulness-scorer', 0.5],
      [createHallucinationScorer({ ...base(), context: CONTEXT }), 'hallucination-scorer', 0.5],
      [createContextPrecisionScorer({ ...base(), context: CONTEXT }), 'context-precision-scorer', 1],
      [createContextRecallScorer({ ...base(), context: CONTEXT }), 'context-recall-scorer', 0.5],
    ] as Array<[Any, string, number]>
    for (const [s, id, score] of made) {
      expect(s).toBeInstanceOf(MastraScorer)
      expect(s.id).toBe(id)
      const r = await s.run({ input: 'Tell me about Paris.', output: 'Paris is the capital. It has 9 million people.', groundTruth: 'Paris is the capital of France.' })
      expect(r.score, id).toBe(score)
      expect(r.judge!.analyze.executions[0].status).toBe('success')
    }
    expect(cjs.createContextRecallScorer({ model: 'openai/gpt-4o-mini' })).toBeInstanceOf(require('@mastra/core/evals').MastraScorer)
  })

  it("hallucination's getContext gets Mastra's run (with runId) and the step", async () => {
    scriptAll()
    const seen: Any[] = []
    const s = createHallucinationScorer({ ...base(), options: { getContext: ({ run, step }: Any) => (seen.push([run.runId, run.output, step]), CONTEXT) } })
    const r = await s.run({ runId: 'm-1', input: 'q', output: 'Paris is big.' })
    expect(r.score).toBe(0.5)
    expect(seen).toEqual([
      ['m-1', 'Paris is big.', 'analyze'],
      ['m-1', 'Paris is big.', 'generateReason'],
    ])
  })

  it('a missing context is a Mastra error whose cause is the TypeError; a failed getContext is Mastra’s ScorerRunError', async () => {
    scriptAll()
    const e = await failure(createFaithfulnessScorer(base()).run({ input: 'q', output: 'a' }))
    expect(e.code).toBe('OXEVAL_INVALID_INPUT')
    expect(e.cause).toBeInstanceOf(TypeError)
    const f = await failure(createHallucinationScorer({ ...base(), getContext: () => { throw new Error('down') } }).run({ output: 'Paris is big.' }))
    expect(f).toBeInstanceOf(MastraScorerRunError)
    expect([f.failedStep, f.code]).toEqual(['analyze', 'OXEVAL_CONTEXT_EXTRACTOR'])
  })
})
