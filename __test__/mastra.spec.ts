// oxeval/mastra against the real @mastra/core: real MastraScorer instances whose run is
// oxeval's pipeline, in runEvals (Agent and Workflow targets), new Mastra({ scorers }), Agent
// live scoring, Mastra's storage, @mastra/evals/vitest; errors are MastraErrors.
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test'
import { Agent } from '@mastra/core/agent'
import { MastraScorer, ScorerRunError as MastraScorerRunError, createScorer, runEvals } from '@mastra/core/evals'
import { MastraError } from '@mastra/core/error'
import { NoOpObservability } from '@mastra/core/observability'
import { Mastra } from '@mastra/core/mastra'
import { InMemoryStore } from '@mastra/core/storage'
import { createStep, createWorkflow } from '@mastra/core/workflows'
import { z } from 'zod'
import * as esm from '../mastra/index.mjs'
import { oxeval, failure, useJudgeServer, uniqueModelId, type Any } from './helpers/setup'

const require = createRequire(import.meta.url)
// this file imports @mastra/core as ESM, so it uses the ESM entry (instanceof holds per format)
const mastraEntry = esm
const { createAnswerRelevancyScorer, createFactualCorrectnessScorer, createAnswerAccuracyScorer } = mastraEntry

const server = useJudgeServer()
const model = () => ({ id: uniqueModelId('mastra'), url: server.url })
const settings = { retryDelayMs: 1, maxRetries: 0 }
const relevancy = (extra: Record<string, unknown> = {}) => createAnswerRelevancyScorer({ model: model(), modelSettings: settings, ...extra })

/** The judge answers by the step asked (schema name / reason prompt), so concurrent runs work. */
function scriptRelevancy(verdict = 'yes') {
  server.on(
    (q) => /statement/i.test(String((q.body?.response_format as Any)?.json_schema?.name ?? q.system)) && q.user.includes('break the assistant output'),
    () => ({ json: { statements: ['Paris is the capital of France.'] } }),
  )
  server.on(
    (q) => q.user.includes('decide whether it is relevant'),
    () => ({ json: { results: [{ result: verdict, reason: 'on topic' }] } }),
  )
  server.on(
    (q) => q.user.includes('explain an answer relevancy score'),
    () => `The score is ${verdict === 'yes' ? 1 : 0} because the statement is ${verdict === 'yes' ? '' : 'not '}relevant.`,
  )
}

/** An AI SDK v6 mock model answering every prompt with `text`. */
function mockModel(text = 'Paris is the capital of France.') {
  const usage = { inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } }
  return new MockLanguageModelV3({
    doGenerate: async () => ({ content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }) as Any,
    doStream: async () =>
      ({
        stream: simulateReadableStream({
          chunks: [
            { type: 'stream-start', warnings: [] },
            { type: 'text-start', id: 't1' },
            { type: 'text-delta', id: 't1', delta: text },
            { type: 'text-end', id: 't1' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
          ],
        }),
      }) as Any,
  })
}

/** A recording observability entrypoint (@mastra/core ships only the no-op one): spans and scores. */
function recordingObservability() {
  const spans: Any[] = []
  const scores: Any[] = []
  let n = 0
  const makeSpan = (opts: Any, parent?: Any): Any => {
    const span: Any = {
      id: `s${++n}`,
      traceId: parent ? parent.traceId : `trace-${n}`,
      type: opts.type,
      name: opts.name,
      parent,
      input: opts.input,
      attributes: opts.attributes,
      isInternal: false,
      isValid: true,
      createChildSpan: (o: Any) => makeSpan(o, span),
      createEventSpan: (o: Any) => makeSpan(o, span),
      findParent: (t: string) => {
        let p = span.parent
        while (p && p.type !== t) p = p.parent
        return p
      },
      end: (o: Any) => Object.assign(span, { ended: true, output: o?.output }),
      error: (o: Any) => Object.assign(span, { ended: true, failure: o?.error }),
      update: (o: Any) => Object.assign((span.attributes ??= {}), o?.attributes ?? {}),
      getParentSpanId: () => parent?.id,
      executeInContext: (fn: () => unknown) => fn(),
      executeInContextSync: (fn: () => unknown) => fn(),
    }
    spans.push(span)
    return span
  }
  const observability: Any = new NoOpObservability()
  const instance = new Proxy({ startSpan: (o: Any) => makeSpan(o) } as Any, { get: (t, k) => (k in t ? t[k] : () => undefined) })
  observability.getSelectedInstance = () => instance
  observability.addScore = async (a: Any) => void scores.push(a)
  return { observability, spans, scores }
}

const mastraSide = () => createScorer({ id: 'mastra-length', description: 'output present', type: 'agent' }).generateScore(() => 1)

async function scoresOf(storage: InstanceType<typeof InMemoryStore>, scorerId: string) {
  const store = (await storage.getStore('scores'))!
  const r = await store.listScoresByScorerId({ scorerId, pagination: { page: 0, perPage: 100 } } as Any)
  return r.scores
}

describe('oxeval/mastra: real MastraScorer instances', () => {
  it('every factory returns a MastraScorer (CJS and ESM), with oxeval identity, steps and options', () => {
    // the judged factories (the code scorers: mastra-run-fields.spec.ts; checks are not wrapped)
    const judged = new Set(require('../generated/scorers.js').filter((x: Any) => x.kind !== 'code').map((x: Any) => x.factory))
    // options a factory cannot do without (beside model)
    const own: Record<string, object> = {
      createMultiTurnJudgeScorer: { criterion: 'c' },
      createToolCallAccuracyScorerLLM: { availableTools: [] },
      createClassifierScorer: { classifier: { questions: { safe: { type: 'boolean' } } }, question: 'safe', state: () => 'x' },
    }
    for (const name of Object.keys(oxeval).filter((k) => k.startsWith('create') && judged.has(k))) {
      const s = (mastraEntry as Any)[name]({ model: 'openai/gpt-4o-mini', contextExtractor: () => [], ...own[name] })
      const plain = (oxeval as Any)[name]({ model: 'openai/gpt-4o-mini', contextExtractor: () => [], ...own[name] })
      expect(s).toBeInstanceOf(MastraScorer)
      expect(typeof s.__registerMastra).toBe('function')
      // Mastra's type: 'agent', 'trajectory', or undefined (prompt alignment, rubric, multi-turn judge)
      expect([s.id, s.name, s.description, s.type]).toEqual([plain.id, plain.name, plain.description, plain.type])
      expect(['agent', 'trajectory', undefined]).toContain(plain.type)
      expect(s.judge).toEqual(plain.judge)
      expect(s.getSteps().map((x: Any) => x.name)).toEqual(
        ['preprocess', 'analyze', 'generateScore', 'generateReason'].filter((n) => plain.getSteps().some((p: Any) => p.name === n)),
      )
      // the CommonJS entry builds over the CommonJS @mastra/core
      const cjs = require('../mastra/index.js')[name]({ model: 'openai/gpt-4o-mini', ...own[name] })
      expect(cjs).toBeInstanceOf(require('@mastra/core/evals').MastraScorer)
    }
    const custom = relevancy({ id: 'my-relevancy', name: 'Mine', description: 'mine' })
    expect([custom.id, custom.name, custom.description]).toEqual(['my-relevancy', 'Mine', 'mine'])
    expect(relevancy({ cache: true }).cacheStats()).toMatchObject({ hits: 0 })
    expect(() => createAnswerRelevancyScorer({ model: 'openai/x', uncertaintyWeight: 7 })).toThrow(TypeError)
  })

  it("run() returns oxeval's result (prompts, step results, judge records) plus Mastra's runId", async () => {
    scriptRelevancy('yes')
    const run = { input: 'What is the capital of France?', output: 'Paris is the capital of France.' }
    const r = await relevancy().run(run)
    const plain = await oxeval.createAnswerRelevancyScorer({ model: model(), modelSettings: settings }).run(run)
    expect(r.score).toBe(1)
    expect(r.reason).toBe(plain.reason)
    for (const k of ['preprocessStepResult', 'analyzeStepResult', 'preprocessPrompt', 'analyzePrompt', 'generateReasonPrompt', 'generateScorePrompt'] as const) {
      expect(r[k], k).toEqual(plain[k])
    }
    expect(Object.keys(r.judge!)).toEqual(Object.keys(plain.judge!))
    expect(r.judge!.analyze.executions[0]).toMatchObject({ status: 'success', judgeProvider: 'openai', attemptCount: 1 })
    expect(r.runId).toMatch(/^[0-9a-f-]{36}$/)
    const given = await relevancy().run({ ...run, runId: 'run-1' })
    expect(given.runId).toBe('run-1')
  })

  it('prepareRun (Mastra) runs before oxeval sees the run', async () => {
    scriptRelevancy('yes')
    const s = relevancy({ prepareRun: (run: Any) => ({ ...run, output: 'Paris is the capital of France.' }) })
    const r = await s.run({ input: 'q', output: '' })
    expect(r.score).toBe(1) // an empty output would have scored 0 without a judge call
  })

  it('a failed step rejects with a MastraError (Mastra ScorerRunError) carrying oxeval fields', async () => {
    server.on(() => true, () => ({ status: 500, body: 'down' }))
    const e = await failure(relevancy().run({ input: 'q', output: 'a.' }))
    expect(e).toBeInstanceOf(MastraScorerRunError)
    expect(e).toBeInstanceOf(MastraError)
    expect(e).toBeInstanceOf(mastraEntry.ScorerRunError)
    expect(e).toMatchObject({ name: 'ScorerRunError', code: 'OXEVAL_JUDGE_HTTP', failedStep: 'preprocess', completedSteps: [], id: 'MASTR_SCORER_FAILED_TO_RUN_WORKFLOW_FAILED', domain: 'SCORER', category: 'USER' })
    expect(e.message).toMatch(/^Scorer Run Failed: step 'preprocess' failed: .*HTTP 500/)
    expect(e.details).toMatchObject({ scorerId: 'answer-relevancy-scorer', code: 'OXEVAL_JUDGE_HTTP', failedStep: 'preprocess' })
    expect(e.cause.status).toBe(500)
    expect(e.result.judge.preprocess.executions[0].status).toBe('failed')
    expect(e.toJSON()).toMatchObject({ code: 'MASTR_SCORER_FAILED_TO_RUN_WORKFLOW_FAILED', domain: 'SCORER', details: { code: 'OXEVAL_JUDGE_HTTP' } })
  })

  it('a failure after completed steps keeps them; abort and wrong input are MastraErrors too', async () => {
    server.on((q) => q.user.includes('break the assistant output'), () => ({ json: { statements: ['a'] } }))
    server.on(() => true, () => ({ status: 400, body: 'bad' }))
    const e = await failure(relevancy().run({ input: 'q', output: 'a.' }))
    expect(e).toMatchObject({ failedStep: 'analyze', completedSteps: ['preprocess'] })
    expect(e.result.preprocessStepResult).toEqual({ statements: ['a'] })
    server.reset()
    server.enqueue({ fault: 'hang' })
    const ac = new AbortController()
    const p = relevancy().run({ input: 'q', output: 'a.' }, { signal: ac.signal })
    await server.waitForRequests(1)
    ac.abort()
    const a = await failure(p)
    expect(a).toBeInstanceOf(MastraError)
    expect(a).toMatchObject({ name: 'AbortError', code: 'OXEVAL_ABORTED', id: 'OXEVAL_SCORER_RUN_ABORTED', failedStep: 'preprocess' })
    const t = await failure(relevancy().run({ input: 'q', output: 10n } as Any))
    expect(t).toBeInstanceOf(MastraError)
    expect(t.code).toBe('OXEVAL_INVALID_INPUT')
    expect(t.cause).toBeInstanceOf(Error)
  })

  it("the main entry's ScorerRunError carries MastraError's fields", async () => {
    server.on(() => true, () => ({ status: 500, body: 'down' }))
    const e = await failure(oxeval.createAnswerRelevancyScorer({ model: model(), modelSettings: settings }).run({ input: 'q', output: 'a.' }))
    expect(e).toBeInstanceOf(oxeval.ScorerRunError)
    expect(e).toMatchObject({ id: 'MASTR_SCORER_FAILED_TO_RUN_WORKFLOW_FAILED', domain: 'SCORER', category: 'USER', details: { code: 'OXEVAL_JUDGE_HTTP', failedStep: 'preprocess', completedSteps: '' } })
    const json = JSON.parse(JSON.stringify(e))
    expect(json).toMatchObject({ message: e.message, code: 'MASTR_SCORER_FAILED_TO_RUN_WORKFLOW_FAILED', domain: 'SCORER', category: 'USER', cause: { status: 500 } })
    expect(e.toJSONDetails()).toEqual({ message: e.message, domain: 'SCORER', category: 'USER', details: e.details })
    expect(Object.keys(e)).not.toContain('toJSON')
  })
})

describe('oxeval/mastra inside Mastra', () => {
  it('new Mastra({ scorers }) and addScorer register the scorers', () => {
    const rel = relevancy()
    const fc = createFactualCorrectnessScorer({ model: model() })
    const mastra = new Mastra({ scorers: { rel, fc }, logger: false })
    expect(mastra.getScorerById('answer-relevancy-scorer')).toBe(rel)
    expect(mastra.getScorer('fc')).toBe(fc)
    const aa = createAnswerAccuracyScorer({ model: model() })
    mastra.addScorer(aa)
    expect(mastra.getScorerById('answer-accuracy-scorer')).toBe(aa)
  })

  it("registered with Mastra: Mastra's scorer_run / scorer_step spans, scoreTraceId, the observability score", async () => {
    scriptRelevancy('yes')
    const rec = recordingObservability()
    const rel = relevancy()
    new Mastra({ scorers: { rel }, observability: rec.observability, logger: false })
    const r = await rel.run({ input: 'What is the capital of France?', output: 'Paris is the capital of France.' })
    const run = rec.spans.find((x) => x.type === 'scorer_run')
    expect(run).toMatchObject({ name: "scorer run: 'answer-relevancy-scorer'", ended: true, output: { success: true, score: 1 } })
    expect(r.scoreTraceId).toBe(run.traceId)
    const steps = rec.spans.filter((x) => x.type === 'scorer_step')
    expect(steps.map((x) => x.name)).toEqual(["scorer step: 'preprocess'", "scorer step: 'analyze'", "scorer step: 'generateScore'", "scorer step: 'generateReason'"])
    expect(steps[0].output).toEqual({ statements: ['Paris is the capital of France.'] })
    expect(steps.every((x) => x.traceId === run.traceId && x.ended)).toBe(true)
    expect(rec.scores).toEqual([expect.objectContaining({ score: expect.objectContaining({ scorerId: 'answer-relevancy-scorer', score: 1, scoreTraceId: run.traceId }) })])
    // a failed run ends its span with the error
    server.reset()
    server.on(() => true, () => ({ status: 500, body: 'down' }))
    await failure(rel.run({ input: 'q', output: 'a.' }))
    expect(rec.spans.filter((x) => x.type === 'scorer_run').at(-1).failure).toBeInstanceOf(Error)
  })

  it('runEvals with an Agent target: bare, { scorer, threshold }, gates, mixed with a Mastra scorer; scores saved to storage', async () => {
    scriptRelevancy('yes')
    const storage = new InMemoryStore()
    const rel = relevancy()
    const gate = relevancy({ id: 'relevancy-gate' })
    const agent = new Agent({ id: 'geo', name: 'geo', instructions: 'Answer.', model: mockModel() })
    new Mastra({ agents: { geo: agent }, storage, scorers: { rel, gate }, logger: false })
    const mastraOwn = mastraSide()
    const result = await runEvals({
      target: agent,
      data: [{ input: 'What is the capital of France?' }, { input: 'Capital of France?' }],
      scorers: [{ scorer: rel, threshold: 0.8 }, mastraOwn],
      gates: [gate],
      concurrency: 2,
    })
    expect(result.scores).toMatchObject({ 'answer-relevancy-scorer': 1, 'mastra-length': 1 })
    expect(result.verdict).toBe('passed')
    expect(result.summary.totalItems).toBe(2)
    const saved = await scoresOf(storage, 'answer-relevancy-scorer')
    expect(saved).toHaveLength(2)
    expect(saved[0]).toMatchObject({ scorerId: 'answer-relevancy-scorer', score: 1, entityType: 'AGENT' })
    expect(saved[0].reason).toMatch(/^The score is 1/)
    expect((saved[0] as Any).preprocessStepResult).toEqual({ statements: ['Paris is the capital of France.'] })
  })

  it('runEvals with a Workflow target (workflow and step scorers)', async () => {
    scriptRelevancy('no')
    const storage = new InMemoryStore()
    const rel = relevancy()
    const step = createStep({
      id: 'answer',
      inputSchema: z.object({ prompt: z.string() }),
      outputSchema: z.string(),
      execute: async () => 'I like croissants.',
    })
    const workflow = createWorkflow({ id: 'wf', inputSchema: z.object({ prompt: z.string() }), outputSchema: z.string() }).then(step).commit()
    new Mastra({ workflows: { wf: workflow }, storage, logger: false })
    const result = await runEvals({ target: workflow, data: [{ input: { prompt: 'Capital of France?' } }], scorers: { workflow: [rel], steps: { answer: [rel] } } })
    expect(result.scores.workflow['answer-relevancy-scorer']).toBe(0)
    expect(result.scores.steps.answer['answer-relevancy-scorer']).toBe(0)
  })

  it('Agent live scoring saves scores through Mastra storage', async () => {
    scriptRelevancy('yes')
    const storage = new InMemoryStore()
    const agent = new Agent({
      id: 'live',
      name: 'live',
      instructions: 'Answer.',
      model: mockModel(),
      scorers: { rel: { scorer: relevancy({ id: 'live-relevancy' }), sampling: { type: 'ratio', rate: 1 } } },
    })
    new Mastra({ agents: { live: agent }, storage, logger: false })
    await agent.generate('What is the capital of France?')
    let saved: Any[] = []
    for (let i = 0; i < 100 && saved.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20))
      saved = await scoresOf(storage, 'live-relevancy')
    }
    expect(saved).toHaveLength(1)
    expect(saved[0]).toMatchObject({ scorerId: 'live-relevancy', score: 1, source: 'LIVE' })
  })

  it('@mastra/evals/vitest expectEval takes oxeval scorers', async () => {
    scriptRelevancy('yes')
    const { expectEval } = await import('@mastra/evals/vitest')
    const agent = new Agent({ id: 'v', name: 'v', instructions: 'Answer.', model: mockModel() })
    const r = await expectEval({ target: agent, data: { input: 'Capital of France?' }, scorers: [{ scorer: relevancy(), threshold: 0.5 }] }).toPass()
    expect(r.scores['answer-relevancy-scorer']).toBe(1)
  })

  it('tsc: oxeval/mastra scorers type-check in every Mastra placement without a cast', () => {
    const root = fileURLToPath(new URL('..', import.meta.url))
    execFileSync('npx', ['tsc', '-p', '__test__/types/tsconfig.mastra.json'], { cwd: root, stdio: 'pipe' })
  }, 120_000)
})
