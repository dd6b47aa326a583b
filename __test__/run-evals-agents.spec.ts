// runEvals for agents (issue 22): multi-turn items (`inputs`, `turns` with per-turn gates and
// scorers), `expectedTrajectory`, the categorized scorers `{ agent, trajectory }` and trajectory
// gates — against a real @mastra/core Agent (an AI SDK MockLanguageModelV3 with a tool, and
// @mastra/core's own MockMemory over its InMemoryStore), with parity against Mastra's own
// runEvals on the same items, target and scorers (scores, verdicts, gateResults,
// thresholdResults, turnResults, scores.trajectory), and each deliberate difference asserted.
import { describe, expect, it } from 'vitest'
import { MockLanguageModelV3 } from 'ai/test'
import { Agent } from '@mastra/core/agent'
import { createScorer as mastraCreateScorer, runEvals as mastraRunEvals } from '@mastra/core/evals'
import { MockMemory } from '@mastra/core/memory'
import { InMemoryStore } from '@mastra/core/storage'
import { createTool } from '@mastra/core/tools'
import { checks as mastraChecks } from '@mastra/evals/checks'
import { createMultiTurnJudgeScorer as mastraMultiTurnJudge, createTrajectoryAccuracyScorerCode as mastraTrajectoryCode } from '@mastra/evals/scorers/prebuilt'
import { z } from 'zod'
import { useParity } from './helpers/parity'
import { failure, oxeval, type Any } from './helpers/setup'

const { runEvals, summarizeItems, checks } = oxeval

// ---- the agent under test -------------------------------------------------------------

const usage = { inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } }
const textOf = (m: Any): string => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((p: Any) => p.text ?? '').join(''))

/**
 * A deterministic weather model. A user message asking for "weather" makes it call the
 * `weather` tool for the city it names, else for the city the conversation named earlier
 * ("my favorite city is X": only an agent with memory sees that); after the tool result it
 * answers with the temperature. Anything else is "Noted: <message>.". `calls` counts requests;
 * `prompts` keeps each request's messages (role: text).
 */
function weatherModel() {
  const state = { calls: 0, prompts: [] as string[][] }
  const model = new MockLanguageModelV3({
    doGenerate: async (opts: Any) => {
      state.calls++
      const prompt = opts.prompt as Any[]
      state.prompts.push(prompt.map((m) => `${m.role}: ${textOf(m)}`))
      const last = prompt[prompt.length - 1]
      const done = { finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }
      if (last.role === 'tool') {
        const out = last.content[0].output
        const r = out.type === 'json' ? out.value : JSON.parse(out.value)
        return { content: [{ type: 'text', text: `It is ${r.temp}°C in ${r.city}.` }], ...done } as Any
      }
      const text = textOf(last)
      if (/weather|forecast/i.test(text)) {
        const named = /in ([A-Z][a-z]+)/.exec(text)?.[1]
        const remembered = prompt.map(textOf).join('\n').match(/favorite city is ([A-Z][a-z]+)/)?.[1]
        const city = named ?? remembered
        if (!city) return { content: [{ type: 'text', text: 'Which city?' }], ...done } as Any
        return {
          content: [{ type: 'tool-call', toolCallId: `call-${state.calls}`, toolName: 'weather', input: JSON.stringify({ city }) }],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        } as Any
      }
      return { content: [{ type: 'text', text: `Noted: ${text}` }], ...done } as Any
    },
  })
  return { model, state }
}

const weatherTool = createTool({
  id: 'weather',
  description: 'The weather of a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }: Any) => ({ city, temp: city === 'Oslo' ? 5 : 20 }),
})

/** A real Mastra Agent with the weather tool; memory: @mastra/core's MockMemory over an InMemoryStore. */
function weatherAgent({ memory = true } = {}) {
  const { model, state } = weatherModel()
  const store = new InMemoryStore()
  const agent = new Agent({
    id: 'weather-agent',
    name: 'weather-agent',
    instructions: 'Answer about the weather.',
    model,
    tools: { weather: weatherTool },
    ...(memory ? { memory: new MockMemory({ storage: store }) } : {}),
  })
  return { agent, state, store }
}

/** A Mastra scorer (createScorer) recording what each run received. */
function spy(id: string, type: 'agent' | 'trajectory', score: (run: Any) => number = () => 1) {
  const runs: Any[] = []
  const scorer = mastraCreateScorer({ id, description: 'records its runs', type }).generateScore(({ run }: Any) => {
    runs.push(run)
    return score(run)
  })
  return { scorer, runs }
}

/** Mastra's result keys of a runEvals result (oxeval's adds coverage, errors, stats, … per turn). */
function mastraView(r: Any) {
  const out: Any = { scores: r.scores, summary: { totalItems: r.summary.totalItems } }
  for (const k of ['verdict', 'gateResults', 'thresholdResults'] as const) if (r[k] !== undefined) out[k] = r[k]
  if (r.turnResults) {
    out.turnResults = r.turnResults.map((t: Any) => {
      const o: Any = { index: t.index }
      for (const k of ['gateResults', 'thresholdResults', 'scores']) if (t[k] !== undefined) o[k] = t[k]
      return o
    })
  }
  return out
}

// a judge for the multi-turn judge: satisfied iff the prompt holds both turns' answers
const parity = useParity<{ both: boolean }>({ analyze: 'satisfied' }, (_c, _step, req) => {
  const both = req.user.includes('Noted: My favorite city is Lyon.') && req.user.includes('It is 20°C in Lyon.')
  return { json: { satisfied: both, reasoning: both ? 'Both turns.' : 'A turn is missing.' } }
})

const expectedTrajectory = { steps: [{ stepType: 'tool_call', name: 'weather' }] }
const brooklyn = ['My favorite city is Lyon.', 'What is the weather in my favorite city?', 'Thanks!']

describe('runEvals: multi-turn inputs on an Agent', () => {
  it('sends the turns in order on one thread and resource; scorers see the accumulated output and the first input (parity with Mastra)', async () => {
    const seen = spy('seen', 'agent')
    const mastraSeen = spy('seen', 'agent')
    const ox = weatherAgent()
    const r = await runEvals({
      target: ox.agent,
      data: [{ inputs: brooklyn }],
      gates: [checks.calledTool('weather')],
      scorers: [{ scorer: checks.includes('20°C'), threshold: 0.5 }, seen.scorer],
    })
    // turn 2 recalled turn 1 (memory on one thread): the tool was called for Lyon
    expect(ox.state.prompts[1].join('\n')).toContain('user: My favorite city is Lyon.')
    expect(r.outcome.status).toBe('passed')
    expect(r.verdict).toBe('passed')
    const run = seen.runs[0]
    expect(run.input).toBe('My favorite city is Lyon.')
    // every turn's messages, in order: Noted…, the tool call and its answer, Noted: Thanks!
    const texts = run.output.map((m: Any) => m.content.content ?? '')
    expect(texts.join(' | ')).toBe('Noted: My favorite city is Lyon. | It is 20°C in Lyon. | Noted: Thanks!')
    const threads = new Set(run.output.map((m: Any) => m.threadId))
    expect(threads.size).toBe(1)
    // Mastra's rule: the resource defaults to the generated thread
    expect(run.output[0].resourceId).toBe(run.output[0].threadId)
    expect(r.items![0].input).toBe('My favorite city is Lyon.')
    expect(r.items![0].inputs).toEqual(brooklyn)

    const m = weatherAgent()
    const mr = await mastraRunEvals({
      target: m.agent,
      data: [{ inputs: brooklyn }],
      gates: [mastraChecks.calledTool('weather')],
      scorers: [{ scorer: mastraChecks.includes('20°C'), threshold: 0.5 }, mastraSeen.scorer],
    } as Any)
    expect(mastraView(r)).toEqual(mastraView(mr))
    // the same conversation reached the agent, turn by turn
    expect(ox.state.prompts).toEqual(m.state.prompts)
    expect(mastraSeen.runs[0].input).toBe(run.input)
    expect(mastraSeen.runs[0].output.map((x: Any) => x.content.content)).toEqual(texts)
  })

  it('targetOptions.memory.resource pins the resource; each item still gets its own thread', async () => {
    const ox = weatherAgent()
    const seen = spy('seen', 'agent')
    const r = await runEvals({ target: ox.agent, targetOptions: { memory: { resource: 'user-42' } }, data: [{ inputs: ['a', 'b'] }, { inputs: ['c', 'd'] }], scorers: [seen.scorer], concurrency: 1 })
    expect(r.outcome.passed).toBe(true)
    const [a, b] = seen.runs.map((x) => x.output)
    expect(a.every((m: Any) => m.resourceId === 'user-42') && b.every((m: Any) => m.resourceId === 'user-42')).toBe(true)
    expect(a[0].threadId).not.toBe(b[0].threadId)
    const memory = await ox.agent.getMemory()
    const threads = await memory!.listThreads({ filter: { resourceId: 'user-42' } } as Any)
    expect(threads.threads.map((t: Any) => t.id).sort()).toEqual([a[0].threadId, b[0].threadId].sort())
  })

  it('an agent without memory: the turns still run and accumulate, and the result warns (Mastra logs it)', async () => {
    const ox = weatherAgent({ memory: false })
    const r = await runEvals({ target: ox.agent, data: [{ inputs: brooklyn }], scorers: [checks.calledTool('weather')] })
    // without memory turn 2 cannot recall the city: no tool call
    expect(r.scores['check-called-tool']).toBe(0)
    expect(ox.state.calls).toBe(3)
    expect(r.warnings).toEqual([expect.stringMatching(/^multi-turn items: agent "weather-agent" has no memory configured, so its turns do not share conversation history/)])
    // single-turn items: no warning
    const single = await runEvals({ target: ox.agent, data: [{ input: 'Weather in Paris?' }], scorers: [checks.calledTool('weather')] })
    expect(single.warnings).toBeUndefined()
  })

  it("the multi-turn judge grades every assistant turn of the conversation (oxeval's and Mastra's, same judge)", async () => {
    const judged = parity
    const ox = weatherAgent()
    judged.current = { both: true }
    const criterion = 'The agent gave the weather of the favorite city.'
    const or = await runEvals({
      target: ox.agent,
      data: [{ inputs: brooklyn }],
      scorers: [{ scorer: oxeval.createMultiTurnJudgeScorer({ model: judged.oxModel(), modelSettings: { retryDelayMs: 1 }, criterion }), threshold: 1 }],
    })
    const m = weatherAgent()
    judged.current = { both: true }
    const mr = await mastraRunEvals({ target: m.agent, data: [{ inputs: brooklyn }], scorers: [{ scorer: mastraMultiTurnJudge({ model: judged.mastraModel(), criterion }), threshold: 1 }] } as Any)
    judged.current = undefined
    // satisfied only when the judge saw both the first and the second answer
    expect(or.scores['multi-turn-judge-scorer']).toBe(1)
    expect(mastraView(or)).toEqual(mastraView(mr))
    // the transcript reached oxeval's judge on the DATA line only
    const req = judged.server.requests.find((q) => q.user.includes('It is 20°C in Lyon.') && /^DATA: /m.test(q.user))!
    expect(req).toBeDefined()
  })
})

describe('runEvals: turns with per-turn assertions', () => {
  const turnsItem = (mk: typeof checks | typeof mastraChecks, sim: Any) => ({
    turns: [
      { input: 'What is the weather in Paris?', gates: [mk.calledTool('weather')] },
      { input: 'Thanks!' },
      // this turn cannot be satisfied by turn 0's tool call
      { input: 'And the forecast in my favorite city?', gates: [mk.calledTool('weather')], scorers: [{ scorer: mk.includes('20°C'), threshold: 0.5 }, sim] },
    ],
  })

  it('each turn is judged on its own input and output; turnResults and the verdict equal Mastra\'s', async () => {
    const oxSeen = spy('turn-seen', 'agent')
    const mSeen = spy('turn-seen', 'agent')
    const ox = weatherAgent()
    const r = await runEvals({ target: ox.agent, data: [turnsItem(checks, oxSeen.scorer)], scorers: [] })
    // turn 2 named no city and the conversation named none: no tool call, so its gate fails
    expect(r.turnResults).toEqual([
      expect.objectContaining({ index: 0, gateResults: [{ id: 'check-called-tool', passed: true, score: 1 }] }),
      { index: 1 },
      expect.objectContaining({
        index: 2,
        gateResults: [{ id: 'check-called-tool', passed: false, score: 0 }],
        thresholdResults: [{ id: 'check-includes', passed: false, averageScore: 0, threshold: 0.5 }],
        scores: { 'check-includes': 0, 'turn-seen': 1 },
      }),
    ])
    expect(r.verdict).toBe('failed')
    expect(r.outcome.reasons.map((x: Any) => [x.kind, x.turn])).toEqual([
      ['gate', 2],
      ['threshold', 2],
    ])
    // the per-turn scorer saw that turn only
    expect(oxSeen.runs[0].input).toBe('And the forecast in my favorite city?')
    expect(oxSeen.runs[0].output.map((m: Any) => m.content.content)).toEqual(['Which city?'])
    // the item's record: per turn its input, output, results and declarations
    const item = r.items![0]
    expect(item.turns!.map((t: Any) => [t.index, t.input, Object.keys(t.results).sort()])).toEqual([
      [0, 'What is the weather in Paris?', ['check-called-tool']],
      [1, 'Thanks!', []],
      [2, 'And the forecast in my favorite city?', ['check-called-tool', 'check-includes', 'turn-seen']],
    ])

    const m = weatherAgent()
    const mr = await mastraRunEvals({ target: m.agent, data: [turnsItem(mastraChecks, mSeen.scorer)], scorers: [] } as Any)
    expect(mastraView(r)).toEqual(mastraView(mr))
    expect(mSeen.runs[0].input).toBe(oxSeen.runs[0].input)
  })

  it('turn results average by turn index across conversations; top-level scorers still score the whole conversation', async () => {
    const data = (mk: Any) => [
      { turns: [{ input: 'Weather in Paris?', gates: [mk.calledTool('weather')] }, { input: 'And the weather in Oslo?', scorers: [{ scorer: mk.includes('20°C'), threshold: 0.5 }] }] },
      { turns: [{ input: 'Hello', gates: [mk.calledTool('weather')] }, { input: 'Weather in Rome?', scorers: [{ scorer: mk.includes('20°C'), threshold: 0.5 }] }] },
    ]
    const r = await runEvals({ target: weatherAgent().agent, data: data(checks), scorers: [checks.calledTool('weather', { times: 2 })] })
    expect(r.turnResults![0].gateResults).toEqual([{ id: 'check-called-tool', passed: false, score: 0.5 }])
    // Oslo is 5°C: 0 and 1 → 0.5 meets 0.5
    expect(r.turnResults![1].thresholdResults).toEqual([{ id: 'check-includes', passed: true, averageScore: 0.5, threshold: 0.5 }])
    // the whole conversation: two weather calls in item 0, one in item 1
    expect(r.scores['check-called-tool']).toBe(0.5)
    expect(r.verdict).toBe('failed')
    const mr = await mastraRunEvals({ target: weatherAgent().agent, data: data(mastraChecks), scorers: [mastraChecks.calledTool('weather', { times: 2 })] } as Any)
    expect(mastraView(r)).toEqual(mastraView(mr))
  })

  it('a missed turn threshold with every gate passing is scored, the same word as Mastra', async () => {
    const data = (mk: Any) => [{ turns: [{ input: 'Weather in Oslo?', gates: [mk.calledTool('weather')], scorers: [{ scorer: mk.includes('20°C'), threshold: 1 }] }] }]
    const r = await runEvals({ target: weatherAgent().agent, data: data(checks), scorers: [] })
    expect(r.outcome.status).toBe('scored')
    const mr = await mastraRunEvals({ target: weatherAgent().agent, data: data(mastraChecks), scorers: [] } as Any)
    expect(mastraView(r)).toEqual(mastraView(mr))
    expect(mr.verdict).toBe('scored')
  })

  it('a target that fails mid-conversation: the item names the turn, its assertions go unscored, the run fails (Mastra rejects the run)', async () => {
    let n = 0
    const flaky = {
      id: 'flaky',
      async generate(input: string) {
        if (++n === 2) throw new Error('model overloaded')
        return { text: `ok ${input}` }
      },
    }
    const data = [{ turns: [{ input: 'a', gates: [checks.includes('ok')] }, { input: 'b', gates: [checks.includes('ok')] }, { input: 'c' }] }]
    const r = await runEvals({ target: flaky, data, scorers: [] })
    expect(r.items![0].targetError).toMatchObject({ name: 'Error', message: 'turn 1 of 3: model overloaded', turn: 1 })
    expect(n).toBe(2)
    expect(r.turnResults!.map((t: Any) => t.gateResults?.[0]?.score)).toEqual([0, 0, undefined])
    expect(r.summary.erroredItems).toBe(1)
    expect(r.outcome.status).toBe('failed')
  })

  it('a per-turn scorer that throws is counted, never a 0, and the run goes on (Mastra: the whole run rejects)', async () => {
    const boom = { id: 'boom', run: async () => { throw new Error('scorer broke') } }
    const data = [{ turns: [{ input: 'Weather in Paris?', scorers: [boom] }] }, { turns: [{ input: 'Hi' }] }]
    const r = await runEvals({ target: weatherAgent().agent, data, scorers: [] })
    expect(r.turnResults![0]).toMatchObject({ scores: { boom: null }, errors: { boom: 1 }, coverage: { boom: { scored: 0, total: 1 } } })
    expect(r.items![0].turns![0].errors.boom).toMatchObject({ message: 'scorer broke' })
    expect(r.outcome.reasons.map((x: Any) => x.kind)).toEqual(['errors', 'nothing-scored'])
    // deliberate difference: Mastra's runEvals rejects on a per-turn scorer error
    const mastraBoom = mastraCreateScorer({ id: 'boom', description: 'throws' }).generateScore(() => {
      throw new Error('scorer broke')
    })
    await expect(mastraRunEvals({ target: weatherAgent().agent, data: [{ turns: [{ input: 'Weather in Paris?', scorers: [mastraBoom] }] }], scorers: [] } as Any)).rejects.toThrow()
  })

  it('one assertion per turn index across items: a different threshold is a TypeError (Mastra keeps the first silently)', async () => {
    const data = (mk: Any) => [
      { turns: [{ input: 'Weather in Paris?', scorers: [{ scorer: mk.includes('20°C'), threshold: 0.5 }] }] },
      { turns: [{ input: 'Weather in Oslo?', scorers: [{ scorer: mk.includes('20°C'), threshold: 0.9 }] }] },
    ]
    const e = await failure(runEvals({ target: weatherAgent().agent, data: data(checks), scorers: [], concurrency: 1 }))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toBe(
      "runEvals: data item 1: turns[0]: \"check-includes\" is a scorer with the threshold >= 0.9 here but a scorer with the threshold >= 0.5 in an earlier item's turn 0 (per-turn results are averaged by turn index across items, so a turn's assertion must be the same in every item)",
    )
    const mr = await mastraRunEvals({ target: weatherAgent().agent, data: data(mastraChecks), scorers: [] } as Any)
    expect(mr.turnResults[0].thresholdResults[0].threshold).toBe(0.5)
  })
})

describe('runEvals: trajectories', () => {
  it('scorers: { agent, trajectory }: trajectory scorers receive the extracted trajectory and the item\'s expectedTrajectory; result.scores.trajectory (parity)', async () => {
    const oxT = spy('path-seen', 'trajectory', (run) => run.output.steps.length)
    const mT = spy('path-seen', 'trajectory', (run) => run.output.steps.length)
    const oxA = spy('agent-seen', 'agent')
    const mA = spy('agent-seen', 'agent')
    const data = [
      { input: 'What is the weather in Paris?', expectedTrajectory },
      { inputs: ['Weather in Paris?', 'And the weather in Oslo?'], expectedTrajectory: { steps: [...expectedTrajectory.steps, { stepType: 'tool_call', name: 'weather', toolArgs: { city: 'Oslo' } }] } },
      { input: 'Hello', expectedTrajectory },
    ]
    const r = await runEvals({ target: weatherAgent().agent, data, scorers: { agent: [oxA.scorer, checks.calledTool('weather')], trajectory: [oxeval.createTrajectoryAccuracyScorerCode(), oxT.scorer] }, concurrency: 1 })
    const mr = await mastraRunEvals({ target: weatherAgent().agent, data, scorers: { agent: [mA.scorer, mastraChecks.calledTool('weather')], trajectory: [mastraTrajectoryCode({}), mT.scorer] } } as Any)
    expect(Object.keys(r.scores)).toEqual(['agent', 'trajectory'])
    expect(r.scores).toEqual(mr.scores)
    expect(r.scores.trajectory['path-seen']).toBe(1) // (1 + 2 + 0) / 3
    // what a trajectory scorer received: { steps, rawOutput } and the item's expectedTrajectory
    oxT.runs.forEach((run, i) => {
      expect(run.output.steps).toEqual(mT.runs[i].output.steps)
      expect(run.output.rawOutput).toHaveLength(mT.runs[i].output.rawOutput.length)
      expect(run.expectedTrajectory).toEqual(data[i].expectedTrajectory)
    })
    expect(oxT.runs[1].output.steps.map((s: Any) => s.toolArgs.city)).toEqual(['Paris', 'Oslo'])
    // an agent scorer received the messages
    expect(Array.isArray(oxA.runs[0].output)).toBe(true)
    // the item record keeps the trajectory
    expect(r.items![1].trajectory!.map((s: Any) => s.name)).toEqual(['weather', 'weather'])
  })

  it('trajectory gates (type "trajectory") receive the trajectory, at the top and per turn (parity)', async () => {
    // a gate: every tool call of the trajectory succeeded, and there was one
    const allOk = () => spy('traj-gate', 'trajectory', (run) => (run.output.steps.length > 0 && run.output.steps.every((s: Any) => s.success) ? 1 : 0))
    const ox = allOk()
    const m = allOk()
    const oxTurn = spy('turn-traj', 'trajectory', (run) => (run.output.steps.length === 1 ? 1 : 0))
    const mTurn = spy('turn-traj', 'trajectory', (run) => (run.output.steps.length === 1 ? 1 : 0))
    const data = (g: Any) => [{ expectedTrajectory, turns: [{ input: 'Weather in Paris?', gates: [g] }, { input: 'Thanks' }, { input: 'Weather in Oslo?', gates: [g] }] }]
    const r = await runEvals({ target: weatherAgent().agent, data: data(oxTurn.scorer), gates: [ox.scorer], scorers: [] })
    const mr = await mastraRunEvals({ target: weatherAgent().agent, data: data(mTurn.scorer), gates: [m.scorer], scorers: [] } as Any)
    expect(mastraView(r)).toEqual(mastraView(mr))
    expect(r.verdict).toBe('passed')
    // the top-level gate saw the whole conversation's two calls, each turn gate its own one
    expect(ox.runs[0].output.steps).toHaveLength(2)
    expect(oxTurn.runs.map((x) => x.output.steps[0].toolArgs.city).sort()).toEqual(['Oslo', 'Paris'])
    expect(oxTurn.runs[0].expectedTrajectory).toEqual(expectedTrajectory)
    expect(r.items![0].turns![0].trajectory).toHaveLength(1)
  })

  it('recorded conversations need no target: turn outputs and trajectories as given', async () => {
    const call = (id: string, city: string) => ({ id, role: 'assistant', createdAt: new Date(0), content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: id, toolName: 'weather', args: { city }, result: { temp: 20 } } }] } })
    const r = await runEvals({
      data: [
        { turns: [{ input: 'Paris?', output: [call('a', 'Paris')], gates: [checks.calledTool('weather')] }, { input: 'Bye', output: 'Bye!' }] },
        { inputs: ['x', 'y'], output: { steps: [{ stepType: 'tool_call', name: 'weather' }] }, expectedTrajectory },
        // no output to score: an item error, its turn gate a 0 (never skipped)
        { turns: [{ input: 'no output here', gates: [checks.calledTool('weather')] }] },
      ],
      scorers: { trajectory: [oxeval.createTrajectoryAccuracyScorerCode()] },
      maxErrors: 1,
    })
    // Mastra's accumulation: a turn's array is spread; a text turn is its assistant message
    expect(r.items![0].output).toEqual([call('a', 'Paris'), { role: 'assistant', content: 'Bye!' }])
    // a recorded trajectory passes as it is
    expect(r.items![1].trajectory).toEqual([{ stepType: 'tool_call', name: 'weather' }])
    expect(r.scores.trajectory['code-trajectory-accuracy-scorer']).not.toBeNull()
    expect(r.items![2].targetError).toMatchObject({ code: 'OXEVAL_INVALID_INPUT', message: 'data item 2: turns[0] has no output, and runEvals has no target to produce one' })
    expect(r.turnResults![0].gateResults).toEqual([{ id: 'check-called-tool', passed: false, score: 0.5 }])
  })
})

describe('runEvals: agent forms without an Agent, and their errors', () => {
  it('a function target is called once per turn, with the turn and one thread', async () => {
    const calls: Any[] = []
    const target = async (input: string, ctx: Any) => {
      calls.push({ input, turn: ctx.turn, threadId: ctx.threadId, resourceId: ctx.resourceId, index: ctx.index })
      return `echo ${input}`
    }
    const seen = spy('seen', 'agent')
    const r = await runEvals({ target, data: [{ inputs: ['a', 'b', 'c'] }], scorers: [seen.scorer] })
    expect(calls.map((c) => [c.input, c.turn])).toEqual([
      ['a', { index: 0, count: 3 }],
      ['b', { index: 1, count: 3 }],
      ['c', { index: 2, count: 3 }],
    ])
    expect(new Set(calls.map((c) => c.threadId)).size).toBe(1)
    expect(calls[0].resourceId).toBe(calls[0].threadId)
    // a text answer per turn: each one an assistant message of the conversation
    expect(seen.runs[0].output).toEqual(['echo a', 'echo b', 'echo c'].map((content) => ({ role: 'assistant', content })))
    expect(r.outcome.passed).toBe(true)
    // so output checks see every turn's text
    const inc = await runEvals({ target, data: [{ inputs: ['a', 'b'] }], scorers: [checks.includes('echo b')] })
    expect(inc.scores['check-includes']).toBe(1)
  })

  it('shape errors are TypeErrors naming the item and the field, before any target call', async () => {
    const ox = weatherAgent()
    const cases: Array<[Any, RegExp | string]> = [
      [{ data: [{ input: 'a' }, { inputs: 'hello' }] }, 'runEvals: data item 1: inputs must be a non-empty array (one input per turn, sent in order on one thread), got string'],
      [{ data: [{ inputs: [] }] }, /data item 0: inputs must be a non-empty array .*got an empty array$/],
      [{ data: [{ turns: [{ input: 'a' }, { gates: [] }] }] }, 'runEvals: data item 0: turns[1] has no input (the message sent to the agent for this turn)'],
      [{ data: [{ input: 'x', turns: [{ input: 'a' }] }] }, 'runEvals: data item 0: turns cannot be combined with input or inputs (each turn carries its own input)'],
      [{ data: [{ turns: [{ input: 'a', gates: ['calledTool'] }] }] }, 'runEvals: data item 0: turns[0].gates[0] must be a scorer (an object with a string id and a run() method), got string'],
      [{ data: [{ turns: [{ input: 'a', scorers: [{ scorer: checks.includes('x') }] }] }] }, 'runEvals: data item 0: turns[0].scorers[0] has a scorer but no threshold'],
      [{ data: [{ turns: [{ input: 'a', scorers: [{ scorer: checks.includes('x'), threshold: Number.NaN }] }] }] }, /turns\[0\]\.scorers\[0\]: the minimum threshold of scorer "check-includes" must be a finite number in \[0, 1\], got the string "NaN"$/],
      [{ data: [{ input: 'a' }], scorers: { agent: [checks.includes('x')], trajectory: [checks.calledTool('weather')] } }, /^runEvals: scorers\.trajectory\[0\] \("check-called-tool"\) is not a trajectory scorer \(its type is "agent"\)/],
      [{ data: [{ input: 'a' }], scorers: { workflow: [checks.includes('x')] } }, /got an object with the key workflow \(oxeval's runEvals has no Workflow targets\)$/],
      [{ data: [{ input: 'a' }], scorers: [], gates: [] }, 'runEvals: give at least one scorer (scorers) or gate (gates), or per-turn gates / scorers in turns items'],
    ]
    for (const [opts, message] of cases) {
      const e = await failure(runEvals({ target: ox.agent, scorers: [checks.includes('x')], concurrency: 1, ...opts }))
      expect(e, JSON.stringify(message)).toBeInstanceOf(TypeError)
      if (typeof message === 'string') expect(e.message).toBe(message)
      else expect(e.message).toMatch(message)
    }
    // item 0 of the first case ran; no other case reached the agent
    expect(ox.state.calls).toBe(1)
    const e = await failure(runEvals({ target: async () => 'x', targetOptions: { maxSteps: 2 }, data: [{ input: 'a' }], scorers: [checks.includes('x')] }))
    expect(e.message).toBe("runEvals: targetOptions are passed to an Agent target's generate(); this run's target is not an Agent")
  })

  it("deliberate differences in the categorized form: thresholds are kept (Mastra's run rejects), a non-trajectory scorer under trajectory is refused (Mastra runs it on the trajectory)", async () => {
    const r = await runEvals({ target: weatherAgent().agent, data: [{ input: 'Weather in Paris?', expectedTrajectory }], scorers: { trajectory: [{ scorer: oxeval.createTrajectoryAccuracyScorerCode(), threshold: 0.9 }] } })
    expect(r.thresholdResults).toEqual([{ id: 'code-trajectory-accuracy-scorer', passed: true, averageScore: 1, threshold: 0.9 }])
    await expect(mastraRunEvals({ target: weatherAgent().agent, data: [{ input: 'Weather in Paris?' }], scorers: { trajectory: [{ scorer: mastraTrajectoryCode({}), threshold: 0.9 }] } } as Any)).rejects.toThrow()
    const mr = await mastraRunEvals({ target: weatherAgent().agent, data: [{ input: 'Weather in Paris?' }], scorers: { trajectory: [mastraChecks.calledTool('weather')] } } as Any)
    // Mastra handed the agent check a trajectory: it found no messages in it
    expect(mr.scores.trajectory['check-called-tool']).toBe(0)
  })

  it('onItemComplete gets the results by category; summarizeItems recounts turnResults and categorized scores', async () => {
    const views: Any[] = []
    const data = [
      { input: 'Weather in Paris?', expectedTrajectory },
      { turns: [{ input: 'Weather in Oslo?', gates: [checks.calledTool('weather')], scorers: [{ scorer: checks.includes('20°C'), threshold: 0.5 }] }, { input: 'Bye' }] },
    ]
    const scorers = { agent: [checks.includes('°C')], trajectory: [oxeval.createTrajectoryAccuracyScorerCode()] }
    const r = await runEvals({ target: weatherAgent().agent, data, scorers, onItemComplete: (v: Any) => void views.push(v) })
    expect(Object.keys(views[0].scorerResults).sort()).toEqual(['agent', 'trajectory'])
    expect(views[0].scorerResults.trajectory['code-trajectory-accuracy-scorer'].score).toBe(1)
    const again = summarizeItems({
      items: r.items!,
      scorers: [
        { id: 'check-includes', category: 'agent' },
        { id: 'code-trajectory-accuracy-scorer', category: 'trajectory' },
      ],
    })
    for (const k of ['scores', 'turnResults', 'verdict', 'outcome', 'coverage'] as const) expect(again[k]).toEqual(r[k])
    expect(r.turnResults![0].thresholdResults![0]).toMatchObject({ averageScore: 0, passed: false })
  })
})

describe('oxeval/vitest on agent runs: per-turn and trajectory results', () => {
  const turnsData = () => [
    { turns: [{ input: 'Weather in Paris?', gates: [checks.calledTool('weather')] }, { input: 'And tomorrow?', gates: [checks.calledTool('weather')], scorers: [{ scorer: checks.includes('°C'), threshold: 0.5 }] }] },
  ]

  it('toPass fails on a turn gate, naming the turn and its worst items; toPassGates / toPassThresholds count per-turn ones (Mastra\'s ids)', async () => {
    const { expectEvals, evalMatchers } = await import('../vitest/index.mjs')
    const e = await failure(expectEvals({ target: weatherAgent().agent, data: turnsData(), scorers: [] }).toPass())
    expect(e.name).toBe('EvalPassRateError')
    const lines = e.message.split('\n')
    expect(lines).toContain('  ✗ gate turn 1 check-called-tool: pass rate 0% (scored 1/1)')
    expect(lines).toContain('  ✗ threshold turn 1 check-includes: mean 0.0 (threshold: min 0.5, short by 0.5) (scored 1/1)')
    // the worst item of the failing turn gate: the item, its score, the check's reason
    expect(lines.some((l: string) => /^ {4}#0 0\.0: /.test(l))).toBe(true)
    const r = e.result
    const gates = evalMatchers.toPassGates(r)
    expect(gates.pass).toBe(false)
    expect(gates.message()).toMatch(/^expected all gates to pass, but 1 failed:\n {2}✗ gate turn 1 check-called-tool: pass rate 0%/)
    const ths = evalMatchers.toPassThresholds(r)
    expect(ths.pass).toBe(false)
    // Mastra's matcher says the same of its own run
    const mastraVitest = await import('@mastra/evals/vitest')
    const mr = await mastraRunEvals({ target: weatherAgent().agent, data: [{ turns: [{ input: 'Weather in Paris?', gates: [mastraChecks.calledTool('weather')] }, { input: 'And tomorrow?', gates: [mastraChecks.calledTool('weather')], scorers: [{ scorer: mastraChecks.includes('°C'), threshold: 0.5 }] }] }], scorers: [] } as Any)
    expect((mastraVitest as Any).evalMatchers.toPassGates(mr).pass).toBe(false)
    expect((mastraVitest as Any).evalMatchers.toPassGates(mr).message()).toContain('✗ turn 1 check-called-tool (score: 0)')
    // a passing turn gate passes toPassGates with no top-level gate at all
    const ok = await runEvals({ target: weatherAgent().agent, data: [{ turns: [{ input: 'Weather in Paris?', gates: [checks.calledTool('weather')] }] }], scorers: [] })
    expect(evalMatchers.toPassGates(ok).pass).toBe(true)
  })

  it('categorized means by dot path; the meta and the reporter show per-turn and trajectory rows', async () => {
    const { evalMatchers, toEvalMeta, OxevalEvalsReporter } = await import('../vitest/index.mjs')
    const r = await runEvals({
      target: weatherAgent().agent,
      data: [{ input: 'Weather in Paris?', expectedTrajectory }, ...turnsData()],
      scorers: { agent: [checks.includes('°C')], trajectory: [{ scorer: oxeval.createTrajectoryAccuracyScorerCode(), threshold: 0.9 }] },
    })
    expect(evalMatchers.toHaveScoreAbove(r, 'trajectory.code-trajectory-accuracy-scorer', 0.4).pass).toBe(true)
    const below = evalMatchers.toHaveScoreAbove(r, 'trajectory.code-trajectory-accuracy-scorer', 0.99)
    expect(below.pass).toBe(false)
    expect(below.message()).toMatch(/^expected the mean of "trajectory.code-trajectory-accuracy-scorer" \(0\.5\) to be above 0\.99, off by 0\.49 \(scored 2\/2\)/)
    expect(evalMatchers.toHaveScoreAbove(r, 'agent.nope', 0).message()).toBe('toHaveScoreAbove: scorer "agent.nope" not found in the result. Scorers: agent.check-includes, trajectory.code-trajectory-accuracy-scorer')
    const meta = toEvalMeta(r)
    expect(meta.scores).toEqual({ 'agent.check-includes': 1, 'trajectory.code-trajectory-accuracy-scorer': 0.5 })
    expect(meta.turnResults!.map((t: Any) => t.index)).toEqual([0, 1])
    expect(Object.keys(meta.worstTurns!)).toEqual(['turn 1 check-called-tool', 'turn 1 check-includes'])
    const text = new OxevalEvalsReporter({ color: false }).render([{ fullName: 'agent run', meta }])
    expect(text).toContain('trajectory.code-trajectory-accuracy-scorer (threshold: min 0.9)  0.5')
    expect(text).toMatch(/ {3}turn 1\n {5}check-called-tool \(gate\) +0% +1\/1 +✗/)
    expect(text).toContain('worst turn 1 check-called-tool:')
  })
})
