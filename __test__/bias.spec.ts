// Mastra's bias scorer (createBiasScorer, id bias-scorer) through the real addon and the
// scripted judge server. Decision rules: docs/decision-tables/bias.md.
import { describe, expect, it } from 'vitest'
import { data, oxeval, schemaName, scorerBuilder, thrownBy, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'

const { createBiasScorer } = oxeval

const server = useJudgeServer()
const make = scorerBuilder(server, createBiasScorer, { tag: 'bias' })

const isOpinions = (req: RecordedRequest) => schemaName(req) === 'opinions'
const isVerdicts = (req: RecordedRequest) => schemaName(req) === 'bias_verdicts'
function script(opinions: string[], labels: string[]) {
  server.on(isOpinions, { json: { opinions } })
  server.on(isVerdicts, { json: { results: labels.map((result, i) => ({ result, reason: `reason ${i + 1}` })) } })
  server.on((q) => !schemaName(q), 'The score is X because of the opinions.')
}
const OUTPUT = 'I think city people are always rude. The train leaves at 9.'

describe('identity', () => {
  it("Mastra's id, name, type, description and steps; lower is better", () => {
    const s: Any = make()
    expect([s.id, s.name, s.type, s.description]).toEqual(['bias-scorer', 'Bias Scorer', 'agent', 'A scorer that evaluates the bias of an LLM output to an input'])
    expect(s.getSteps().map((x: Any) => [x.name, x.type])).toEqual([
      ['preprocess', 'prompt'],
      ['analyze', 'prompt'],
      ['generateScore', 'function'],
      ['generateReason', 'prompt'],
    ])
  })
})

describe('scoring', () => {
  it('opinions → verdicts → share of yes; the output alone is read; keys as Mastra', async () => {
    script(['I think city people are always rude.'], ['yes'])
    const r: Any = await make().run({ input: 'Tell me about the city.', output: OUTPUT })
    expect(r.score).toBe(1)
    expect(r.reason).toBe('The score is X because of the opinions.')
    expect(Object.keys(r)).toEqual([
      'input', 'output', 'runId', 'score', 'generateScorePrompt', 'reason', 'generateReasonPrompt',
      'preprocessStepResult', 'preprocessPrompt', 'analyzeStepResult', 'analyzePrompt', 'judge',
    ])
    expect(r.preprocessStepResult).toEqual({ opinions: ['I think city people are always rude.'] })
    expect(r.analyzeStepResult).toEqual({ results: [{ result: 'yes', reason: 'reason 1' }] })
    const [pre, an, reason] = server.requests
    expect(data(pre)).toEqual({ output: OUTPUT })
    expect(data(an)).toEqual({ output: OUTPUT, opinions: ['I think city people are always rude.'] })
    expect(data(reason)).toEqual({ score: 1, scale: 1, reasons: ['reason 1'] })
    for (const q of server.requests) expect(q.user).not.toContain('Tell me about the city')
  })

  it.each([
    [['yes', 'no'], {}, 0.5],
    [['yes', 'no', 'no'], { scale: 10 }, 3.33],
    [['YES', 'no', 'no'], { options: { scale: 3 } }, 1],
    [[], {}, 0],
  ] as const)('labels %j with %j → %d', async (labels, opts, want) => {
    script(labels.map((_, i) => `opinion ${i}`), [...labels])
    const r: Any = await make(opts).run({ output: OUTPUT })
    expect(r.score).toBe(want)
    expect(r.warnings).toBeUndefined()
  })

  it("Mastra's untrimmed compare is kept (\" yes\" is not biased) and named in a warning", async () => {
    script(['a', 'b'], [' yes', 'YES'])
    const r: Any = await make().run({ output: OUTPUT })
    expect(r.score).toBe(0.5)
    expect(r.analyzeStepResult.results.map((x: Any) => x.result)).toEqual([' yes', 'YES'])
    expect(r.warnings).toEqual([`analyze: label 1 (" yes") is neither 'yes' nor 'no' as Mastra compares it; counted as not biased`])
  })

  it('agent output: the last assistant text is judged; the judge is called even for an empty output', async () => {
    script([], [])
    const out = [
      { id: 'm1', role: 'assistant', createdAt: new Date(), content: { format: 2, parts: [{ type: 'text', text: 'First.' }] } },
      { id: 'm2', role: 'assistant', createdAt: new Date(), content: { format: 2, parts: [{ type: 'text', text: 'Last answer.' }] } },
    ]
    await make().run({ output: out })
    expect(data(server.requests[0]).output).toBe('Last answer.')
    server.reset()
    script([], [])
    const r: Any = await make().run({ output: '' })
    expect(server.requests).toHaveLength(3)
    expect(r.score).toBe(0)
  })

  it('bad options are TypeErrors at the factory', () => {
    for (const bad of [{ scale: 0 }, { scale: 'x' }, { options: { scale: -1 } }]) {
      const e = thrownBy(() => make(bad))
      expect(e).toBeInstanceOf(TypeError)
      expect(e.message).toMatch(/scale/)
    }
  })
})
