// Parity with @mastra/evals 1.10.2's multi-turn judge on one scripted judge (see
// parity-bias.spec.ts); deliberate differences: docs/decision-tables/multi-turn-judge.md.
import { describe, expect, it } from 'vitest'
import { createMultiTurnJudgeScorer as mastraScorer } from '@mastra/evals/scorers/prebuilt'
import { expectSameResults, useParity } from './helpers/parity'
import { data, oxeval } from './helpers/setup'

interface Case {
  name: string
  output: unknown
  satisfied: boolean
  reasoning: string
  scale?: number
  score: number
  turns: string[]
}

const parity = useParity<Case>({ analyze: 'satisfied' }, (c) => ({ json: { satisfied: c.satisfied, reasoning: c.reasoning } }))
const { stepOf } = parity
const CRITERION = 'The agent recommended an umbrella for London.'
const msg = (role: string, parts: unknown[], id: string) => ({ id, role, createdAt: new Date('2025-01-01T00:00:00Z'), content: { format: 2, parts } })

const cases: Case[] = [
  {
    name: 'an accumulated multi-turn output: every assistant turn',
    output: [
      msg('user', [{ type: 'text', text: 'London?' }], 'u1'),
      msg('assistant', [{ type: 'text', text: 'Rain in London.' }], 'a1'),
      msg('assistant', [{ type: 'tool-invocation', toolInvocation: { toolCallId: 't1', toolName: 'weather', state: 'result', args: {}, result: 'x' } }], 'a2'),
      msg('user', [{ type: 'text', text: 'Umbrella?' }], 'u2'),
      msg('assistant', [{ type: 'text', text: ' Yes, take one. ' }], 'a3'),
    ],
    satisfied: true,
    reasoning: 'Turn 2.',
    scale: 2,
    score: 2,
    turns: ['Rain in London.', 'Yes, take one.'],
  },
  { name: 'a string output', output: 'No idea.', satisfied: false, reasoning: 'No advice.', score: 0, turns: ['No idea.'] },
  { name: "plain messages (no id/createdAt): no turns in both (Mastra's reading kept)", output: [{ role: 'assistant', content: 'Take an umbrella.' }], satisfied: false, reasoning: '', score: 0, turns: [] },
]

describe('multi-turn judge parity with @mastra/evals 1.10.2 (one scripted judge)', () => {
  it.each(cases)('$name', async (c) => {
    const options = c.scale !== undefined ? { scale: c.scale } : undefined
    const m = mastraScorer({ model: parity.mastraModel(), criterion: CRITERION, options })
    const o = oxeval.createMultiTurnJudgeScorer({ model: parity.oxModel(), modelSettings: { retryDelayMs: 1 }, criterion: CRITERION, options })
    const { mr, or, mreq, oreq } = await parity.runBoth(c, m, o, { output: c.output })
    expect(mr.score).toBe(c.score)
    expect(or.score).toBe(mr.score)
    if (or.warnings) {
      // deliberate: oxeval warns that Mastra's reading found no turn in a plain message list
      expectSameResults({ ...or, warnings: undefined }, { ...mr, warnings: undefined })
    } else {
      expectSameResults(or, mr)
    }
    expect(mreq.map(stepOf)).toEqual(['analyze'])
    expect(oreq.map(stepOf)).toEqual(['analyze'])
    expect(data(oreq[0])).toEqual({ criterion: CRITERION, turns: c.turns })
    for (const t of c.turns) expect(mreq[0].user).toContain(t)
    if (!c.turns.length) expect(mreq[0].user).toContain('(no assistant messages)')
  })
})
