// Parity with @mastra/evals 1.10.2's createSummarizationScorer, offline: both libraries are
// pointed at ONE scripted judge that answers preprocess (schema property `alignment`), analyze
// (`coverage`) and the reason with the same replies, so any difference in score, step results
// or result keys comes from how each library reads the run and options and does its math.
// Deliberate differences (docs/decision-tables/summarization.md) are asserted as such.
import { describe, expect, it } from 'vitest'
import { createSummarizationScorer as mastraScorer } from '@mastra/evals/scorers/prebuilt'
import { expectSameResults, useParity } from './helpers/parity'
import { data, oxeval, type Any } from './helpers/setup'

interface Reply {
  alignment: unknown[]
  questions: string[]
  answered: boolean[]
  reason: string
}
const parity = useParity<Reply>({ preprocess: { property: 'alignment', schema: 'summarization_source_judgement' }, analyze: { property: 'coverage', schema: 'summarization_coverage' } }, (c, step) => {
  if (step === 'preprocess') return { json: { alignment: c.alignment, questions: c.questions } }
  if (step === 'analyze') return { json: { coverage: c.answered.map((answered, i) => ({ question: c.questions[i] ?? `q${i}`, answered, reason: `v${i}` })) } }
  return c.reason
})
const { server, stepOf } = parity

const claim = (c: string, supported: boolean) => ({ claim: c, supported, reason: `${supported}` })
const SOURCE = 'Company Y was founded in Boston in 2015. Its first model reached 95% accuracy. It moved to Seattle in 2018.'
const SUMMARY = 'Company Y, founded in Boston in 2015, built a model with 99% accuracy.'
const Qs = ['Was Company Y founded in Boston in 2015?', 'Did its first model reach 95% accuracy?', 'Did it move to Seattle in 2018?']

function runBoth(reply: Reply, options: Record<string, unknown> | undefined, run: Record<string, unknown>) {
  const m = mastraScorer({ model: parity.mastraModel(), ...(options ? { options } : {}) } as Any)
  const o = oxeval.createSummarizationScorer({ model: parity.oxModel('parity-sum'), modelSettings: { retryDelayMs: 1 }, ...(options ? { options } : {}) } as Any)
  return parity.runBoth(reply, m, o, run)
}

interface Case {
  name: string
  reply: Reply
  options?: Record<string, unknown>
  run?: Record<string, unknown>
  score: number
  /** the questions each library asks in analyze */
  asked?: string[]
}
const cases: Case[] = [
  {
    name: "Mastra's example: one claim contradicts the source; coverage 1/3 is the weaker axis",
    reply: { alignment: [claim('founded in Boston in 2015', true), claim('99% accuracy', false)], questions: Qs, answered: [true, false, false], reason: 'The score is 0.33 because.' },
    score: 0.33,
  },
  {
    name: 'alignment is the weaker axis, scale 10',
    reply: { alignment: [claim('a', true), claim('b', false), claim('c', false)], questions: Qs, answered: [true, true, true], reason: 'The score is 3.33 because.' },
    options: { scale: 10 },
    score: 3.33,
  },
  {
    name: 'maxQuestions 2: only the first two questions are asked and count',
    reply: { alignment: [claim('a', true)], questions: Qs, answered: [true, true], reason: 'The score is 1 because.' },
    options: { maxQuestions: 2 },
    score: 1,
    asked: Qs.slice(0, 2),
  },
  {
    name: 'the source option instead of the user message',
    reply: { alignment: [claim('a', true)], questions: Qs.slice(0, 2), answered: [true, false], reason: 'The score is 0.5 because.' },
    options: { source: SOURCE },
    run: { input: 'Summarize the company history.', output: SUMMARY },
    score: 0.5,
  },
  {
    name: 'an agent output whose last assistant message is the summary',
    reply: { alignment: [claim('a', true), claim('b', true)], questions: Qs, answered: [true, true, false], reason: 'The score is 0.67 because.' },
    run: {
      input: { inputMessages: [{ id: 'u1', role: 'user', createdAt: new Date(0), content: { format: 2, parts: [{ type: 'text', text: SOURCE }] } }], rememberedMessages: [], systemMessages: [], taggedSystemMessages: {} },
      output: [
        { id: 'a1', role: 'assistant', createdAt: new Date(0), content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 't', toolName: 'fetch', args: {}, result: 'doc' } }] } },
        { id: 'a2', role: 'assistant', createdAt: new Date(0), content: { format: 2, parts: [{ type: 'text', text: SUMMARY }] } },
      ],
    },
    score: 0.67,
  },
]

const AGENT_RUN = cases[cases.length - 1].run as Record<string, Any>
const seen: unknown[][] = []
const extractor = (input: unknown, output: unknown) => {
  seen.push([input, output])
  return SOURCE
}
cases.push(
  {
    name: "sourceExtractor on an agent run: called with the run's own input and output; it wins over the source option",
    reply: { alignment: [claim('a', true)], questions: Qs, answered: [true, true, true], reason: 'The score is 1 because.' },
    options: { sourceExtractor: extractor, source: 'not this one' },
    run: { ...AGENT_RUN, input: { ...AGENT_RUN.input, inputMessages: [{ id: 'u1', role: 'user', createdAt: new Date(0), content: { format: 2, parts: [{ type: 'text', text: 'Summarize the doc.' }] } }] } },
    score: 1,
  },
  {
    name: 'sourceExtractor on a plain run: not called (Mastra calls it for agent runs only); the source option is used',
    reply: { alignment: [claim('a', true)], questions: Qs, answered: [true, false, true], reason: 'The score is 0.67 because.' },
    options: { sourceExtractor: () => 'never used', source: SOURCE },
    run: { input: 'Summarize it.', output: SUMMARY },
    score: 0.67,
  },
)

describe('summarization parity with @mastra/evals 1.10.2 (one scripted judge)', () => {
  it.each(cases)('$name', async (c) => {
    const { mr, or, mreq, oreq } = await runBoth(c.reply, c.options, c.run ?? { input: SOURCE, output: SUMMARY, runId: 'parity-run' })
    expect(mr.score).toBe(c.score)
    expect(or.score).toBe(c.score)
    expectSameResults(or, mr)
    expect(mreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    // the same texts: source and summary in preprocess, the summary and questions (no source) in analyze
    expect(data(oreq[0])).toMatchObject({ source: SOURCE, summary: SUMMARY })
    expect(mreq[0].user).toContain(SOURCE)
    expect(mreq[0].user).toContain(SUMMARY)
    const asked = c.asked ?? c.reply.questions
    expect(data(oreq[1])).toEqual({ summary: SUMMARY, questions: asked })
    for (const q of asked) expect(mreq[1].user).toContain(q)
    for (const q of c.reply.questions.filter((q) => !asked.includes(q))) expect(mreq[1].user).not.toContain(q)
    expect(mreq[1].user).not.toContain(SOURCE)
  })

  it('the sourceExtractor saw the same objects in both libraries (Dates stay Dates)', () => {
    // the agent-run case above: Mastra calls it twice (preprocess and reason prompts), oxeval
    // once per run, before the first step (deliberate: one call, one source text per run)
    expect(seen).toHaveLength(3)
    const [[mi, mo], , [oi, oo]] = seen as Any[][]
    expect(oi).toEqual(mi)
    expect(oo).toEqual(mo)
    expect(oi.inputMessages[0].createdAt).toBeInstanceOf(Date)
  })

  it('fewer coverage verdicts than questions: both count the rest as unanswered; oxeval asks once more first (deliberate)', async () => {
    const reply: Reply = { alignment: [claim('a', true)], questions: Qs, answered: [true], reason: 'The score is 0.33 because.' }
    const { mr, or, mreq, oreq } = await runBoth(reply, undefined, { input: SOURCE, output: SUMMARY })
    expect([mr.score, or.score]).toEqual([0.33, 0.33])
    expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
    expect(mreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'analyze', 'generateReason'])
    expect(or.warnings).toEqual(['analyze: 1 verdict for 3 questions'])
  })

  it('no questions: both score 0; oxeval skips the coverage call (deliberate)', async () => {
    const reply: Reply = { alignment: [claim('a', true)], questions: [], answered: [], reason: 'The score is 0 because.' }
    const { mr, or, mreq, oreq } = await runBoth(reply, undefined, { input: SOURCE, output: SUMMARY })
    expect([mr.score, or.score]).toEqual([0, 0])
    expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
    expect(mreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['preprocess', 'generateReason'])
  })

  it('no source at all: Mastra judges against an empty source, oxeval rejects with a TypeError (deliberate)', async () => {
    const reply: Reply = { alignment: [], questions: [], answered: [], reason: 'x' }
    parity.current = reply
    const mr: Any = await mastraScorer({ model: parity.mastraModel() }).run({ output: SUMMARY } as Any)
    expect(mr.score).toBe(0)
    const n = server.requests.length
    await expect(oxeval.createSummarizationScorer({ model: parity.oxModel('parity-sum') }).run({ output: SUMMARY })).rejects.toThrow(TypeError)
    expect(server.requests.length).toBe(n)
    parity.current = undefined
  })
})
