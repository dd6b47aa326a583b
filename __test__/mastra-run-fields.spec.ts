// oxeval/mastra's run fields are derived data: the keys it copies from a Mastra run into
// oxeval's run (RUN_KEYS in mastra/core.js) are the base keys plus every registry scorer's run
// fields. Every run field of every registry scorer reaches the oxeval run.
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { failure, useJudgeServer, uniqueModelId, type Any } from './helpers/setup'

const require = createRequire(import.meta.url)
const { registry } = require('../load-binding.js')
const SCORERS: Any[] = require('../generated/scorers.js')
const core = require('../mastra/core.js')
const mastra = require('../mastra/index.js')

const BASE = ['runId', 'input', 'output', 'groundTruth', 'context', 'requestContext']
/** A registry scorer's own run fields: its run-fields schema (the generator's source) and its generated list. */
function runFieldsOf(s: Any): string[] {
  const spec = SCORERS.find((x) => x.factory === s.factory)
  // the registry lists every field a scorer reads; the base keys are set by the test itself
  const listed = Array.isArray(s.runFields) ? s.runFields : Object.keys(s.runFields?.properties ?? {})
  return [...new Set([...listed, ...(spec?.runFields ?? [])])].filter((k) => !BASE.includes(k))
}
const scorers: Any[] = registry().scorers
/** Options a factory cannot do without (beside model). */
const OWN: Record<string, object> = {
  createMultiTurnJudgeScorer: { criterion: 'c' },
  createToolCallAccuracyScorerLLM: { availableTools: [] },
  createClassifierScorer: { classifier: { questions: { safe: { type: 'boolean' } } }, question: 'safe', state: ({ run }: Any) => run.output },
}

const server = useJudgeServer()

describe('oxeval/mastra: run fields from the registry', () => {
  it('RUN_KEYS holds the base keys and every registry scorer’s run fields', () => {
    expect(scorers.length).toBe(SCORERS.length)
    const fields = scorers.flatMap(runFieldsOf)
    expect(fields.length).toBeGreaterThan(0)
    for (const k of [...BASE, ...fields]) expect(core.RUN_KEYS).toContain(k)
    const run = Object.fromEntries([...BASE, ...fields, 'somethingElse'].map((k) => [k, `value of ${k}`]))
    const ox = core.oxevalRun(run)
    for (const k of [...BASE, ...fields]) expect(ox[k]).toBe(`value of ${k}`)
    expect(ox.somethingElse).toBeUndefined()
  })

  // a judged scorer: its partial result after a failing judge carries the oxeval run
  // (with the text code scorers, which score any text: they have no judge to fail)
  // run fields a scorer needs in their shape (Ragas's tool metrics: the reference calls)
  const SHAPED: Record<string, unknown> = { referenceToolCalls: [{ name: 'search', args: { q: 'Paris' } }] }
  const AGENT_CODE = ['code-tool-call-accuracy-scorer', 'code-trajectory-accuracy-scorer', 'code-trajectory-scorer']
  const judged = scorers.filter((s) => (s.kind !== 'code' || !AGENT_CODE.includes(s.id)) && !s.id.startsWith('check-'))
  it.each(judged.map((s) => [s.factory, s] as [string, Any]))('%s: every run field reaches the oxeval run', async (factory, s) => {
    server.on(() => true, () => ({ status: 500, body: 'down' }))
    const fields = runFieldsOf(s)
    const run: Record<string, unknown> = { input: 'What is the capital of France?', output: 'Paris is the capital of France.', groundTruth: 'Paris.', context: ['Paris is the capital of France.'] }
    for (const k of fields) run[k] = SHAPED[k] ?? `the run's ${k}`
    // an embeddings scorer: its embedder at the scripted judge (embeddings requests are not judge calls)
    const embedder = s.hostCalls?.includes('embed') ? { embedder: { id: uniqueModelId('run-fields'), url: server.url, apiKey: 'k' } } : {}
    const scorer = mastra[factory]({ model: { id: uniqueModelId('run-fields'), url: server.url }, modelSettings: { retryDelayMs: 1, maxRetries: 0 }, ...embedder, ...OWN[factory] })
    if (s.kind === 'code') {
      // no judge to fail: the result itself is shaped from the oxeval run
      const r = await scorer.run(run)
      expect(Number.isFinite(r.score)).toBe(true)
      for (const k of Object.keys(run)) expect(r[k], k).toEqual(run[k])
      expect(server.requests.filter((q) => q.texts === undefined)).toHaveLength(0)
      return
    }
    const e = await failure(scorer.run(run))
    expect(e).toBeInstanceOf(mastra.ScorerRunError)
    // the partial result is shaped from the oxeval run: it carries every field copied into it
    for (const k of Object.keys(run)) expect(e.result[k], k).toEqual(run[k])
    expect(server.requests.length).toBeGreaterThan(0)
  })

  // a code scorer (no judge) wrapped by oxeval/mastra: its step results show the run fields it
  // read (the checks keep their positional form and are not wrapped)
  const code = scorers.filter((s) => AGENT_CODE.includes(s.id))
  it.each(code.map((s) => [s.factory, s] as [string, Any]))('%s (code): every run field reaches the oxeval run', async (factory, s) => {
    const fields = runFieldsOf(s)
    const expected = { steps: [{ name: 'get_weather' }], maxSteps: 4 }
    const run: Record<string, unknown> = { input: 'q', output: [{ role: 'assistant', content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { toolName: 'get_weather', state: 'result', result: {} } }] } }] }
    for (const k of fields) run[k] = expected
    const scorer = mastra[factory](factory === 'createToolCallAccuracyScorerCode' ? { expectedTool: 'get_weather' } : {})
    const r = await scorer.run(run)
    expect(r.score).toBe(1)
    if (fields.includes('expectedTrajectory')) {
      const pre = r.preprocessStepResult
      expect(pre.config ?? pre.expectedTrajectory).toMatchObject(factory === 'createTrajectoryScorerCode' ? expected : { steps: expected.steps })
    }
  })
})
