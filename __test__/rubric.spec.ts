// Mastra's rubric scorer (createRubricScorer, id rubric-scorer) through the real addon and the
// scripted judge server. Decision rules: docs/decision-tables/rubric.md.
import { describe, expect, it } from 'vitest'
import { data, oxeval, schemaName, scorerBuilder, thrownBy, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'

const { createRubricScorer } = oxeval

const server = useJudgeServer()
const make = scorerBuilder(server, createRubricScorer, { tag: 'rubric' })

const isAnalysis = (req: RecordedRequest) => schemaName(req) === 'rubric_analysis'
const graded = (rows: [string, boolean, boolean][]) => ({
  criteria: rows.map(([criterion, satisfied, required]) => ({ criterion, satisfied, required, reasoning: `why ${criterion}` })),
  overallAssessment: 'Summary.',
})
const script = (rows: [string, boolean, boolean][]) => server.on(isAnalysis, { json: graded(rows) })

describe('identity', () => {
  it("Mastra's id, name, no type; the reason is a function step", () => {
    const s: Any = make()
    expect([s.id, s.name, s.type]).toEqual(['rubric-scorer', 'Rubric (LLM)', undefined])
    expect(s.getSteps().map((x: Any) => [x.name, x.type])).toEqual([
      ['analyze', 'prompt'],
      ['generateScore', 'function'],
      ['generateReason', 'function'],
    ])
  })
})

describe('scoring', () => {
  it('text criteria: one judge call; 1 only when every required criterion is met; the checklist reason', async () => {
    script([['Has a title', true, true], ['Cites a source', false, true]])
    const r: Any = await make({ criteria: '1. Has a title\n2) Cites a source\n\n' }).run({ input: 'Write a report.', output: 'Report: …' })
    expect(r.score).toBe(0)
    expect(server.requests).toHaveLength(1)
    expect(data(server.requests[0])).toEqual({
      task: 'Write a report.',
      criteria: [{ criterion: 'Has a title', required: true }, { criterion: 'Cites a source', required: true }],
      output: 'Report: …',
    })
    expect(r.generateReasonPrompt).toBeUndefined()
    expect(r.reason).toBe(
      '❌ Rubric not yet satisfied.\n\n✅ [required] Has a title\n   → why Has a title\n❌ [required] Cites a source\n   → why Cites a source\n\nSummary.\n\nTo finish, address the 1 unmet required criterion above.',
    )
    expect(Object.keys(r).slice(-9)).toEqual([
      'score', 'generateScorePrompt', 'reason', 'generateReasonPrompt', 'preprocessStepResult', 'preprocessPrompt', 'analyzeStepResult', 'analyzePrompt', 'judge',
    ])
    expect(Object.keys(r.judge)).toEqual(['analyze'])
  })

  it('list criteria with optional ones; scale (0 stays 0)', async () => {
    const criteria = [{ id: 'a', description: 'Is short' }, { description: 'Is funny', required: false }]
    for (const [opts, want] of [[{ scale: 5 }, 5], [{ options: { scale: 0 } }, 0]] as const) {
      server.reset()
      script([['Is short', true, true], ['Is funny', false, false]])
      const r: Any = await make({ criteria, ...opts }).run({ output: 'Hi.' })
      expect(r.score).toBe(want)
      expect(data(server.requests[0]).criteria).toEqual([{ criterion: 'Is short', required: true }, { criterion: 'Is funny', required: false }])
    }
  })

  it("the judge's required flags decide (Mastra's), with a warning when it changed one", async () => {
    script([['A', true, true], ['B', false, false]])
    const r: Any = await make({ criteria: 'A\nB' }).run({ output: 'o' })
    expect(r.score).toBe(1)
    expect(r.warnings).toEqual(["analyze: the judge changed the required flag of criterion 2 (required); the score uses the judge's flags, as Mastra does"])
  })

  it('a per-run rubric: requestContext, then additionalContext, then input', async () => {
    script([['x', true, true]])
    await make().run({ input: { rubric: 'from input' }, output: 'o', additionalContext: { rubric: 'from additional' }, requestContext: { rubric: 'from context' } } as Any)
    expect(data(server.requests[0]).criteria).toEqual([{ criterion: 'from context', required: true }])
    server.reset()
    script([['x', true, true]])
    await make().run({ input: { rubric: 'from input' }, output: 'o', additionalContext: { rubric: 'from additional' } } as Any)
    expect(data(server.requests[0]).criteria).toEqual([{ criterion: 'from additional', required: true }])
    server.reset()
    script([['x', true, true]])
    await make().run({ input: { rubric: '- from input', originalTask: 'The task.', currentText: 'draft' }, output: [] } as Any)
    expect(data(server.requests[0])).toEqual({ task: 'The task.', criteria: [{ criterion: 'from input', required: true }], output: 'draft' })
  })

  it('no rubric anywhere: the judge is still called (Mastra) and the score is 1', async () => {
    server.on(isAnalysis, { json: { criteria: [], overallAssessment: 'Nothing.' } })
    const r: Any = await make({ scale: 7 }).run({ input: 'q', output: 'o' })
    expect(r.score).toBe(1)
    expect(r.reason).toBe('No rubric was provided, so the rubric check passed by default.')
    expect(server.requests).toHaveLength(1)
  })

  it('bad criteria are TypeErrors at the factory', () => {
    for (const bad of [{ criteria: 3 }, { criteria: [{ text: 'x' }] }, { criteria: [{ description: 'x', required: 'yes' }] }, { scale: -1 }]) {
      expect(thrownBy(() => make(bad))).toBeInstanceOf(TypeError)
    }
  })
})
