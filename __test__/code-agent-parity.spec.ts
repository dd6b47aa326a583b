// Differential tests: oxeval's tool/trajectory code scorers, its eleven checks and
// oxeval/utils against @mastra/evals 1.10.2 (and @mastra/core's extractTrajectory) on
// seeded generated inputs (../bench/gen/agent-gen.mjs): at least 2 000 runs per scorer and per
// check, equal scores (exactly), step results and reasons (as JSON text: key order
// included), the same throws; each deliberate difference is asserted as such.
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { checks as mastraChecks } from '@mastra/evals/checks'
import * as mastraScorers from '@mastra/evals/scorers/prebuilt'
import * as mu from '@mastra/evals/scorers/utils'
import { extractTrajectory as coreExtractTrajectory } from '@mastra/core/evals'
import * as gen from '../bench/gen/agent-gen.mjs'
import { expectEvals } from '../vitest/index.mjs'
import type { Any } from './helpers/setup'

const require = createRequire(import.meta.url)
const ox = require('../index.js') as Any
const oxu = require('../utils/index.js') as Any
const oxChecks = require('../checks/index.js') as Any
const mp = mastraScorers as Any
const mc = mastraChecks as Any

const N = 2000
const j = (v: unknown) => JSON.stringify(v)

type Outcome = { ok: true; v: Any } | { ok: false; e: Any }
async function settle(f: () => Any): Promise<Outcome> {
  try {
    return { ok: true, v: await f() }
  } catch (e) {
    return { ok: false, e }
  }
}

/** Mastra's inner message of a run failure (`Scorer Run Failed: <inner>`). */
const inner = (m: string) => m.replace(/^Scorer Run Failed: /, '')

/**
 * One run through both: equal score, preprocessStepResult and reason, or both throw with
 * Mastra's message inside oxeval's. Returns a mismatch description, or null.
 */
async function both(label: string, make: () => [Any, Any], run: Any, mastraRun: Any = run, seen?: (mastra: Outcome) => void): Promise<string | null> {
  const made = await settle(make)
  if (!made.ok) return `${label}: a factory threw: ${made.e.message}`
  const [m, o] = made.v
  const [rm, ro] = await Promise.all([settle(() => m.run(mastraRun)), settle(() => o.run(run))])
  seen?.(rm)
  if (!rm.ok) {
    if (ro.ok) return `${label}: Mastra threw (${rm.e.message}), oxeval scored ${ro.v.score} on ${j(run)}`
    if (!ro.e.message.includes(inner(rm.e.message))) return `${label}: different throws: ${rm.e.message} | ${ro.e.message}`
    return null
  }
  if (!ro.ok) return `${label}: oxeval threw ${ro.e.message} on ${j(run)}`
  if (ro.v.score !== rm.v.score) return `${label}: score ${ro.v.score} vs Mastra ${rm.v.score} on ${j(run)}`
  if (j(ro.v.preprocessStepResult) !== j(rm.v.preprocessStepResult)) return `${label}: preprocess\n ox ${j(ro.v.preprocessStepResult)}\n ma ${j(rm.v.preprocessStepResult)}\n run ${j(run)}`
  if (ro.v.reason !== rm.v.reason) return `${label}: reason\n ox ${ro.v.reason}\n ma ${rm.v.reason}`
  if ('judge' in ro.v) return `${label}: a judge key`
  return null
}

/**
 * `n` runs of `one`, 64 at a time (each `one` draws its inputs from `r` before its first
 * await, so the inputs do not depend on the scheduling).
 */
async function sweep(n: number, one: (r: ReturnType<typeof gen.rng>, i: number) => Promise<string | null>, seed: number) {
  const r = gen.rng(seed)
  const fails: string[] = []
  for (let i = 0; i < n; i += 64) {
    const batch = Array.from({ length: Math.min(64, n - i) }, (_, k) => one(r, i + k))
    for (const f of await Promise.all(batch)) if (f) fails.push(f)
  }
  expect(fails.slice(0, 3)).toEqual([])
}

/** The assistant text Mastra's text checks read, split into code points (no lone surrogates). */
function assistantChars(msgs: Any[], sep: string) {
  return Array.from(msgs.filter((m) => m.role === 'assistant').map((m) => mu.getTextContentFromMastraDBMessage(m)).join(sep))
}
function needle(r: Any, msgs: Any[], sep: string) {
  const cs = assistantChars(msgs, sep)
  if (cs.length === 0 || r.chance(0.3)) return gen.text(r, 2)
  const a = r.int(cs.length)
  const s = cs.slice(a, a + 1 + r.int(8)).join('')
  return r.chance(0.3) ? s.toUpperCase() : s
}

const PATTERNS: Array<[string, string]> = [
  ['\\d+°F', ''], ['\\d+°F', 'g'], ['paris', 'i'], ['^The', 'm'], ['(?<=\\s)sunny', ''], ['(\\w)\\1', ''],
  ['\\p{Emoji_Presentation}', 'u'], ['😀', 'u'], ['^.$', ''], ['^.$', 'u'], ['[Ss]earch|weather', ''], ['\\s{2,}', ''],
  ['é', 'i'], ['ΣΟΦΙΑ', 'i'], ['\\bthe\\b', 'gi'], ['x{3}', 'y'], ['.', 's'], ['^$', ''], ['(?<w>a)b\\k<w>', ''],
  ['[^\\x00-\\x7f]', ''], ['straße', 'iu'], ['\\u00a0', ''], ['Error:?\\s*$', 'm'], ['(?:the\\s+)+', 'i'],
]

describe('checks: oxeval vs @mastra/evals (generated runs)', () => {
  const textCases: Array<[string, (r: Any, msgs: Any[]) => Any[]]> = [
    ['includes', (r, msgs) => [needle(r, msgs, ' '), r.chance(0.5) ? undefined : { ignoreCase: r.chance(0.5) }]],
    ['excludes', (r, msgs) => [needle(r, msgs, ' '), r.chance(0.5) ? undefined : { ignoreCase: r.chance(0.5) }]],
    ['equals', (r, msgs) => [r.chance(0.4) ? assistantChars(msgs, '').join('') : needle(r, msgs, ''), r.chance(0.5) ? undefined : { ignoreCase: r.chance(0.5) }]],
    ['similarity', (r, msgs) => [r.chance(0.3) ? assistantChars(msgs, ' ').join('') : gen.text(r, 6), r.chance(0.3) ? undefined : { ignoreCase: r.chance(0.5), ...(r.chance(0.5) ? { threshold: r.next() } : {}) }]],
  ]
  for (const [name, args] of textCases) {
    it(`${name}: ${N} runs`, async () => {
      await sweep(N, async (r) => {
        const msgs = gen.messages(r)
        const a = args(r, msgs)
        return both(name, () => [mc[name](...a), ox[name](...a)], { input: 'q', output: msgs })
      }, name.length * 7919)
    })
  }

  it(`matches: ${N} runs (a fresh RegExp per run: see the lastIndex difference below)`, async () => {
    await sweep(N, async (r) => {
      const msgs = gen.messages(r)
      const [src, flags] = r.pick(PATTERNS)
      const exact = r.chance(0.2) ? { exact: true } : undefined
      return both('matches', () => [mc.matches(new RegExp(src, flags), exact), ox.matches(new RegExp(src, flags), exact)], { input: 'q', output: msgs })
    }, 104729)
  })

  const toolCases: Array<[string, (r: Any) => Any[]]> = [
    ['calledTool', (r) => [r.pick(gen.TOOLS), r.chance(0.5) ? undefined : { times: 1 + r.int(3) }]],
    ['didNotCall', (r) => [r.pick(gen.TOOLS)]],
    ['toolOrder', (r) => [Array.from({ length: r.int(4) }, () => r.pick(gen.TOOLS))]],
    ['maxToolCalls', (r) => [r.int(6)]],
    ['usedNoTools', () => []],
    ['noToolErrors', () => []],
  ]
  for (const [name, args] of toolCases) {
    it(`${name}: ${N} runs`, async () => {
      await sweep(N, async (r) => {
        const a = args(r)
        return both(name, () => [mc[name](...a), ox[name](...a)], { input: 'q', output: gen.messages(r, 5) })
      }, name.length * 104723)
    })
  }

  it('the checks object and oxeval/checks hold the same function objects', () => {
    expect(Object.keys(ox.checks)).toEqual(Object.keys(mc))
    for (const k of Object.keys(mc)) {
      expect(ox.checks[k]).toBe(ox[k])
      expect(oxChecks[k]).toBe(ox[k])
    }
    expect(oxChecks.checks).toBe(ox.checks)
    const c = ox.calledTool('get_weather', { times: 2 })
    const m = mc.calledTool('get_weather', { times: 2 })
    for (const k of ['id', 'name', 'description', 'type']) expect(c[k]).toBe(m[k])
    expect(c.judge).toBeUndefined()
  })

  it('deliberate: a g/y pattern scores the same every run (Mastra reuses one RegExp: lastIndex carries over)', async () => {
    const run = { input: 'q', output: [{ role: 'assistant', content: 'It is 72°F' }] }
    const m = mc.matches(/\d+°F/g)
    const o = ox.matches(/\d+°F/g)
    expect([(await m.run(run)).score, (await m.run(run)).score]).toEqual([1, 0])
    expect([(await o.run(run)).score, (await o.run(run)).score]).toEqual([1, 1])
  })

  it('deliberate: a plain-string output scores as Mastra on the equivalent message array (Mastra throws for text checks)', async () => {
    const r = gen.rng(77)
    const fails: string[] = []
    for (let i = 0; i < 300; i++) {
      const s = gen.text(r)
      const run = { input: 'q', output: s }
      const equivalent = { input: 'q', output: [{ role: 'assistant', content: s }] }
      for (const [name, a] of [['includes', [needle(r, equivalent.output, ' ')]], ['equals', [s]], ['similarity', [gen.text(r, 3)]], ['matches', [/\d/]], ['calledTool', ['search']], ['noToolErrors', []]] as Array<[string, Any[]]>) {
        if (['includes', 'equals', 'similarity', 'matches'].includes(name)) {
          await expect(mc[name](...a).run(run)).rejects.toThrow('run.output.filter is not a function')
        }
        const f = await both(name, () => [mc[name](...a), ox[name](...a)], run, equivalent)
        if (f) fails.push(f)
      }
    }
    expect(fails.slice(0, 3)).toEqual([])
    // { messages } and UI messages: the equivalent Mastra messages
    const ui = { input: 'q', output: [{ role: 'assistant', parts: [{ type: 'text', text: 'Paris' }, { type: 'tool-get_weather', toolCallId: 'a', state: 'output-available', input: {}, output: { t: 1 } }] }] }
    expect((await ox.calledTool('get_weather').run(ui)).score).toBe(1)
    expect((await ox.includes('paris').run(ui)).score).toBe(1)
    expect((await ox.includes('paris').run({ output: { messages: [{ role: 'assistant', content: 'Paris' }] } })).score).toBe(1)
  })

  it('deliberate: arguments are type-checked at the factory (Mastra fails, or coerces, at run time)', () => {
    expect(() => ox.includes(42)).toThrow(TypeError)
    expect(() => ox.includes(42)).toThrow('includes(): expected (its first argument) must be a string; got number')
    expect(() => ox.maxToolCalls('3')).toThrow(TypeError)
    expect(() => ox.matches('\\d')).toThrow('must be a RegExp')
    expect(() => ox.toolOrder('a')).toThrow(TypeError)
  })
})

describe('tool and trajectory code scorers: oxeval vs @mastra/evals (generated runs)', () => {
  it(`createToolCallAccuracyScorerCode: ${N} runs`, async () => {
    await sweep(N, async (r) => {
      const o: Any = {}
      if (r.chance(0.7)) o.expectedTool = r.chance(0.05) ? '' : r.pick(gen.TOOLS)
      if (r.chance(0.4)) o.expectedToolOrder = Array.from({ length: r.int(4) }, () => r.pick(gen.TOOLS))
      if (r.chance(0.5)) o.strictMode = r.chance(0.5)
      const run = { input: { inputMessages: r.chance(0.05) ? [] : [gen.message(r, 'user')], rememberedMessages: [], systemMessages: [], taggedSystemMessages: {} }, output: r.chance(0.03) ? [] : gen.messages(r, 5) }
      if (!o.expectedTool && !o.expectedToolOrder) {
        expect(() => mp.createToolCallAccuracyScorerCode(o)).toThrow('Either expectedTool or expectedToolOrder must be provided')
        expect(() => ox.createToolCallAccuracyScorerCode(o)).toThrow('Either expectedTool or expectedToolOrder must be provided')
        return null
      }
      return both('tool-call-accuracy', () => [mp.createToolCallAccuracyScorerCode(o), ox.createToolCallAccuracyScorerCode(o)], run)
    }, 4242)
    const o = { expectedToolOrder: ['a', 'b'] }
    expect(ox.createToolCallAccuracyScorerCode(o).description).toBe(mp.createToolCallAccuracyScorerCode(o).description)
  })

  it(`createTrajectoryAccuracyScorerCode: ${N} runs (messages as output: Mastra on extractTrajectory of them)`, async () => {
    await sweep(N, async (r) => {
      const actual = gen.trajectory(r)
      const o: Any = {}
      const k = r.int(3)
      if (k === 0) o.expectedTrajectory = Array.from({ length: r.int(4) }, () => gen.expectedStep(r, actual.steps))
      else if (k === 1) o.expectedTrajectory = gen.trajectory(r, 3)
      if (r.chance(0.5)) o.comparisonOptions = { ...(r.chance(0.7) ? { ordering: r.pick(['strict', 'relaxed', 'unordered']) } : {}), ...(r.chance(0.5) ? { allowRepeatedSteps: r.chance(0.5) } : {}) }
      const run: Any = { input: 'q', output: actual }
      if (r.chance(0.6)) run.expectedTrajectory = gen.expectation(r, actual.steps)
      const make = () => [mp.createTrajectoryAccuracyScorerCode(o), ox.createTrajectoryAccuracyScorerCode(o)]
      if (r.chance(0.2)) {
        const msgs = gen.messages(r, 5)
        return both('trajectory-accuracy(messages)', make, { ...run, output: msgs }, { ...run, output: coreExtractTrajectory(msgs) })
      }
      const f = await both('trajectory-accuracy', make, run)
      if (f) return f
      const [m, x] = make()
      return m.description === x.description ? null : `description ${x.description} vs ${m.description}`
    }, 31337)
  })

  it(`createTrajectoryScorerCode: ${N} runs (nesting, repeats, retries, blacklists, budgets)`, async () => {
    let threw = 0
    let nested = 0
    await sweep(N, async (r) => {
      const actual = gen.trajectory(r)
      const o: Any = {}
      if (r.chance(0.6)) o.defaults = gen.expectation(r, actual.steps)
      if (r.chance(0.3)) o.weights = Object.fromEntries(['accuracy', 'efficiency', 'toolFailures', 'blacklist'].filter(() => r.chance(0.5)).map((w) => [w, r.chance(0.2) ? 0 : r.chance(0.1) ? -0.5 : r.next()]))
      const run: Any = { input: 'q', output: actual }
      if (r.chance(0.7)) run.expectedTrajectory = gen.expectation(r, actual.steps)
      const make = () => [mp.createTrajectoryScorerCode(o), ox.createTrajectoryScorerCode(o)]
      if (r.chance(0.15)) {
        const msgs = gen.messages(r, 5)
        return both('trajectory(messages)', make, { ...run, output: msgs }, { ...run, output: coreExtractTrajectory(msgs) })
      }
      return both('trajectory', make, run, run, (m) => {
        if (!m.ok) threw++
        else if (m.v.preprocessStepResult.nested) nested++
      })
    }, 8675309)
    // the sweep covers both Mastra's throws (invalid budgets, missing measurements) and nesting
    expect(threw).toBeGreaterThan(50)
    expect(nested).toBeGreaterThan(50)
  })
})

describe('oxeval/utils vs @mastra/evals/scorers/utils (generated inputs)', () => {
  it('message readers, the merge, tool calls and results, extractTrajectory: 1000 message lists', () => {
    const r = gen.rng(2024)
    const fails: string[] = []
    for (let i = 0; i < 1000; i++) {
      const msgs = gen.messages(r, 5)
      for (const m of msgs) {
        const a = oxu.mergeToolInvocations(m)
        const b = mu.mergeToolInvocations(m)
        if (a.length !== b.length || a.some((x: Any, k: number) => x !== b[k])) fails.push(`merge ${j(m)}`)
        if (oxu.getTextContentFromMastraDBMessage(m) !== mu.getTextContentFromMastraDBMessage(m)) fails.push(`text ${j(m)}`)
      }
      for (const f of ['extractToolCalls', 'extractToolResults', 'extractAgentResponseMessages', 'getAssistantMessageFromRunOutput', 'getReasoningFromRunOutput']) {
        if (j(oxu[f](msgs)) !== j((mu as Any)[f](msgs))) fails.push(`${f} ${j(msgs)}`)
      }
      const t = oxu.extractTrajectory(msgs)
      const c = coreExtractTrajectory(msgs as Any)
      if (j(t.steps) !== j(c.steps) || t.rawOutput !== msgs) fails.push(`extractTrajectory ${j(msgs)}`)
      const input = { inputMessages: gen.messages(r, 3), rememberedMessages: gen.messages(r, 4), systemMessages: [{ role: 'system', content: gen.text(r) }], taggedSystemMessages: { t: [gen.message(r, 'system')] } }
      for (const f of ['getUserMessageFromRunInput', 'getSystemMessagesFromRunInput', 'getCombinedSystemPrompt', 'getConversationHistoryFromRunInput', 'extractInputMessages', 'isScorerRunInputForAgent']) {
        if (j(oxu[f](input)) !== j((mu as Any)[f](input))) fails.push(`${f} ${j(input)}`)
      }
      const max = { maxMessages: r.int(5) }
      if (j(oxu.getConversationHistoryFromRunInput(input, max)) !== j(mu.getConversationHistoryFromRunInput(input as Any, max))) fails.push(`history ${j(max)}`)
    }
    expect(fails.slice(0, 3)).toEqual([])
  })

  it(`trajectory comparisons: ${N} trajectories`, () => {
    const r = gen.rng(99)
    const fails: string[] = []
    const same = (label: string, f: () => Any, g: () => Any) => {
      let a: Any, b: Any
      try { a = { v: f() } } catch (e: Any) { a = { e: `${e.constructor.name}: ${e.message}` } }
      try { b = { v: g() } } catch (e: Any) { b = { e: `${e.constructor.name}: ${e.message}` } }
      if (j(a) !== j(b)) fails.push(`${label}\n ox ${j(a)}\n ma ${j(b)}`)
    }
    for (let i = 0; i < N; i++) {
      const t = gen.trajectory(r)
      const x = gen.expectation(r, t.steps)
      const e = { steps: x.steps ?? [] }
      const opts = { ordering: x.ordering, allowRepeatedSteps: x.allowRepeatedSteps }
      same('compare', () => oxu.compareTrajectories(t, e, opts), () => mu.compareTrajectories(t as Any, e as Any, opts as Any))
      same('efficiency', () => oxu.checkTrajectoryEfficiency(t, x), () => mu.checkTrajectoryEfficiency(t as Any, x as Any))
      same('blacklist', () => oxu.checkTrajectoryBlacklist(t, x), () => mu.checkTrajectoryBlacklist(t as Any, x as Any))
      same('failures', () => oxu.analyzeToolFailures(t, x), () => mu.analyzeToolFailures(t as Any, x as Any))
    }
    expect(fails.slice(0, 3)).toEqual([])
  })

  it('test-data builders and small helpers', () => {
    const inv = { toolCallId: 'c', toolName: 't', args: { a: 1 }, result: 2, state: 'output-error' as const, errorText: 'x' }
    expect(oxu.createToolInvocation(inv)).toEqual(mu.createToolInvocation(inv as Any))
    const m = { content: 'hi', role: 'assistant' as const, toolInvocations: [inv] }
    const a = oxu.createTestMessage(m)
    const b = mu.createTestMessage(m as Any)
    expect({ ...a, createdAt: 0 }).toEqual({ ...b, createdAt: 0 })
    expect(a.createdAt).toBeInstanceOf(Date)
    const run = oxu.createAgentTestRun({ output: [a], runId: 'r' })
    const mrun = mu.createAgentTestRun({ output: [b], runId: 'r' } as Any)
    expect(j(run.input)).toBe(j(mrun.input))
    expect(run.requestContext?.constructor?.name).toBe(mrun.requestContext?.constructor?.name)
    const tr = oxu.createTrajectoryTestRun({ trajectory: { steps: [] }, expectedTrajectory: { steps: [] }, runId: 'r' })
    expect(Object.keys(tr)).toEqual(Object.keys(mu.createTrajectoryTestRun({ trajectory: { steps: [] }, expectedTrajectory: { steps: [] }, runId: 'r' } as Any)))
    expect(oxu.createTestRun('q', 'a')).toEqual(mu.createTestRun('q', 'a'))
    for (const n of [0.1 + 0.2, 1.005, 0.125, 2.675, 0.5]) expect(oxu.roundToTwoDecimals(n)).toBe(mu.roundToTwoDecimals(n))
    expect(oxu.isCloserTo(0.6, 1, 0)).toBe(mu.isCloserTo(0.6, 1, 0))
    expect(() => oxu.checkTrajectoryEfficiency({ steps: [] }, { maxSteps: -1 })).toThrow(/^Invalid maxSteps budget/)
    expect(() => oxu.compareTrajectories('x', { steps: [] })).toThrow(TypeError)
    // reasoning parts
    const reasoning = [{ role: 'assistant', content: { format: 2, parts: [{ type: 'reasoning', details: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }, { type: 'reasoning', reasoning: 'c' }] } }]
    expect(oxu.getReasoningFromRunOutput(reasoning)).toBe(mu.getReasoningFromRunOutput(reasoning as Any))
  })
})

describe('checks and code scorers everywhere: runEvals gates and scorers, Vitest', () => {
  const weather = (city: string, state = 'result') => ({
    input: `Weather in ${city}?`,
    output: [
      { role: 'user', content: `Weather in ${city}?` },
      { role: 'assistant', content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { toolCallId: 'c1', toolName: 'get_weather', args: { city }, state, result: { tempF: 72 } } }, { type: 'text', text: `It is 72°F in ${city}.` }] } },
    ],
    expectedTrajectory: { steps: [{ name: 'get_weather' }] },
  })
  const data = [weather('Paris'), weather('Rome'), { input: 'Hi', output: 'Hello! No tools needed.' }]

  it('runEvals: checks as gates, code scorers and checks as scorers (plain-string outputs too)', async () => {
    const r = await ox.runEvals({
      data,
      gates: [ox.calledTool('get_weather'), ox.noToolErrors(), ox.maxToolCalls(2)],
      scorers: [ox.checks.includes('72°F'), ox.createTrajectoryAccuracyScorerCode({}), ox.createToolCallAccuracyScorerCode({ expectedTool: 'get_weather' })],
    })
    expect(r.scores['check-includes']).toBeCloseTo(2 / 3, 12)
    expect(r.scores['code-trajectory-accuracy-scorer']).toBeCloseTo(2 / 3, 12)
    expect(r.scores['code-tool-call-accuracy-scorer']).toBeCloseTo(2 / 3, 12)
    const gate = Object.fromEntries(r.gateResults.map((g: Any) => [g.id, g.score]))
    expect(gate).toEqual({ 'check-called-tool': 2 / 3, 'check-no-tool-errors': 1, 'check-max-tool-calls': 1 })
    expect(r.verdict).toBe('failed')
  })

  it('expectEvals: gates on tool-calling items pass', async () => {
    await expectEvals({ data: data.slice(0, 2), gates: [ox.calledTool('get_weather'), ox.toolOrder(['get_weather']), ox.matches(/\d+°F/)] }).toPass()
    const failing = expectEvals({ data: [weather('Oslo', 'output-error')], gates: [ox.noToolErrors()] }).toPass()
    await expect(failing).rejects.toThrow(/check-no-tool-errors/)
  })
})
