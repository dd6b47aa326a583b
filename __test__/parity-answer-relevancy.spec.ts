// Parity with @mastra/evals 1.10.2's answer relevancy scorer, offline: both libraries are
// pointed at ONE scripted judge (the local judge server) that answers by the requested JSON
// schema with the same statements, verdicts and reason for both, so any difference in score,
// step results or result keys comes from how each library reads the run and does its math.
// The deliberate differences are asserted as such (see docs/decision-tables/answer-relevancy.md):
// oxeval normalizes verdict labels, makes no judge call for an empty output and no analyze call
// when there are no statements, and reads the user's question from a bare message array.
import { describe, expect, it } from 'vitest'
import { createAnswerRelevancyScorer as mastraScorer } from '@mastra/evals/scorers/prebuilt'
import { useParity } from './helpers/parity'
import { data, oxeval, type Any } from './helpers/setup'

interface Case {
  name: string
  input: unknown
  output: unknown
  /** The texts each library should find in the run. */
  question: string
  answer: string
  statements: string[]
  verdicts: string[]
  score: number
}

const parity = useParity<Case>({ preprocess: 'statements', analyze: 'results' }, (c, step) => {
  if (step === 'preprocess') return { json: { statements: c.statements } }
  if (step === 'analyze') return { json: { results: c.verdicts.map((result, i) => ({ result, reason: `verdict ${i + 1}` })) } }
  return `The score is ${c.score} because of the scripted verdicts.`
})
const { stepOf } = parity

const Q = 'What is the capital of France?'
const agentMessage = (role: 'user' | 'assistant', parts: unknown[], id = `${role}-1`) => ({
  id,
  role,
  createdAt: new Date('2025-01-01T00:00:00Z'),
  content: { format: 2, parts },
})
const agentInput = (text: string) => ({
  inputMessages: [agentMessage('user', [{ type: 'text', text }])],
  rememberedMessages: [],
  systemMessages: [{ role: 'system', content: 'Answer briefly.' }],
  taggedSystemMessages: {},
})

const cases: Case[] = [
  {
    name: 'strings: a direct answer and a topic-only remark',
    input: Q,
    output: 'Paris is the capital of France. France is a beautiful country with great food and culture.',
    question: Q,
    answer: 'Paris is the capital of France. France is a beautiful country with great food and culture.',
    statements: ['Paris is the capital of France.', 'France is a beautiful country with great food and culture.'],
    verdicts: ['yes', 'no'],
    score: 0.5,
  },
  {
    name: "strings: Mastra's incorrect-answer case (unsure)",
    input: Q,
    output: 'Lyon is the capital of France.',
    question: Q,
    answer: 'Lyon is the capital of France.',
    statements: ['Lyon is the capital of France.'],
    verdicts: ['unsure'],
    score: 0.3,
  },
  {
    name: 'strings: an error message (no)',
    input: Q,
    output: 'Error: the upstream model timed out (504).',
    question: Q,
    answer: 'Error: the upstream model timed out (504).',
    statements: ['Error: the upstream model timed out (504).'],
    verdicts: ['no'],
    score: 0,
  },
  {
    name: 'strings: a one-word answer',
    input: Q,
    output: 'Paris.',
    question: Q,
    answer: 'Paris.',
    statements: ['Paris.'],
    verdicts: ['yes'],
    score: 1,
  },
  {
    name: "agent input ({ inputMessages }) and Mastra's Agent output (MastraDBMessage[], content.parts)",
    input: agentInput("What is Japan's largest city?"),
    output: [agentMessage('assistant', [{ type: 'step-start' }, { type: 'text', text: "Tokyo is Japan's largest city. Japan has beautiful seasons." }])],
    question: "What is Japan's largest city?",
    answer: "Tokyo is Japan's largest city. Japan has beautiful seasons.",
    statements: ["Tokyo is Japan's largest city.", 'Japan has beautiful seasons.'],
    verdicts: ['yes', 'no'],
    score: 0.5,
  },
  {
    name: 'agent output: the last non-empty assistant text wins (a later tool-only message is skipped)',
    input: agentInput('How tall is Mount Everest?'),
    output: [
      agentMessage('assistant', [{ type: 'text', text: 'Mount Everest is about 8,849 m tall. Trees grow tall.' }], 'a-1'),
      agentMessage('assistant', [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolName: 'log', args: {}, result: 'ok' } }], 'a-2'),
    ],
    question: 'How tall is Mount Everest?',
    answer: 'Mount Everest is about 8,849 m tall. Trees grow tall.',
    statements: ['Mount Everest is about 8,849 m tall.', 'Trees grow tall.'],
    verdicts: ['yes', 'no'],
    score: 0.5,
  },
  {
    name: '{ messages } input (first user message) and a { role, content } output',
    input: {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is the boiling point of water?' },
        { role: 'assistant', content: 'At sea level?' },
        { role: 'user', content: 'Yes.' },
      ],
    },
    output: { role: 'assistant', content: 'Water boils at 100 °C at sea level. Olive oil gets much hotter.' },
    question: 'What is the boiling point of water?',
    answer: 'Water boils at 100 °C at sea level. Olive oil gets much hotter.',
    statements: ['Water boils at 100 °C at sea level.', 'Olive oil gets much hotter.'],
    verdicts: ['yes', 'unsure'],
    score: 0.65,
  },
  {
    name: 'AI SDK ModelMessage output (content: [{ type: "text" }])',
    input: { prompt: 'Who wrote Hamlet?' },
    output: [{ role: 'assistant', content: [{ type: 'text', text: 'Shakespeare wrote Hamlet.' }] }],
    question: 'Who wrote Hamlet?',
    answer: 'Shakespeare wrote Hamlet.',
    statements: ['Shakespeare wrote Hamlet.'],
    verdicts: ['yes'],
    score: 1,
  },
  {
    name: 'verdict labels as a model may write them (" Yes ", "UNSURE")',
    input: Q,
    output: 'Paris is the capital. The Seine runs through it. I like bread.',
    question: Q,
    answer: 'Paris is the capital. The Seine runs through it. I like bread.',
    statements: ['Paris is the capital.', 'The Seine runs through it.', 'I like bread.'],
    verdicts: [' Yes ', 'UNSURE', 'no'],
    score: 0.43,
  },
]

const norm = (step: Any) => ({ results: step.results.map((r: Any) => ({ ...r, result: r.result.trim().toLowerCase() })) })

function runBoth(c: Case, run: Record<string, unknown> = {}) {
  const m = mastraScorer({ model: parity.mastraModel() })
  const o = oxeval.createAnswerRelevancyScorer({ model: parity.oxModel(), modelSettings: { retryDelayMs: 1 } })
  return parity.runBoth(c, m, o, { input: c.input, output: c.output, ...run })
}

describe('answer relevancy parity with @mastra/evals 1.10.2 (one scripted judge)', () => {
  it.each(cases)('$name', async (c) => {
    const { mr, or, mreq, oreq } = await runBoth(c, { runId: 'parity-run' })
    // the same score, reason, statements and verdicts
    expect(or.score).toBe(c.score)
    expect(mr.score).toBe(c.score)
    expect(or.reason).toBe(mr.reason)
    expect(or.preprocessStepResult).toEqual(mr.preprocessStepResult)
    // deliberate: oxeval records labels trimmed and lowercased; Mastra keeps the judge's text
    expect(or.analyzeStepResult).toEqual(norm(mr.analyzeStepResult))
    if (c.verdicts.every((v) => v === v.trim().toLowerCase())) expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
    // the same result keys in the same order, the run echoed
    expect(Object.keys(or)).toEqual(Object.keys(mr))
    expect(or.runId).toBe(mr.runId)
    expect(or.input).toEqual(mr.input)
    // the same three calls, and both libraries read the same texts from the run
    expect(mreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(data(oreq[0]).output).toBe(c.answer)
    expect(mreq[0].user).toContain(c.answer)
    expect(data(oreq[1])).toEqual({ input: c.question, statements: c.statements })
    expect(mreq[1].user).toContain(JSON.stringify(c.question))
    for (const s of c.statements) expect(mreq[1].user).toContain(s)
  })

  it('no statements: the same score and step results; oxeval skips the analyze call (deliberate)', async () => {
    const c: Case = { name: 'none', input: Q, output: 'Hmm…', question: Q, answer: 'Hmm…', statements: [], verdicts: [], score: 0 }
    const { mr, or, mreq, oreq } = await runBoth(c)
    expect(or.score).toBe(0)
    expect(mr.score).toBe(0)
    expect(or.preprocessStepResult).toEqual(mr.preprocessStepResult)
    expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
    expect(or.reason).toBe(mr.reason)
    expect(mreq.map(stepOf)).toEqual(['preprocess', 'analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['preprocess', 'generateReason'])
    // no analyze prompt was sent, so oxeval's result has no analyzePrompt value
    expect(or.analyzePrompt).toBeUndefined()
  })

  it('empty output: score 0 and empty step results in both; oxeval makes no judge call (deliberate)', async () => {
    const c: Case = { name: 'empty', input: Q, output: '', question: Q, answer: '', statements: [], verdicts: [], score: 0 }
    const { mr, or, mreq, oreq } = await runBoth(c)
    expect(or.score).toBe(0)
    expect(mr.score).toBe(0)
    expect(or.preprocessStepResult).toEqual(mr.preprocessStepResult)
    expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
    expect(mreq).toHaveLength(3)
    expect(oreq).toHaveLength(0)
    expect(or.reason).toMatch(/^The score is 0 because the output is empty/)
  })

  it("a bare message array as input (Mastra's createTestRun shape): Mastra sends an empty question, oxeval the user's text (known difference)", async () => {
    const c: Case = {
      name: 'array input',
      input: [{ role: 'user', content: Q }],
      output: { role: 'assistant', text: 'Paris is the capital of France.' },
      question: Q,
      answer: 'Paris is the capital of France.',
      statements: ['Paris is the capital of France.'],
      verdicts: ['yes'],
      score: 1,
    }
    const { mr, or, mreq, oreq } = await runBoth(c)
    expect(or.score).toBe(mr.score)
    expect(or.analyzeStepResult).toEqual(mr.analyzeStepResult)
    expect(data(oreq[1]).input).toBe(Q)
    expect(mreq[1].user).not.toContain(Q)
    expect(mreq[1].user).toMatch(/Input:\s*""/)
  })

  // AI SDK v5 UI messages: oxeval reads a message's top-level `parts` (text parts joined), as
  // Mastra does.
  it('AI SDK v5 UI-message output ({ role, parts }) reads the same text in both', async () => {
    const c: Case = {
      name: 'ui parts',
      input: Q,
      output: [{ id: 'ui-1', role: 'assistant', parts: [{ type: 'step-start' }, { type: 'text', text: 'Paris is the capital of France.' }] }],
      question: Q,
      answer: 'Paris is the capital of France.',
      statements: ['Paris is the capital of France.'],
      verdicts: ['yes'],
      score: 1,
    }
    const { mr, or, mreq, oreq } = await runBoth(c)
    expect(mreq[0].user).toContain(c.answer)
    expect(mr.score).toBe(1)
    expect(oreq.length > 0 && data(oreq[0]).output).toBe(c.answer)
    expect(or.score).toBe(1)
  })
})
