// Parity with @mastra/evals 1.10.2's bias scorer, offline: both libraries are pointed at ONE
// scripted judge answering each step the same way, so any difference in score, step results or
// result keys comes from how each library reads the run and does its math. The deliberate
// differences (docs/decision-tables/bias.md) are asserted as such.
import { describe, expect, it } from 'vitest'
import { createBiasScorer as mastraScorer } from '@mastra/evals/scorers/prebuilt'
import { expectSameResults, useParity } from './helpers/parity'
import { data, oxeval } from './helpers/setup'

interface Case {
  name: string
  input?: unknown
  output: unknown
  /** The text each library should judge. */
  text: string
  opinions: string[]
  labels: string[]
  score: number
  scale?: number
}

const parity = useParity<Case>({ preprocess: 'opinions', analyze: 'results' }, (c, step) => {
  if (step === 'preprocess') return { json: { opinions: c.opinions } }
  if (step === 'analyze') return { json: { results: c.labels.map((result, i) => ({ result, reason: `reason ${i + 1}`, extra: i })) } }
  return `The score is ${c.score} because of the scripted verdicts.`
})
const { stepOf } = parity

const msg = (role: string, parts: unknown[], id: string) => ({ id, role, createdAt: new Date('2025-01-01T00:00:00Z'), content: { format: 2, parts } })
const agentInput = (text: string) => ({
  inputMessages: [msg('user', [{ type: 'text', text }], 'u1')],
  rememberedMessages: [msg('assistant', [{ type: 'text', text: 'Earlier answer.' }], 'r1')],
  systemMessages: [{ role: 'system', content: 'Be neutral.' }],
  taggedSystemMessages: { memory: [{ role: 'system', content: 'tagged' }] },
})

const cases: Case[] = [
  { name: 'strings: one biased opinion of two', input: 'q', output: 'I think X is best. Y is bad.', text: 'I think X is best. Y is bad.', opinions: ['X is best', 'Y is bad'], labels: ['yes', 'no'], score: 0.5 },
  { name: 'scale 10, a third biased', output: 'a b c', text: 'a b c', opinions: ['a', 'b', 'c'], labels: ['no', 'yes', 'no'], score: 3.33, scale: 10 },
  { name: "Mastra's untrimmed compare: [' yes', 'YES'] → 0.5", output: 'o', text: 'o', opinions: ['a', 'b'], labels: [' yes', 'YES'], score: 0.5 },
  { name: 'no opinions: the judge grades the output itself', output: 'Water boils at 100 °C.', text: 'Water boils at 100 °C.', opinions: [], labels: ['no'], score: 0 },
  { name: 'no results → 0', output: 'o', text: 'o', opinions: ['a'], labels: [], score: 0 },
  {
    name: 'agent-shaped run: the last assistant text with text, a later tool-only message skipped',
    input: agentInput('Who is the best leader?'),
    output: [
      msg('assistant', [{ type: 'text', text: 'Leaders from the north are always better.' }], 'a1'),
      msg('assistant', [{ type: 'tool-invocation', toolInvocation: { toolCallId: 't1', toolName: 'search', state: 'result', args: { q: 1 }, result: 'r' } }], 'a2'),
    ],
    text: 'Leaders from the north are always better.',
    opinions: ['Leaders from the north are always better.'],
    labels: ['yes'],
    score: 1,
  },
  { name: 'empty output: both still call the judge three times', output: '', text: '', opinions: [], labels: [], score: 0 },
]

describe('bias parity with @mastra/evals 1.10.2 (one scripted judge)', () => {
  it.each(cases)('$name', async (c) => {
    const options = c.scale ? { scale: c.scale } : undefined
    const m = mastraScorer({ model: parity.mastraModel(), options })
    const o = oxeval.createBiasScorer({ model: parity.oxModel(), modelSettings: { retryDelayMs: 1 }, options })
    const run = { input: c.input, output: c.output }
    const { mr, or, mreq, oreq } = await parity.runBoth(c, m, o, run)
    expect(mr.score).toBe(c.score)
    expect(or.score).toBe(mr.score)
    // the same reason, step results (as the judge answered, extra keys kept) and keys;
    // deliberate: a label Mastra's untrimmed compare misreads adds oxeval's `warnings` key
    const odd = c.labels.some((l) => l.toLowerCase() !== 'yes' && l.trim().toLowerCase() !== 'no')
    if (odd) {
      expectSameResults({ ...or, warnings: undefined }, { ...mr, warnings: undefined })
      expect(Object.keys(or)).toEqual([...Object.keys(mr), 'warnings'])
      expect(or.warnings).toHaveLength(1)
    } else {
      expectSameResults(or, mr)
    }
    expect(mreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    // both read the same text: Mastra's raw text in its prompt, oxeval's on the DATA line
    expect(data(oreq[0]).output).toBe(c.text)
    if (c.text) expect(mreq[0].user).toContain(c.text)
    expect(data(oreq[1])).toEqual({ output: c.text, opinions: c.opinions })
    for (const op of c.opinions) expect(mreq[1].user).toContain(op)
    // the reason step gets every reason in both
    const reasons = c.labels.map((_, i) => `reason ${i + 1}`)
    expect(data(oreq[2]).reasons).toEqual(reasons)
    for (const r of reasons) expect(mreq[2].user).toContain(r)
  })
})
