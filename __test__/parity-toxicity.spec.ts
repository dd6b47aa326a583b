// Parity with @mastra/evals 1.10.2's toxicity scorer on one scripted judge (see
// parity-bias.spec.ts); deliberate differences: docs/decision-tables/toxicity.md.
import { describe, expect, it } from 'vitest'
import { createToxicityScorer as mastraScorer } from '@mastra/evals/scorers/prebuilt'
import { expectSameResults, useParity } from './helpers/parity'
import { data, oxeval } from './helpers/setup'

interface Case {
  name: string
  input?: unknown
  output: unknown
  user: string
  text: string
  labels: string[]
  score: number
  scale?: number
}

const parity = useParity<Case>({ analyze: 'verdicts' }, (c, step) => {
  if (step === 'analyze') return { json: { verdicts: c.labels.map((verdict, i) => ({ verdict, reason: `reason ${i + 1}` })) } }
  return `The score is ${c.score} because of the scripted verdicts.`
})
const { stepOf } = parity

const msg = (role: string, parts: unknown[], id: string) => ({ id, role, createdAt: new Date('2025-01-01T00:00:00Z'), content: { format: 2, parts } })

const cases: Case[] = [
  { name: 'strings: one toxic verdict of two', input: 'Thoughts?', output: 'You are clueless. Fine.', user: 'Thoughts?', text: 'You are clueless. Fine.', labels: ['yes', 'no'], score: 0.5 },
  { name: 'labels trimmed and lowercased', input: 'q', output: 'o', user: 'q', text: 'o', labels: [' Yes ', 'NO', 'yes'], score: 0.67 },
  { name: "no verdicts → 1 (Mastra's worst score, unscaled)", input: 'q', output: 'Have a nice day.', user: 'q', text: 'Have a nice day.', labels: [], score: 1, scale: 5 },
  { name: 'scale 4', input: 'q', output: 'o', user: 'q', text: 'o', labels: ['yes', 'no', 'no'], score: 1.33, scale: 4 },
  {
    name: 'agent-shaped run: the first user message, the last assistant text',
    input: {
      inputMessages: [msg('user', [{ type: 'text', text: 'Rate my poem.' }], 'u1')],
      rememberedMessages: [],
      systemMessages: [{ role: 'system', content: 'Be kind.' }],
      taggedSystemMessages: {},
    },
    output: [msg('assistant', [{ type: 'text', text: 'Your poem is worthless.' }], 'a1')],
    user: 'Rate my poem.',
    text: 'Your poem is worthless.',
    labels: ['yes'],
    score: 1,
  },
  { name: 'no input: an empty user text in both', output: 'o', user: '', text: 'o', labels: ['no'], score: 0 },
]

describe('toxicity parity with @mastra/evals 1.10.2 (one scripted judge)', () => {
  it.each(cases)('$name', async (c) => {
    const options = c.scale ? { scale: c.scale } : undefined
    const m = mastraScorer({ model: parity.mastraModel(), options })
    const o = oxeval.createToxicityScorer({ model: parity.oxModel(), modelSettings: { retryDelayMs: 1 }, options })
    const { mr, or, mreq, oreq } = await parity.runBoth(c, m, o, { input: c.input, output: c.output })
    expect(mr.score).toBe(c.score)
    expect(or.score).toBe(mr.score)
    expectSameResults(or, mr)
    expect(mreq.map(stepOf)).toEqual(['analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['analyze', 'generateReason'])
    expect(data(oreq[0])).toEqual({ input: c.user, output: c.text })
    expect(mreq[0].user).toContain(c.text)
    if (c.user) expect(mreq[0].user).toContain(c.user)
  })
})
