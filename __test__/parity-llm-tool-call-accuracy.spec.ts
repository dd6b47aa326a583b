// Parity with @mastra/evals 1.10.2's tool-call accuracy (LLM) on one scripted judge (see
// parity-bias.spec.ts); deliberate differences: docs/decision-tables/llm-tool-call-accuracy.md.
import { describe, expect, it } from 'vitest'
import { createToolCallAccuracyScorerLLM as mastraScorer } from '@mastra/evals/scorers/prebuilt'
import { createTool } from '@mastra/core/tools'
import { z } from 'zod'
import { expectSameResults, useParity } from './helpers/parity'
import { data, oxeval } from './helpers/setup'

interface Case {
  name: string
  output: unknown
  tools: string[]
  evaluations: [string, boolean][]
  missingTools?: string[]
  score: number
}

const parity = useParity<Case>({ analyze: 'evaluations' }, (c, step) => {
  if (step === 'analyze') return { json: { evaluations: c.evaluations.map(([toolCalled, wasAppropriate]) => ({ toolCalled, wasAppropriate, reasoning: 'r' })), ...(c.missingTools ? { missingTools: c.missingTools } : {}) } }
  return `Score ${c.score} in one sentence.`
})
const { stepOf } = parity

const TOOLS = [
  createTool({ id: 'search', description: 'Search the web', inputSchema: z.object({ q: z.string() }), execute: async () => ({ hits: [] }) }),
  createTool({ id: 'lookup', description: 'Look a term up', inputSchema: z.object({ term: z.string() }), execute: async () => ({}) }),
]
const msg = (role: string, content: unknown, id: string) => ({ id, role, createdAt: new Date('2025-01-01T00:00:00Z'), content })
const inv = (toolCallId: string, toolName: string, state: string) => ({ toolCallId, toolName, state, args: { q: 'x' }, ...(state === 'result' ? { result: { ok: true } } : {}) })
const input = {
  inputMessages: [msg('user', { format: 2, parts: [{ type: 'text', text: 'Search for oxeval.' }] }, 'u1')],
  rememberedMessages: [],
  systemMessages: [{ role: 'system', content: 'Use tools.' }],
  taggedSystemMessages: {},
}

const cases: Case[] = [
  {
    name: "parts and legacy toolInvocations in Mastra's merge order, every state",
    output: [
      msg('assistant', {
        format: 2,
        parts: [
          { type: 'tool-invocation', toolInvocation: inv('c', 'fetch', 'output-error') },
          { type: 'tool-invocation', toolInvocation: inv('b', 'lookup', 'result') },
          { type: 'tool-invocation', toolInvocation: inv('d', 'draft', 'partial-call') },
          { type: 'text', text: 'Found it.' },
        ],
        toolInvocations: [inv('a', 'search', 'result'), inv('b', 'lookup', 'result')],
      }, 'a1'),
    ],
    tools: ['fetch', 'search', 'lookup'],
    evaluations: [['fetch', false], ['search', true], ['lookup', true]],
    score: 0.67,
  },
  { name: 'no calls, a missed tool → 0', output: [msg('assistant', { format: 2, parts: [{ type: 'text', text: 'No idea.' }] }, 'a1')], tools: [], evaluations: [], missingTools: ['search'], score: 0 },
  { name: 'no calls, a right clarification → 1', output: [msg('assistant', { format: 2, parts: [{ type: 'text', text: 'Which oxeval?' }] }, 'a1')], tools: [], evaluations: [], score: 1 },
  {
    name: 'calls across messages (ids absent: `m-i` ids)',
    output: [
      msg('assistant', { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { toolName: 'search', state: 'call', args: {} } }] }, 'a1'),
      msg('assistant', { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { toolName: 'lookup', state: 'result', args: {}, result: 1 } }, { type: 'text', text: 'Done.' }] }, 'a2'),
    ],
    tools: ['search', 'lookup'],
    evaluations: [['search', true], ['lookup', false]],
    score: 0.5,
  },
]

describe('tool-call accuracy (LLM) parity with @mastra/evals 1.10.2 (one scripted judge)', () => {
  it.each(cases)('$name', async (c) => {
    const m = mastraScorer({ model: parity.mastraModel(), availableTools: TOOLS as never })
    const o = oxeval.createToolCallAccuracyScorerLLM({ model: parity.oxModel(), modelSettings: { retryDelayMs: 1 }, availableTools: TOOLS as never })
    const { mr, or, mreq, oreq } = await parity.runBoth(c, m, o, { input, output: c.output })
    expect(mr.score).toBe(c.score)
    expect(or.score).toBe(mr.score)
    expectSameResults(or, mr)
    expect(or.preprocessStepResult.actualTools).toEqual(c.tools)
    expect(mreq.map(stepOf)).toEqual(['analyze', 'generateReason'])
    expect(oreq.map(stepOf)).toEqual(['analyze', 'generateReason'])
    expect(data(oreq[0]).toolsCalled).toEqual(c.tools)
    expect(mreq[0].user).toContain(`TOOLS THE AGENT ACTUALLY CALLED: ${c.tools.length ? c.tools.join(', ') : 'None'}`)
    expect(data(oreq[0]).availableTools).toEqual([{ id: 'search', description: 'Search the web' }, { id: 'lookup', description: 'Look a term up' }])
  })
})
