// Custom scorers (createScorer, the `custom` kind): the same definitions built once with
// @mastra/core's createScorer and once with oxeval's, pointed at ONE scripted judge that
// answers by the prompt's text, so any difference in score, step results, prompts, result
// keys or error fields comes from the builders. Then what oxeval adds: notScorable (Mastra
// 1.71, not in the installed 1.67), bounds, the run's signal, runEvals.
import { describe, expect, it } from 'vitest'
import { createScorer as mastraCreateScorer } from '@mastra/core/evals'
import { z } from 'zod'
import { failure, oxeval, uniqueModelId, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'

const { createScorer, notScorable, isNotScorable, ScorerRunError, AbortError, runEvals } = oxeval as Any

/** Replies by the prompt's text: `[needle, json | text]`. */
let replies: [string, unknown][] = []
const server = useJudgeServer({
  handler: (req: RecordedRequest) => {
    const hit = replies.find(([needle]) => req.user.includes(needle))
    if (!hit) return { status: 500, content: `no reply for: ${req.user.slice(0, 80)}` }
    return typeof hit[1] === 'string' ? hit[1] : { json: hit[1] }
  },
})
const mastraModel = () => ({ id: 'openai/gpt-4o-mini', url: server.url, apiKey: 'x' })
const oxModel = () => ({ id: uniqueModelId('custom'), url: server.url })
const INSTRUCTIONS = 'You grade answers about capitals.'

/** A definition built with either builder: `build(createScorer, model)`. */
type Build = (create: Any, model: Any) => Any

async function both(build: Build, run: Record<string, unknown>) {
  const start = server.requests.length
  const m = build(mastraCreateScorer, mastraModel())
  const mr: Any = await m.run(structuredClone(run))
  const mreq = server.requests.slice(start)
  const mid = server.requests.length
  const o = build(createScorer, oxModel())
  const or: Any = await o.run(structuredClone(run))
  const oreq = server.requests.slice(mid)
  return { m, o, mr, or, mreq, oreq }
}

const STEP_KEYS = ['score', 'generateScorePrompt', 'reason', 'generateReasonPrompt', 'preprocessStepResult', 'preprocessPrompt', 'analyzeStepResult', 'analyzePrompt']

/** The same result apart from the run id and the judge records' timings/usage. */
function expectSame(or: Any, mr: Any) {
  const keys = (r: Any) => Object.keys(r).filter((k) => k !== 'runId')
  expect(keys(or)).toEqual(keys(mr))
  for (const k of STEP_KEYS) expect(or[k], k).toEqual(mr[k])
  expect(Object.keys(or.judge ?? {})).toEqual(Object.keys(mr.judge ?? {}))
  for (const [step, j] of Object.entries<Any>(mr.judge ?? {})) {
    const oj = or.judge[step]
    expect(oj.executions.map((e: Any) => e.status)).toEqual(j.executions.map((e: Any) => e.status))
    expect(oj.executions.map((e: Any) => e.output)).toEqual(j.executions.map((e: Any) => e.output))
    expect(oj.executions.map((e: Any) => e.prompt)).toEqual(j.executions.map((e: Any) => e.prompt))
  }
}

const RUN = { input: 'What is the capital of France?', output: 'Paris is the capital.', groundTruth: 'Paris' }

describe('parity with @mastra/core createScorer on one scripted judge', () => {
  it('function steps only: values reach later steps and the result unchanged (a Set stays a Set); no judge key', async () => {
    const build: Build = (create) =>
      create({ id: 'words', description: 'word overlap', type: 'agent' })
        .preprocess(({ run }: Any) => ({ words: new Set(String(run.output).toLowerCase().match(/\w+/g)), at: new Date(0) }))
        .analyze(({ results, run }: Any) => ({ hit: results.preprocessStepResult.words.has(String(run.groundTruth).toLowerCase()) }))
        .generateScore(({ results }: Any) => (results.analyzeStepResult.hit ? 1 : 0))
        .generateReason(({ score, results }: Any) => `score ${score}, ${results.preprocessStepResult.words.size} words`)
    const { m, o, mr, or, mreq, oreq } = await both(build, RUN)
    expect([mreq.length, oreq.length]).toEqual([0, 0])
    expectSame(or, mr)
    expect(or.score).toBe(1)
    expect(or.reason).toBe('score 1, 4 words')
    expect(or.preprocessStepResult.words).toBeInstanceOf(Set)
    expect(or.preprocessStepResult.at).toBeInstanceOf(Date)
    expect('judge' in or).toBe(false)
    expect([o.id, o.name, o.description, o.type]).toEqual([m.id, m.name, m.description, m.type])
    expect(o.getSteps()).toEqual(m.getSteps())
    expect(typeof or.runId).toBe('string')
  })

  it('prompt steps: a Zod schema (extra keys dropped), a JSON Schema (extra keys kept), a prompt score and a prompt reason', async () => {
    replies = [
      ['List the claims', { claims: ['Paris is the capital'], note: 'extra' }],
      ['Judge each claim', { verdicts: [{ claim: 'Paris is the capital', ok: true }], extra: 'kept' }],
      ['Give a score', { score: 0.9 }],
      ['Explain the score', 'Because the claim is right.'],
    ]
    const build: Build = (create, model) =>
      create({ id: 'claims', description: 'claims are right', judge: { model, instructions: INSTRUCTIONS } })
        .preprocess({
          description: 'claims',
          outputSchema: z.object({ claims: z.array(z.string()) }),
          createPrompt: ({ run }: Any) => `List the claims of: ${run.output}`,
        })
        .analyze({
          description: 'verdicts',
          outputSchema: {
            type: 'object',
            properties: { verdicts: { type: 'array', items: { type: 'object', properties: { claim: { type: 'string' }, ok: { type: 'boolean' } }, required: ['claim', 'ok'] } } },
            required: ['verdicts'],
          },
          createPrompt: ({ results }: Any) => `Judge each claim: ${JSON.stringify(results.preprocessStepResult)}`,
        })
        .generateScore({ description: 'score', createPrompt: ({ results }: Any) => `Give a score for ${results.analyzeStepResult.verdicts.length} verdicts` })
        .generateReason({ description: 'reason', createPrompt: ({ score }: Any) => `Explain the score ${score}` })
    const { mr, or, mreq, oreq } = await both(build, RUN)
    expectSame(or, mr)
    expect(or.preprocessStepResult).toEqual({ claims: ['Paris is the capital'] })
    expect(or.analyzeStepResult.extra).toBe('kept')
    expect(or.score).toBe(0.9)
    expect(or.reason).toBe('Because the claim is right.')
    expect(or.preprocessPrompt).toBe('List the claims of: Paris is the capital.')
    // Zod's parse reached the next step: its prompt has no `note`
    expect(or.analyzePrompt).toBe('Judge each claim: {"claims":["Paris is the capital"]}')
    expect(oreq.map((r) => r.system.split('\n')[0])).toEqual(mreq.map((r) => r.system.split('\n')[0]))
    expect(oreq[0].system.startsWith(INSTRUCTIONS)).toBe(true)
    expect(Object.keys(or.judge)).toEqual(['preprocess', 'analyze', 'generateScore', 'generateReason'])
  })

  it("a step's judge overrides the scorer's field by field; prepareRun's run is what steps see and the result echoes", async () => {
    replies = [['Rate', { score: 0.5 }]]
    const build: Build = (create, model) =>
      create({ id: 'rated', description: 'r', judge: { model, instructions: INSTRUCTIONS }, prepareRun: (run: Any) => ({ ...run, output: String(run.output).toUpperCase(), added: true }) })
        .generateScore({ description: 's', judge: { instructions: 'You are strict.' }, createPrompt: ({ run }: Any) => `Rate ${run.output}` })
    const { mr, or, mreq, oreq } = await both(build, RUN)
    expectSame(or, mr)
    expect(or.output).toBe('PARIS IS THE CAPITAL.')
    expect(or.added).toBe(true)
    expect(oreq[0].system.startsWith('You are strict.')).toBe(true)
    expect(mreq[0].system.startsWith('You are strict.')).toBe(true)
  })

  it('a step that throws: ScorerRunError naming it, the completed steps and the partial result', async () => {
    const build: Build = (create) =>
      create({ id: 'fails', description: 'f' })
        .preprocess(() => ({ n: 1 }))
        .analyze(() => {
          throw new RangeError('analysis broke')
        })
        .generateScore(() => 1)
    const mErr: Any = await failure(build(mastraCreateScorer, mastraModel()).run(RUN))
    const oErr: Any = await failure(build(createScorer, oxModel()).run(RUN))
    expect(oErr).toBeInstanceOf(ScorerRunError)
    expect(mErr.constructor.name).toBe('ScorerRunError')
    expect(oErr.id).toBe(mErr.id)
    expect([oErr.failedStep, oErr.completedSteps]).toEqual([mErr.failedStep, mErr.completedSteps])
    expect(oErr.message).toContain('analysis broke')
    expect(mErr.message).toContain('analysis broke')
    expect(oErr.result.preprocessStepResult).toEqual(mErr.result.preprocessStepResult)
    expect(oErr.cause.name).toBe('RangeError')
    expect(oErr.code).toBe('OXEVAL_CUSTOM_STEP')
  })

  it('no generateScore: both refuse the run with "Cannot execute pipeline without generateScore() step"', async () => {
    const build: Build = (create) => create({ id: 'noscore', description: 'n' }).preprocess(() => 1)
    const mErr: Any = await failure(build(mastraCreateScorer, mastraModel()).run(RUN))
    const oErr: Any = await failure(build(createScorer, oxModel()).run(RUN))
    expect(mErr.message).toMatch(/Cannot execute pipeline without generateScore\(\) step/)
    expect(oErr.message).toMatch(/Cannot execute pipeline without generateScore\(\) step/)
  })

  it('a missing id: both throw at createScorer', () => {
    expect(() => mastraCreateScorer({ description: 'x' } as Any)).toThrow(/must have an ID/)
    expect(() => createScorer({ description: 'x' })).toThrow(/must have an ID/)
    expect(() => createScorer({ description: 'x' })).toThrow(TypeError)
  })
})

describe('what oxeval adds', () => {
  it('notScorable: the run ends without a score; the other seven keys stay; isNotScorable knows Mastra\'s symbol', async () => {
    const s = createScorer({ id: 'tools', description: 't' })
      .preprocess(({ run }: Any) => (Array.isArray(run.output) ? { n: run.output.length } : notScorable('no messages')))
      .generateScore(() => 1)
    const r: Any = await s.run(RUN)
    expect(r.notScorable).toEqual({ step: 'preprocess', reason: 'no messages' })
    expect('score' in r).toBe(false)
    for (const k of STEP_KEYS.filter((k) => k !== 'score')) expect(k in r, k).toBe(true)
    expect(isNotScorable(notScorable())).toBe(true)
    expect(isNotScorable({ [Symbol.for('mastra.evals.notScorable')]: true })).toBe(true)
    expect(isNotScorable({ reason: 'x' })).toBe(false)
    const scored: Any = await s.run({ ...RUN, output: [1, 2] })
    expect(scored.score).toBe(1)
  })

  it('a score that is not a finite number, and a createPrompt that gives no string, fail their step (no judge request)', async () => {
    for (const bad of ['0.5', NaN, undefined, { s: 1 }]) {
      const e: Any = await failure(createScorer({ id: 'bad', description: 'b' }).generateScore(() => bad).run(RUN))
      expect(e).toBeInstanceOf(ScorerRunError)
      expect([e.failedStep, e.code, e.cause.name]).toEqual(['generateScore', 'OXEVAL_CUSTOM_STEP', 'TypeError'])
      expect(e.message).toMatch(/generateScore must give a finite number/)
    }
    const n = server.requests.length
    const e: Any = await failure(
      createScorer({ id: 'p', description: 'p', judge: { model: oxModel(), instructions: 'x' } })
        .preprocess({ description: 'p', outputSchema: z.object({ a: z.string() }), createPrompt: () => 42 })
        .generateScore(() => 1)
        .run(RUN),
    )
    expect([e.failedStep, e.cause.name]).toEqual(['preprocess', 'TypeError'])
    expect(e.message).toMatch(/preprocess's createPrompt must return a string; got number/)
    expect(server.requests.length).toBe(n)
  })

  it('a step that never settles is bounded by callbackTimeoutMs; an abort ends it as AbortError', async () => {
    const never = createScorer({ id: 'slow', description: 's' }).generateScore(() => new Promise(() => {}))
    const e: Any = await failure(never.run(RUN, { callbackTimeoutMs: 40 }))
    expect([e.failedStep, e.code, e.cause.name]).toEqual(['generateScore', 'OXEVAL_CUSTOM_STEP', 'TimeoutError'])
    let seen: AbortSignal | undefined
    const ac = new AbortController()
    const waits = createScorer({ id: 'waits', description: 'w' }).generateScore((ctx: Any) => {
      seen = ctx.signal
      setTimeout(() => ac.abort(), 5)
      return new Promise(() => {})
    })
    const a: Any = await failure(waits.run(RUN, { signal: ac.signal }))
    expect(a).toBeInstanceOf(AbortError)
    expect(seen?.aborted).toBe(true)
  })

  it('every judge form works: a judge function for the scorer, an AI SDK model for one step (each step asks its own)', async () => {
    const { MockLanguageModelV3 } = await import('ai/test')
    const seen: string[] = []
    const fn = async (req: Any) => {
      seen.push(`fn:${req.schemaName ?? 'text'}`)
      return req.schemaName ? JSON.stringify({ ok: true }) : 'fine'
    }
    const sdk = new MockLanguageModelV3({
      provider: 'mock-provider',
      modelId: 'step-model',
      doGenerate: async (o: Any) => {
        seen.push(`sdk:${o.responseFormat?.name ?? 'text'}`)
        return { content: [{ type: 'text', text: JSON.stringify({ score: 0.25 }) }], finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: { total: 3 }, outputTokens: { total: 2 } }, warnings: [] }
      },
    })
    const s = createScorer({ id: 'forms', description: 'f', judge: { model: fn, instructions: 'Judge.' } })
      .preprocess({ description: 'p', outputSchema: z.object({ ok: z.boolean() }), createPrompt: () => 'Is it ok?' })
      .generateScore({ description: 's', judge: { model: sdk }, createPrompt: () => 'Score it.' })
      .generateReason({ description: 'r', createPrompt: () => 'Why?' })
    const r: Any = await s.run(RUN)
    expect(r.preprocessStepResult).toEqual({ ok: true })
    expect(r.score).toBe(0.25)
    expect(r.reason).toBe('fine')
    expect(seen).toEqual(['fn:forms_preprocess', 'sdk:custom_score', 'fn:text'])
    expect(r.judge.generateScore.executions[0].judgeModelId).toBe('step-model')
  })

  it('bad definitions are TypeErrors naming the problem', async () => {
    expect(() => createScorer({ id: 'x', description: 'd' }).preprocess(42)).toThrow(/takes a function \(ctx\) => value or a prompt object/)
    expect(() => createScorer(null)).toThrow(TypeError)
    const s = createScorer({ id: 'x', description: 'd', judge: { model: oxModel(), instructions: 'i' } })
      .analyze({ description: 'a', outputSchema: { type: 7 }, createPrompt: () => 'p' })
      .generateScore(() => 1)
    await expect(s.run(RUN)).rejects.toThrow(/the analyze step's outputSchema is not a valid JSON Schema/)
  })

  it('runEvals counts not-scorable runs per scorer and leaves them out of the mean and the coverage', async () => {
    const s = createScorer({ id: 'tools', description: 't' })
      .preprocess(({ run }: Any) => (String(run.output).includes('tool') ? {} : notScorable('no tool call')))
      .generateScore(({ run }: Any) => (String(run.output).includes('ok') ? 1 : 0))
    const data = [{ output: 'tool ok' }, { output: 'tool bad' }, { output: 'plain' }]
    const r: Any = await runEvals({ data, scorers: [{ scorer: s, threshold: 0.5 }] })
    expect(r.scores.tools).toBe(0.5)
    expect(r.summary.notScorable).toEqual({ tools: 1 })
    expect(r.coverage.tools).toEqual({ scored: 2, total: 2 })
    expect(r.summary.erroredItems).toBe(0)
    expect(r.items[2].results.tools.notScorable).toEqual({ step: 'preprocess', reason: 'no tool call' })
    expect(r.outcome.status).toBe('passed')
    // the Vitest matchers say it
    const { expectEvals } = await import('../vitest/index.mjs')
    const e: Any = await expectEvals({ data, scorers: [{ scorer: s, threshold: 0.9 }] }).toPass().catch((x: Any) => x)
    expect(String(e.message)).toMatch(/scored 2\/2, 1 not scorable/)
    // nothing scorable at all is never a pass
    const none: Any = await runEvals({ data: [{ output: 'plain' }], scorers: [s] })
    expect(none.outcome.passed).toBe(false)
    expect(none.outcome.reasons.map((x: Any) => x.kind)).toContain('nothing-scored')
  })

  it('runEvals scores custom scorers with the built-in ones', async () => {
    const s = createScorer({ id: 'len', description: 'short answers' }).generateScore(({ run }: Any) => (String(run.output).length < 30 ? 1 : 0))
    const r: Any = await runEvals({ data: [{ input: 'q', output: 'short' }, { input: 'q', output: 'a much longer answer than thirty chars' }], scorers: [s] })
    expect(r.scores.len).toBe(0.5)
    expect(r.summary.totalItems).toBe(2)
  })
})

describe('the CLI runs custom scorers from a module', () => {
  it('--scorers MODULE: exported scorers and { scorer, threshold }; a module without scorers is exit 2', async () => {
    const { runCli, tempDir, jsonl, readOut } = await import('./helpers/cli')
    const { join } = await import('node:path')
    const t = tempDir('oxeval-custom-cli-')
    const index = join(process.cwd(), 'index.js')
    const mod = t.write(
      'scorers.mjs',
      `import ox from ${JSON.stringify(index)}
export const short = ox.createScorer({ id: 'short', description: 'short answers' }).generateScore(({ run }) => (String(run.output).length < 12 ? 1 : 0))
export default [{ scorer: ox.createScorer({ id: 'mentions-paris', description: 'p' }).generateScore(({ run }) => (/paris/i.test(String(run.output)) ? 1 : 0)), threshold: 0.9 }]
`,
    )
    const none = t.write('none.mjs', 'export const x = 1\n')
    const data = t.write('items.jsonl', jsonl([{ id: 'a', input: 'capital?', output: 'Paris' }, { id: 'b', input: 'capital?', output: 'I think it is Lyon' }]))
    const out = t.p('out.jsonl')
    try {
      const r = await runCli(['run', '--data', data, '--scorers', mod, '--out', out, '--no-progress'])
      expect(r.code, r.stderr).toBe(1) // mentions-paris 0.5 < 0.9
      expect(r.stdout).toMatch(/short/)
      expect(r.stdout).toMatch(/mentions-paris/)
      const o = readOut(out)
      expect(o.header.scorers.map((s: Any) => s.id)).toEqual(['mentions-paris', 'short'])
      expect(o.header.scorers[0].threshold).toBe(0.9)
      expect(o.items.find((i: Any) => i.id === 'a').results.short.score).toBe(1)
      // notScorable in the summary
      const nsMod = t.write('ns.mjs', `import ox from ${JSON.stringify(index)}
export default ox.createScorer({ id: 'has-paris', description: 'p' }).preprocess(({ run }) => (/paris/i.test(String(run.output)) ? {} : ox.notScorable('no city'))).generateScore(() => 1)
`)
      const ns = await runCli(['run', '--data', data, '--scorers', nsMod, '--no-progress', '--junit', t.p('j.xml'), '--html', t.p('r.html')])
      expect(ns.code, ns.stderr).toBe(0)
      expect(ns.stdout).toMatch(/not scorable \(left out of mean and coverage\): has-paris 1/)
      const { readFileSync } = await import('node:fs')
      expect(readFileSync(t.p('j.xml'), 'utf8')).toContain('<skipped message="not scorable at preprocess: no city"/>')
      expect(readFileSync(t.p('r.html'), 'utf8')).toContain('"notScorable":{"step":"preprocess","reason":"no city"}')
      const bad = await runCli(['run', '--data', data, '--scorers', none, '--no-progress'])
      expect(bad.code).toBe(2)
      expect(bad.stderr).toMatch(/exports no scorer/)
    } finally {
      t.remove()
    }
  })
})

describe('oxeval/mastra createScorer', () => {
  it('returns real MastraScorers (also after chaining) that score as oxeval does; prepareRun runs once', async () => {
    const { createRequire } = await import('node:module')
    const req = createRequire(import.meta.url)
    const m = req('../mastra/index.js')
    const { MastraScorer } = req('@mastra/core/evals')
    let prepared = 0
    const s = m
      .createScorer({ id: 'm-custom', description: 'd', prepareRun: (r: Any) => (prepared++, { ...r, output: String(r.output).trim() }) })
      .preprocess(({ run }: Any) => ({ len: run.output.length }))
      .generateScore(({ results }: Any) => (results.preprocessStepResult.len === 5 ? 1 : 0))
    expect(s).toBeInstanceOf(MastraScorer)
    const r: Any = await s.run({ input: 'q', output: ' Paris ' })
    expect(r.score).toBe(1)
    expect(r.preprocessStepResult).toEqual({ len: 5 })
    expect(prepared).toBe(1)
    expect(m.notScorable).toBe(notScorable)
  })
})

describe('custom scorers with the offline test judge and the response cache', () => {
  it('createTestJudge answers a custom prompt step from its schema; the disk cache replays it with no request', async () => {
    const { createTestJudge } = await import('../testing/index.mjs')
    const { mkdtempSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const tj = await createTestJudge()
    const dir = mkdtempSync(join(tmpdir(), 'oxeval-custom-cache-'))
    try {
      const build = (mode: string) =>
        createScorer({ id: 'cached', description: 'c', judge: { model: tj.model, instructions: 'Rate it.' }, cache: { dir, mode } })
          .analyze({ description: 'rate', outputSchema: z.object({ rating: z.number(), label: z.string() }), createPrompt: ({ run }: Any) => `Rate: ${run.output}` })
          .generateScore(({ results }: Any) => (typeof results.analyzeStepResult.rating === 'number' ? 1 : 0))
          .generateReason({ description: 'why', createPrompt: ({ score }: Any) => `Explain ${score}` })
      const r: Any = await build('record').run(RUN)
      expect(typeof r.reason).toBe('string')
      expect(r.score).toBe(1)
      expect(Object.keys(r.analyzeStepResult).sort()).toEqual(['label', 'rating'])
      const n = tj.requests.length
      expect(n).toBe(2)
      const again: Any = await build('replay').run(RUN)
      expect(again.analyzeStepResult).toEqual(r.analyzeStepResult)
      expect(tj.requests.length).toBe(n)
      // a changed prompt is a replay miss, never a silent answer
      const miss: Any = await failure(
        createScorer({ id: 'cached', description: 'c', judge: { model: tj.model, instructions: 'Rate it.' }, cache: { dir, mode: 'replay' } })
          .analyze({ description: 'rate', outputSchema: z.object({ rating: z.number(), label: z.string() }), createPrompt: () => 'Rate something else' })
          .generateScore(() => 1)
          .run(RUN),
      )
      expect(miss.code).toBe('OXEVAL_CACHE_MISS')
    } finally {
      await tj.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
