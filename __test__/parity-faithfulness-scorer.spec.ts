// Parity with @mastra/evals 1.10.2's faithfulness scorer, offline: both libraries are pointed at
// ONE scripted judge that answers by the requested JSON schema with the same claims, verdicts
// and reason, so any difference in score, step results or keys comes from how each library
// reads the run and does its math. Deliberate differences, asserted as such
// (docs/decision-tables/faithfulness-scorer.md): labels are trimmed and lowercased (Mastra
// compares 'yes' exactly), no judge call for an empty output and no analyze call without
// claims, a string tool result is the context as it is (Mastra JSON-quotes it).
import { describe, expect, it } from 'vitest'
import { createFaithfulnessScorer as mastraScorer } from '@mastra/evals/scorers/prebuilt'
import { expectSameResults, useParity } from './helpers/parity'
import { data, oxeval, type Any } from './helpers/setup'

interface Case {
  name: string
  input?: unknown
  output: unknown
  options?: Record<string, unknown>
  claims: string[]
  verdicts: string[]
  /** Both libraries' score (oxeval's when `mastraScore` differs). */
  score: number
  mastraScore?: number
  /** The context oxeval sends (Mastra's context text contains each piece). */
  context: string[]
}

const parity = useParity<Case>({ preprocess: 'claims', analyze: 'verdicts' }, (c, step) => {
  if (step === 'preprocess') return { json: { claims: c.claims } }
  if (step === 'analyze') return { json: { verdicts: c.verdicts.map((verdict, i) => ({ verdict, reason: `verdict ${i + 1}` })) } }
  return `The score is ${c.score} because of the scripted verdicts.`
})
const { server, stepOf } = parity

const CONTEXT = ['The Eiffel Tower is in Paris.', 'It is 330 metres tall.', 'It opened in 1889.']
const msg = (role: string, content: Any, id = `${role}-1`) => ({ id, role, createdAt: new Date('2025-01-01T00:00:00Z'), content })

const cases: Case[] = [
  {
    name: 'strings: supported, contradicted, not mentioned',
    input: 'Tell me about the Eiffel Tower.',
    output: 'The Eiffel Tower is in Paris. It is 500 metres tall. It is painted every 7 years.',
    options: { context: CONTEXT },
    claims: ['The Eiffel Tower is in Paris.', 'The Eiffel Tower is 500 metres tall.', 'The Eiffel Tower is painted every 7 years.'],
    verdicts: ['yes', 'no', 'unsure'],
    score: 0.33,
    context: CONTEXT,
  },
  {
    name: 'all supported',
    input: 'Where is the Eiffel Tower?',
    output: 'The Eiffel Tower is in Paris and opened in 1889.',
    options: { context: CONTEXT },
    claims: ['The Eiffel Tower is in Paris.', 'The Eiffel Tower opened in 1889.'],
    verdicts: ['yes', 'yes'],
    score: 1,
    context: CONTEXT,
  },
  {
    name: 'none supported, speculative claim unsure',
    input: 'Tell me about the Eiffel Tower.',
    output: 'The Eiffel Tower might be repainted gold.',
    options: { context: CONTEXT },
    claims: ['The Eiffel Tower might be repainted gold.'],
    verdicts: ['unsure'],
    score: 0,
    context: CONTEXT,
  },
  {
    name: 'scale 10 (options form)',
    input: 'Tell me about the Eiffel Tower.',
    output: 'The Eiffel Tower is in Paris. It is 500 metres tall. It opened in 1889.',
    options: { context: CONTEXT, scale: 10 },
    claims: ['The Eiffel Tower is in Paris.', 'The Eiffel Tower is 500 metres tall.', 'The Eiffel Tower opened in 1889.'],
    verdicts: ['yes', 'no', 'yes'],
    score: 6.67,
    context: CONTEXT,
  },
  {
    name: 'agent messages: the last assistant text, the user text from inputMessages',
    input: { inputMessages: [msg('user', { format: 2, parts: [{ type: 'text', text: 'How tall is it?' }] })], rememberedMessages: [], systemMessages: [], taggedSystemMessages: {} },
    output: [msg('assistant', { format: 2, parts: [{ type: 'text', text: 'It is 330 metres tall.' }] })],
    options: { context: CONTEXT },
    claims: ['The Eiffel Tower is 330 metres tall.'],
    verdicts: ['yes'],
    score: 1,
    context: CONTEXT,
  },
]

function runBoth(c: Case, run: Record<string, unknown> = {}) {
  const m = mastraScorer({ model: parity.mastraModel(), options: c.options as Any })
  const o = oxeval.createFaithfulnessScorer({ model: parity.oxModel(), modelSettings: { retryDelayMs: 1 }, options: c.options as Any })
  return parity.runBoth(c, m, o, { input: c.input, output: c.output, ...run })
}

describe('faithfulness parity with @mastra/evals 1.10.2 (one scripted judge)', () => {
  it.each(cases)('$name', async (c) => {
    const { mr, or, mreq, oreq } = await runBoth(c, { runId: 'parity-run' })
    expect(or.score).toBe(c.score)
    expect(mr.score).toBe(c.mastraScore ?? c.score)
    expectSameResults(or, mr)
    expect(or.runId).toBe(mr.runId)
    expect(mreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    // the same texts read from the run
    const answer = data(oreq[0]).output as string
    expect(mreq[0].user).toContain(answer)
    expect(data(oreq[1])).toEqual({ context: c.context, claims: c.claims })
    for (const piece of c.context) expect(mreq[1].user).toContain(piece)
    const reasonData = data(oreq[2])
    expect(reasonData.score).toBe(c.score)
    if (reasonData.input) expect(mreq[2].user).toContain(reasonData.input)
  })

  it('labels as a model may write them (" Yes "): oxeval counts them, Mastra compares exactly (deliberate)', async () => {
    const c: Case = { ...cases[1], name: 'labels', verdicts: [' Yes ', 'YES'], score: 1, mastraScore: 0 }
    const { mr, or } = await runBoth(c)
    expect(or.score).toBe(1)
    expect(mr.score).toBe(0)
    expect(or.analyzeStepResult.verdicts.map((v: Any) => v.verdict)).toEqual(['yes', 'yes'])
    expect(mr.analyzeStepResult.verdicts.map((v: Any) => v.verdict)).toEqual([' Yes ', 'YES'])
  })

  it('no claims: the same score and step results; oxeval skips the analyze call (deliberate)', async () => {
    const c: Case = { ...cases[0], name: 'none', output: 'Hello!', claims: [], verdicts: [], score: 0 }
    const { mr, or, mreq, oreq } = await runBoth(c)
    expect([or.score, mr.score]).toEqual([0, 0])
    expect(or.preprocessStepResult).toEqual(mr.preprocessStepResult)
    expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
    expect(or.reason).toBe(mr.reason)
    expect(mreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['preprocess', 'generateReason'])
    expect(or.analyzePrompt).toBeUndefined()
  })

  it('empty output: score 0 and empty step results in both; oxeval makes no judge call (deliberate)', async () => {
    const c: Case = { ...cases[0], name: 'empty', output: '', claims: [], verdicts: [], score: 0 }
    const { mr, or, mreq, oreq } = await runBoth(c)
    expect([or.score, mr.score]).toEqual([0, 0])
    expect(or.preprocessStepResult).toEqual(mr.preprocessStepResult)
    expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
    expect(Object.keys(or).filter((k) => k !== 'judge')).toEqual(Object.keys(mr).filter((k) => k !== 'judge'))
    expect(mreq).toHaveLength(3)
    expect(oreq).toHaveLength(0)
  })

  it('tool results as context (legacy toolInvocations): the same score; Mastra JSON-quotes a string result (deliberate)', async () => {
    const output = [
      msg('assistant', {
        format: 2,
        parts: [{ type: 'text', text: 'The Eiffel Tower is in Paris.' }],
        toolInvocations: [{ state: 'result', toolCallId: 't1', toolName: 'search', args: {}, result: 'The Eiffel Tower is in Paris.' }],
      }),
    ]
    const c: Case = { ...cases[1], name: 'tools', options: undefined, output, claims: ['The Eiffel Tower is in Paris.'], verdicts: ['yes'], score: 1, context: ['The Eiffel Tower is in Paris.'] }
    const { mr, or, mreq, oreq } = await runBoth(c)
    expect([or.score, mr.score]).toEqual([1, 1])
    expect(data(oreq[1]).context).toEqual(['The Eiffel Tower is in Paris.'])
    expect(mreq[1].user).toContain('"The Eiffel Tower is in Paris."')
  })

  it('no context anywhere: Mastra judges against an empty context (score 0 after 3 calls); oxeval is a TypeError before any call (deliberate)', async () => {
    const c: Case = { ...cases[0], name: 'no context', options: undefined, verdicts: ['unsure', 'unsure', 'unsure'], score: 0 }
    parity.current = c
    const m = mastraScorer({ model: parity.mastraModel() })
    const mr: Any = await m.run({ input: c.input as Any, output: c.output as Any })
    expect(mr.score).toBe(0)
    expect(server.requests).toHaveLength(3)
    const o = oxeval.createFaithfulnessScorer({ model: parity.oxModel() })
    await expect(o.run({ input: c.input, output: c.output })).rejects.toThrow(TypeError)
    expect(server.requests).toHaveLength(3)
    parity.current = undefined
  })
})
