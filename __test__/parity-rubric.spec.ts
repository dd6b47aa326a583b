// Parity with @mastra/evals 1.10.2's rubric scorer on one scripted judge (see
// parity-bias.spec.ts); deliberate differences: docs/decision-tables/rubric.md.
import { describe, expect, it } from 'vitest'
import { createRubricScorer as mastraScorer } from '@mastra/evals/scorers/prebuilt'
import { expectSameResults, useParity } from './helpers/parity'
import { data, oxeval } from './helpers/setup'

interface Case {
  name: string
  criteria?: unknown
  scale?: number
  run: Record<string, unknown>
  /** The judge's graded criteria: [text, satisfied, required]. */
  graded: [string, boolean, boolean][]
  score: number
  /** What oxeval sends (task, criteria, output), undefined for the no-rubric prompt. */
  sent?: Record<string, unknown>
}

const parity = useParity<Case>({ analyze: 'criteria' }, (c) => ({
  json: { criteria: c.graded.map(([criterion, satisfied, required]) => ({ criterion, satisfied, required, reasoning: `why ${criterion}` })), overallAssessment: 'Summary.' },
}))
const { stepOf } = parity

const msg = (role: string, text: string, id: string) => ({ id, role, createdAt: new Date('2025-01-01T00:00:00Z'), content: { format: 2, parts: [{ type: 'text', text }] } })

const cases: Case[] = [
  {
    name: 'text rubric, all met',
    criteria: '- Has a title\n* Has a summary',
    run: { input: 'Write a report.', output: 'Title. Summary.' },
    graded: [['Has a title', true, true], ['Has a summary', true, true]],
    score: 1,
    sent: { task: 'Write a report.', criteria: [{ criterion: 'Has a title', required: true }, { criterion: 'Has a summary', required: true }], output: 'Title. Summary.' },
  },
  {
    name: 'one required unmet, scale 3',
    criteria: [{ description: 'A' }, { description: 'B', required: false }],
    scale: 3,
    run: { input: 'q', output: 'o' },
    graded: [['A', false, true], ['B', true, false]],
    score: 0,
    sent: { task: 'q', criteria: [{ criterion: 'A', required: true }, { criterion: 'B', required: false }], output: 'o' },
  },
  {
    name: "the judge's required flags decide (Mastra's flaw kept): the unmet one returned optional",
    criteria: 'A\nB',
    run: { input: 'q', output: 'o' },
    graded: [['A', true, true], ['B', false, false]],
    score: 1,
    sent: { task: 'q', criteria: [{ criterion: 'A', required: true }, { criterion: 'B', required: true }], output: 'o' },
  },
  {
    name: 'per-run rubric from additionalContext; originalTask and agent output',
    run: {
      input: { inputMessages: [msg('user', 'ignored', 'u')], rememberedMessages: [], systemMessages: [], taggedSystemMessages: {}, originalTask: 'Plan a trip.' },
      output: [msg('assistant', 'Day 1: Rome.', 'a')],
      additionalContext: { rubric: '1. Names a city' },
    },
    graded: [['Names a city', true, true]],
    score: 1,
    sent: { task: 'Plan a trip.', criteria: [{ criterion: 'Names a city', required: true }], output: 'Day 1: Rome.' },
  },
  {
    name: 'per-run rubric from requestContext (plain object) wins over input',
    run: { input: { rubric: 'from input', currentText: 'draft text' }, output: '', requestContext: { rubric: 'from context' } },
    graded: [['from context', false, true]],
    score: 0,
    sent: { task: '', criteria: [{ criterion: 'from context', required: true }], output: 'draft text' },
  },
  {
    // issue 37: no shortcut and no blanket rule for an empty output; both call the judge once
    name: 'empty output: judged like any other (an absence criterion can be met)',
    criteria: 'Does not mention competitors',
    run: { input: 'Describe our product.', output: '' },
    graded: [['Does not mention competitors', true, true]],
    score: 1,
    sent: { task: 'Describe our product.', criteria: [{ criterion: 'Does not mention competitors', required: true }], output: '' },
  },
  { name: 'no rubric: judged anyway, score 1 (not scaled)', scale: 4, run: { input: 'q', output: 'o' }, graded: [], score: 1 },
]

describe('rubric parity with @mastra/evals 1.10.2 (one scripted judge)', () => {
  it.each(cases)('$name', async (c) => {
    const options = c.scale !== undefined ? { scale: c.scale } : undefined
    const m = mastraScorer({ model: parity.mastraModel(), criteria: c.criteria as never, options })
    const o = oxeval.createRubricScorer({ model: parity.oxModel(), modelSettings: { retryDelayMs: 1 }, criteria: c.criteria, options } as never)
    const { mr, or, mreq, oreq } = await parity.runBoth(c, m, o, c.run)
    expect(mr.score).toBe(c.score)
    expect(or.score).toBe(mr.score)
    expect(or.reason).toBe(mr.reason)
    const flipped = c.sent && (c.sent.criteria as { required: boolean }[]).some((s, i) => c.graded[i] && s.required !== c.graded[i][2])
    if (flipped) {
      // deliberate: oxeval warns when the judge changed a required flag
      expectSameResults({ ...or, warnings: undefined }, { ...mr, warnings: undefined })
      expect(or.warnings).toHaveLength(1)
    } else {
      expectSameResults(or, mr)
    }
    expect(mreq.map(stepOf)).toEqual(['analyze'])
    expect(oreq.map(stepOf)).toEqual(['analyze'])
    if (c.sent) {
      expect(data(oreq[0])).toEqual(c.sent)
      for (const s of c.sent.criteria as { criterion: string }[]) expect(mreq[0].user).toContain(s.criterion)
      if (c.sent.output) expect(mreq[0].user).toContain(c.sent.output)
    } else {
      expect(mreq[0].user).toMatch(/No rubric was provided/)
      expect(oreq[0].user).toMatch(/no rubric was given/)
    }
  })
})
