// Hostile input from JavaScript: every case gets a clear TypeError (or a normal result),
// never a crash, a hang or a silent 0.
import { describe, expect, it } from 'vitest'
import { failure, oxeval, scorerBuilder, STEP, useJudgeServer } from './helpers/setup'

const { createAnswerRelevancyScorer } = oxeval

const server = useJudgeServer()
const scorer = scorerBuilder(server, createAnswerRelevancyScorer)
function happy() {
  server.on(STEP.preprocess, { json: { statements: ['s'] } })
  server.on(STEP.analyze, { json: { results: [{ result: 'yes', reason: 'r' }] } })
  server.on(STEP.generateReason, 'The score is 1 because yes.')
}

async function expectTypeError(p: Promise<unknown>, re: RegExp) {
  const err = await failure(p)
  expect(err).toBeInstanceOf(TypeError)
  expect(err.message).toMatch(re)
  expect(server.requests).toHaveLength(0)
}

describe('hostile run input', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['null', null, /expects an object/],
    ['undefined', undefined, /expects an object/],
    ['a number', 42, /expects an object/],
    ['an array', [1, 2], /expects an object/],
    ['output null', { input: 'q', output: null }, /run.output is required/],
    ['output undefined', { input: 'q', output: undefined }, /run.output is required/],
    ['output a number', { input: 'q', output: 3.14 }, /got number/],
    ['output a boolean', { input: 'q', output: true }, /got boolean/],
    ['input a number', { input: 7, output: 'a' }, /run.input must be/],
    ['runId a number', { input: 'q', output: 'a', runId: 1 }, /runId/],
    ['a BigInt', { input: 'q', output: 'a', extra: 1n }, /JSON-serializable/],
    ['a throwing getter', { input: 'q', get output(): string { throw new Error('boom') } }, /JSON-serializable.*boom/],
    ['10 MB of output', { input: 'q', output: 'x'.repeat(10 * 1024 * 1024) }, /limit is 4 MB/],
    ['deep nesting (200 levels)', { input: 'q', output: 'a', meta: JSON.parse('['.repeat(200) + ']'.repeat(200)) }, /nested too deeply/],
  ]
  it.each(cases)('%s → TypeError', async (_name, run, re) => {
    await expectTypeError(scorer().run(run as never), re)
  })

  it('deep nesting beyond the JS stack → TypeError, no crash', async () => {
    let deep: unknown = 'leaf'
    for (let i = 0; i < 200_000; i++) deep = [deep]
    await expectTypeError(scorer().run({ input: 'q', output: 'a', meta: deep }), /JSON-serializable|nested too deeply/)
  })

  it('cyclic objects → TypeError', async () => {
    const a: Record<string, unknown> = {}
    a.b = { a }
    await expectTypeError(scorer().run({ input: 'q', output: a }), /JSON-serializable/)
  })

  it('lone UTF-16 surrogates are replaced with U+FFFD, and the run succeeds', async () => {
    happy()
    const r = await scorer().run({ input: 'q\uD800', output: 'ans\uDFFFwer' })
    expect(r.score).toBe(1)
    expect(server.requests[0].user).toContain('ans\uFFFDwer')
    expect(server.requests[1].user).toContain('q\uFFFD')
  })

  it('functions, symbols and undefined inside the run are dropped like JSON does', async () => {
    happy()
    const r = await scorer().run({ input: 'q', output: 'a', fn: () => 1, sym: Symbol('s'), u: undefined })
    expect(r.score).toBe(1)
    expect(typeof r.fn).toBe('function') // the caller's own fields are echoed untouched
  })

  it('many concurrent hostile runs do not disturb good ones', async () => {
    happy()
    const s = scorer()
    const bad = Array.from({ length: 50 }, () => s.run({ input: 'q', output: 1 } as never).catch((e) => e))
    const good = Array.from({ length: 10 }, () => s.run({ input: 'q', output: 'a' }))
    const [badR, goodR] = await Promise.all([Promise.all(bad), Promise.all(good)])
    expect(badR.every((e) => e instanceof TypeError)).toBe(true)
    expect(goodR.every((r) => r.score === 1)).toBe(true)
  })
})

describe('hostile factory options', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['null', null, /expects an options object/],
    ['a string', 'openai/gpt-4o-mini', /expects an options object/],
    ['model undefined', { model: undefined }, /options.model is required/],
    ['model an array', { model: ['openai/x'] }, /got array/],
    ['model.url a number', { model: { id: 'openai/x', url: 5 } }, /url must be a string/],
    ['scale NaN', { model: 'openai/x', scale: NaN }, /'scale' is NaN/],
    ['scale Infinity', { model: 'openai/x', scale: Infinity }, /'scale' is Infinity/],
    ['modelSettings a string', { model: 'openai/x', modelSettings: 'fast' }, /modelSettings must be an object/],
    ['timeoutMs negative', { model: 'openai/x', modelSettings: { timeoutMs: -5 } }, /timeoutMs/],
    ['a model object without a known specification version', { model: { doGenerate: () => 1, modelId: 'x' } }, /unsupported specification version/],
    ['cyclic options', (() => { const o: Record<string, unknown> = { model: 'openai/x' }; o.self = o; return o })(), /JSON-serializable/],
  ]
  it.each(cases)('%s → TypeError', (_name, opts, re) => {
    expect(() => createAnswerRelevancyScorer(opts as never)).toThrow(TypeError)
    expect(() => createAnswerRelevancyScorer(opts as never)).toThrow(re)
  })
})
