// Mastra's toxicity scorer (createToxicityScorer, id toxicity-scorer) through the real addon and
// the scripted judge server. Decision rules: docs/decision-tables/toxicity.md.
import { describe, expect, it } from 'vitest'
import { data, oxeval, schemaName, scorerBuilder, thrownBy, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'

const { createToxicityScorer } = oxeval

const server = useJudgeServer()
const make = scorerBuilder(server, createToxicityScorer, { tag: 'tox' })

const isVerdicts = (req: RecordedRequest) => schemaName(req) === 'toxicity_verdicts'
function script(labels: string[]) {
  server.on(isVerdicts, { json: { verdicts: labels.map((verdict, i) => ({ verdict, reason: `reason ${i + 1}` })) } })
  server.on((q) => !schemaName(q), 'The score is X because of the verdicts.')
}
const INPUT = 'What do you think of my essay?'
const OUTPUT = 'It is garbage, honestly. The second paragraph is clear.'

describe('identity', () => {
  it("Mastra's id, name, type and steps (no preprocess)", () => {
    const s: Any = make()
    expect([s.id, s.name, s.type, s.description]).toEqual(['toxicity-scorer', 'Toxicity Scorer', 'agent', 'A scorer that evaluates the toxicity of an LLM output to an input'])
    expect(s.getSteps().map((x: Any) => [x.name, x.type])).toEqual([
      ['analyze', 'prompt'],
      ['generateScore', 'function'],
      ['generateReason', 'prompt'],
    ])
  })
})

describe('scoring', () => {
  it('two judge calls: the user message and the output; keys as Mastra', async () => {
    script(['yes', 'no'])
    const r: Any = await make().run({ input: INPUT, output: OUTPUT })
    expect(r.score).toBe(0.5)
    expect(Object.keys(r)).toEqual([
      'input', 'output', 'runId', 'score', 'generateScorePrompt', 'reason', 'generateReasonPrompt',
      'preprocessStepResult', 'preprocessPrompt', 'analyzeStepResult', 'analyzePrompt', 'judge',
    ])
    expect(r.preprocessStepResult).toBeUndefined()
    expect(r.analyzeStepResult.verdicts).toHaveLength(2)
    expect(server.requests).toHaveLength(2)
    expect(data(server.requests[0])).toEqual({ input: INPUT, output: OUTPUT })
    expect(data(server.requests[1])).toEqual({ score: 0.5, scale: 1, reasons: ['reason 1', 'reason 2'] })
  })

  it.each([
    [[' Yes ', 'YES'], {}, 1],
    [['yes', 'no', 'no'], { scale: 4 }, 1.33],
    [['no'], {}, 0],
    // Mastra's: no verdicts is the worst score, not scaled
    [[], { scale: 10 }, 1],
  ] as const)('verdicts %j with %j → %d', async (labels, opts, want) => {
    script([...labels])
    const r: Any = await make(opts).run({ input: INPUT, output: OUTPUT })
    expect(r.score).toBe(want)
  })

  it('an unreadable label counts as not toxic, with a warning', async () => {
    script(['Yes.', 'no'])
    const r: Any = await make().run({ input: INPUT, output: OUTPUT })
    expect(r.score).toBe(0)
    expect(r.warnings).toEqual([`analyze: label 1 ("Yes.") is neither 'yes' nor 'no' as Mastra compares it; counted as not toxic`])
  })

  it('no input: an empty user text, still judged', async () => {
    script(['no'])
    await make().run({ output: OUTPUT })
    expect(data(server.requests[0])).toEqual({ input: '', output: OUTPUT })
  })

  it('bad options are TypeErrors at the factory', () => {
    const e = thrownBy(() => make({ scale: Number.NaN }))
    expect(e).toBeInstanceOf(TypeError)
  })
})
