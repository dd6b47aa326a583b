// Every native judge provider (Anthropic Messages, Google Gemini, Azure OpenAI) over the scripted
// judge server, which answers in the wire format of the request: the request as sent (route,
// headers, body), scoring, a representative subset of the fault matrix (transient and
// persistent), refusals, and the secrets scan. Then OpenAI reasoning models (capability table,
// reasoningEffort, the self-heal on a rejected parameter) and JSON mode.
import { afterEach, describe, expect, it } from 'vitest'
import { heuristicJudge } from '../testing/judge-server.mjs'
import { failure, oxeval, STEP, thrownBy, useJudgeServer, type Any, type RecordedRequest, type ReplyObject } from './helpers/setup'

const { createAnswerRelevancyScorer, ScorerRunError } = oxeval

const server = useJudgeServer({ hangMs: 5000 })

/** A fake credential, built at run time (no key-shaped literal in the repository). */
const secret = (tag: string) => ['fake', tag, Math.random().toString(36).slice(2, 12), 'k3y'].join('-')

type Api = 'anthropic' | 'google' | 'azure'
let count = 0
/** A model of `api` pointed at the scripted judge (a fresh id per call: limiters and heal memory stay apart). */
function modelOf(api: Api, apiKey?: string): Record<string, unknown> {
  const n = ++count
  if (api === 'anthropic') return { id: `anthropic/claude-test-${n}`, url: server.url, apiKey }
  if (api === 'google') return { id: `google/gemini-test-${n}`, url: server.url, apiKey }
  return { id: `azure/deploy-${n}`, url: `${server.origin}/openai`, apiKey, apiVersion: '2025-04-01-preview' }
}

/** The header carrying the key, per wire format. */
const KEY_HEADER: Record<Api, string> = { anthropic: 'x-api-key', google: 'x-goog-api-key', azure: 'api-key' }

const MAX_RETRIES = 1
function scorerFor(api: Api, apiKey = secret(api), settings: Record<string, unknown> = {}) {
  return createAnswerRelevancyScorer({
    model: modelOf(api, apiKey),
    modelSettings: { retryDelayMs: 1, maxRetries: MAX_RETRIES, timeoutMs: 1000, ...settings },
  } as Any)
}

const RUN = { input: 'What is the capital of France?', output: 'Paris is the capital. Croissants.' }
type Step = 'preprocess' | 'analyze' | 'generateReason'
const HAPPY: Record<Step, ReplyObject> = {
  preprocess: { json: { statements: ['Paris is the capital.', 'Croissants.'] } },
  analyze: { json: { results: [{ result: 'yes', reason: 'r' }, { result: 'no', reason: 'r' }] } },
  generateReason: { content: 'The score is 0.5 because half of it is relevant.' },
}
function scriptHappy() {
  for (const s of Object.keys(STEP) as Step[]) server.on(STEP[s], HAPPY[s])
}

const APIS: Api[] = ['anthropic', 'google', 'azure']

describe.each(APIS)('%s', (api) => {
  it('sends its wire format and scores with the heuristic judge', async () => {
    const key = secret(api)
    server.on(() => true, heuristicJudge)
    const s = scorerFor(api, key)
    const r = await s.run({ input: 'What is the capital of France?', output: 'The capital of France is Paris. I like trains.' })
    expect(r.score).toBeGreaterThan(0)
    expect(r.score).toBeLessThan(1)
    expect(r.reason).toMatch(/^The score is/)
    const ex = r.judge!.preprocess.executions[0]
    expect(ex.judgeProvider).toBe(api)
    expect(ex.finishReason).toBe('stop')
    expect(ex.usage.inputTokens).toBeGreaterThan(0)
    expect(ex.usage.totalTokens).toBe(ex.usage.inputTokens! + ex.usage.outputTokens!)
    expect([ex.attemptCount, ex.modelCallCount]).toEqual([1, 1])

    const reqs = server.requests
    expect(reqs).toHaveLength(3)
    for (const q of reqs) {
      expect(q.api).toBe(api)
      expect(q.headers[KEY_HEADER[api]]).toBe(key)
      expect(q.headers.authorization).toBeUndefined()
      expect(q.path + JSON.stringify(q.query)).not.toContain(key)
      expect(q.status).toBe(200)
    }
    const [pre, , reason] = reqs as [RecordedRequest, RecordedRequest, RecordedRequest]
    const body = pre.body as Any
    expect(pre.schemaName).toBe('answer_relevancy_statements')
    expect(reason.schemaName).toBeNull()
    if (api === 'anthropic') {
      expect(pre.path).toBe('/v1/messages')
      expect(pre.headers['anthropic-version']).toBe('2023-06-01')
      expect(body.max_tokens).toBe(4096)
      expect(body.temperature).toBe(0)
      expect(typeof body.system).toBe('string')
      expect(body.tools).toEqual([expect.objectContaining({ name: 'answer_relevancy_statements', input_schema: expect.objectContaining({ type: 'object' }) })])
      expect(body.tool_choice).toEqual({ type: 'tool', name: 'answer_relevancy_statements' })
      expect((reason.body as Any).tools).toBeUndefined()
    } else if (api === 'google') {
      expect(pre.path).toMatch(/^\/v1\/models\/gemini-test-\d+:generateContent$/)
      expect(body.systemInstruction.parts[0].text).toBe(pre.system)
      expect(body.contents).toEqual([{ role: 'user', parts: [{ text: pre.user }] }])
      expect(body.generationConfig).toMatchObject({ temperature: 0, responseMimeType: 'application/json' })
      expect(body.generationConfig.responseJsonSchema).toMatchObject({ type: 'object', title: 'answer_relevancy_statements' })
      expect((reason.body as Any).generationConfig).toEqual({ temperature: 0 })
    } else {
      expect(pre.path).toMatch(/^\/openai\/deployments\/deploy-\d+\/chat\/completions$/)
      expect(pre.query).toEqual({ 'api-version': '2025-04-01-preview' })
      expect(body.response_format.json_schema.name).toBe('answer_relevancy_statements')
      expect(body.temperature).toBe(0)
    }
  })

  it('maxOutputTokens is the budget on the wire', async () => {
    scriptHappy()
    await scorerFor(api, undefined, { maxOutputTokens: 300 }).run(RUN)
    const body = server.requests[0].body as Any
    const budget = api === 'anthropic' ? body.max_tokens : api === 'google' ? body.generationConfig.maxOutputTokens : body.max_tokens
    expect(budget).toBe(300)
  })

  type Fault = '429' | '500' | '529' | 'reset' | 'invalid-json' | 'schema-invalid' | 'length'
  const TRANSPORT: Fault[] = ['429', '500', '529', 'reset']
  const faultReply = (fault: Fault): ReplyObject => {
    switch (fault) {
      case '429':
        return { status: 429, headers: { 'retry-after': '0' } }
      case '500':
      case '529':
        return { status: Number(fault), content: fault === '529' ? 'Overloaded' : undefined }
      case 'reset':
        return { fault: 'reset' }
      case 'invalid-json':
        return { content: 'Sorry, I cannot help with that.' }
      case 'schema-invalid':
        return { json: { unexpected: true } }
      case 'length':
        return { content: '{"results": [{"result": "yes", "rea', finishReason: 'length' }
    }
  }
  const CODE: Record<Fault, string> = {
    '429': 'OXEVAL_JUDGE_HTTP',
    '500': 'OXEVAL_JUDGE_HTTP',
    '529': 'OXEVAL_JUDGE_HTTP',
    reset: 'OXEVAL_JUDGE_NETWORK',
    'invalid-json': 'OXEVAL_JUDGE_OUTPUT',
    'schema-invalid': 'OXEVAL_JUDGE_OUTPUT',
    length: 'OXEVAL_JUDGE_TRUNCATED',
  }
  const FAULTS = Object.keys(CODE) as Fault[]

  it.each(FAULTS)('transient %s on analyze → recovers', async (fault) => {
    server.on(STEP.analyze, faultReply(fault), { times: 1 })
    scriptHappy()
    const r = await scorerFor(api).run(RUN)
    expect(r.score).toBe(0.5)
    const ex = r.judge!.analyze.executions[0]
    expect(ex.status).toBe('success')
    expect([ex.attemptCount, ex.modelCallCount]).toEqual(TRANSPORT.includes(fault) ? [1, 2] : [2, 2])
    if (fault === 'length') {
      // the fallback had twice the default budget where the wire has one
      const fallback = server.requests.filter((q) => q.text.includes(STEP.analyze))[1].body as Any
      if (api === 'anthropic') expect(fallback.max_tokens).toBe(4096)
      if (api === 'google') expect(fallback.generationConfig.maxOutputTokens).toBe(4096)
    }
  })

  it.each(FAULTS)('persistent %s on analyze → fails loudly at the step', async (fault) => {
    server.on(STEP.analyze, faultReply(fault))
    scriptHappy()
    const e = await failure(scorerFor(api).run(RUN))
    expect(e).toBeInstanceOf(ScorerRunError)
    expect(e.failedStep).toBe('analyze')
    expect(e.code).toBe(CODE[fault])
    expect(e.completedSteps).toEqual(['preprocess'])
    const ex = e.result.judge.analyze.executions[0]
    if (TRANSPORT.includes(fault)) {
      expect(ex.modelCallCount).toBe(MAX_RETRIES + 1)
      if (fault !== 'reset') expect(e.cause.status).toBe(Number(fault))
      if (fault === '529') expect(e.message).toContain('Overloaded')
    } else {
      expect(ex.attemptCount).toBe(2)
      expect(ex.rawOutput).toBeTruthy()
    }
  })

  it('a key or custom header echoed in 401 / 500 / garbled bodies is redacted everywhere', async () => {
    const key = secret(`leak-${api}`)
    const team = secret(`team-${api}`)
    const s = createAnswerRelevancyScorer({
      model: { ...modelOf(api, key), headers: { 'x-team-token': team } },
      modelSettings: { retryDelayMs: 1, maxRetries: MAX_RETRIES },
    } as Any)
    const seen: unknown[] = [s, s.judge]
    server.enqueue({ status: 401, content: `invalid x-api-key: ${key} (team ${team})` })
    seen.push(await failure(s.run(RUN)))
    server.enqueue({ status: 500, content: `upstream failed for ${key}` }, { status: 500, content: `again ${team}` })
    seen.push(await failure(s.run(RUN)))
    server.enqueue({ body: `garbled ${key} {{{` }, { body: `still garbled ${key}` })
    seen.push(await failure(s.run(RUN)))
    expect(server.requests.every((q) => q.headers[KEY_HEADER[api]] === key && q.headers['x-team-token'] === team)).toBe(true)
    expect((seen[2] as Any).message).toContain('[redacted]')
    expect((seen[3] as Any).cause.rawOutput).toContain('[redacted]')
    expect((seen[4] as Any).cause.rawOutput).toContain('[redacted]')
    const { inspect } = await import('node:util')
    for (const v of seen) {
      const text =
        inspect(v, { depth: 20, showHidden: true, getters: true }) +
        JSON.stringify(v, (_k, x) => (x instanceof Error ? { ...x, message: x.message, stack: x.stack, cause: x.cause } : x))
      expect(text).not.toContain(key)
      expect(text).not.toContain(team)
    }
  })
})

describe('refusals', () => {
  it.each([
    ['anthropic', { content: '', finishReason: 'refusal' }],
    ['google', { content: '', finishReason: 'SAFETY' }],
  ] as const)('%s: a refusal twice is OXEVAL_JUDGE_REFUSAL', async (api, reply) => {
    server.on(STEP.preprocess, reply)
    const e = await failure(scorerFor(api).run(RUN))
    expect(e.code).toBe('OXEVAL_JUDGE_REFUSAL')
    expect(e.failedStep).toBe('preprocess')
    const ex = e.result.judge.preprocess.executions[0]
    expect(ex.attemptCount).toBe(2)
    expect(ex.finishReason).toBe('content_filter')
    expect(e.cause.rawOutput).toMatch(api === 'anthropic' ? /stop_reason 'refusal'/ : /finishReason SAFETY/)
  })

  it('anthropic: a refusal once, then an answer', async () => {
    server.on(STEP.preprocess, { content: 'I cannot assess this.', finishReason: 'refusal' }, { times: 1 })
    scriptHappy()
    const r = await scorerFor('anthropic').run(RUN)
    expect(r.score).toBe(0.5)
    expect(r.judge!.preprocess.executions[0].attemptCount).toBe(2)
  })
})

describe('string ids and environment variables', () => {
  const saved = { ...process.env }
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k]
    Object.assign(process.env, saved)
  })

  it.each([
    ['anthropic/claude-env', { ANTHROPIC_API_KEY: 'KEY', ANTHROPIC_BASE_URL: 'URL' }, 'anthropic'],
    ['google/gemini-env', { GOOGLE_GENERATIVE_AI_API_KEY: 'KEY', GOOGLE_GENERATIVE_AI_BASE_URL: 'URL' }, 'google'],
    ['azure/deploy-env', { AZURE_API_KEY: 'KEY', AZURE_BASE_URL: 'ORIGIN', AZURE_API_VERSION: '2024-10-21' }, 'azure'],
  ] as const)('%s', async (model, env, api) => {
    const key = secret(api)
    const value = (v: string) => (v === 'KEY' ? key : v === 'URL' ? server.url : v === 'ORIGIN' ? `${server.origin}/openai` : v)
    for (const [k, v] of Object.entries(env)) process.env[k] = value(v)
    scriptHappy()
    const r = await createAnswerRelevancyScorer({ model, modelSettings: { retryDelayMs: 1 } }).run(RUN)
    expect(r.score).toBe(0.5)
    expect(server.requests.every((q) => q.api === api && q.headers[KEY_HEADER[api as Api]] === key)).toBe(true)
    if (api === 'azure') expect(server.requests[0].query['api-version']).toBe('2024-10-21')
  })

  it('a missing key fails the run before any request, naming the variable', async () => {
    delete process.env.ANTHROPIC_API_KEY
    const e = await failure(createAnswerRelevancyScorer({ model: 'anthropic/claude-x' }).run(RUN))
    expect(e.code).toBe('OXEVAL_MISSING_API_KEY')
    expect(e.message).toContain('process.env.ANTHROPIC_API_KEY')
    expect(server.requests).toHaveLength(0)
  })

  it('azure without a resource, base URL or url is a TypeError at creation', () => {
    delete process.env.AZURE_RESOURCE_NAME
    delete process.env.AZURE_BASE_URL
    const e = thrownBy(() => createAnswerRelevancyScorer({ model: 'azure/d' }))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toContain('AZURE_RESOURCE_NAME')
  })
})

describe('OpenAI reasoning models', () => {
  const reasoner = (id: string, settings: Record<string, unknown> = {}) =>
    createAnswerRelevancyScorer({ model: { id, url: server.url }, modelSettings: { retryDelayMs: 1, ...settings } } as Any)

  it('the capability table: no temperature, max_completion_tokens, reasoning_effort, reasoning tokens', async () => {
    server.on(STEP.preprocess, { ...HAPPY.preprocess, usage: { completion_tokens: 50, completion_tokens_details: { reasoning_tokens: 40 } } as Any })
    scriptHappy()
    const r = await reasoner(`openai/o4-mini-${++count}`, { maxOutputTokens: 2000, reasoningEffort: 'low' }).run(RUN)
    expect(r.score).toBe(0.5)
    for (const q of server.requests) {
      const body = q.body as Any
      expect(body.temperature).toBeUndefined()
      expect(body.max_tokens).toBeUndefined()
      expect(body.max_completion_tokens).toBe(2000)
      expect(body.reasoning_effort).toBe('low')
    }
    expect(r.judge!.preprocess.executions[0].usage.reasoningTokens).toBe(40)
  })

  it('a chat model at a custom url keeps temperature and max_tokens', async () => {
    scriptHappy()
    await reasoner(`openai/gpt-4o-mini-${++count}`, { maxOutputTokens: 100 }).run(RUN)
    const body = server.requests[0].body as Any
    expect([body.temperature, body.max_tokens, body.max_completion_tokens, body.reasoning_effort]).toEqual([0, 100, undefined, undefined])
  })

  it('reasoningEffort is validated', () => {
    const e = thrownBy(() => reasoner('openai/o3', { reasoningEffort: 'max' }))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toBe("options.modelSettings.reasoningEffort must be one of 'minimal', 'low', 'medium', 'high'; got 'max'")
  })

  const REJECT_TEMPERATURE: ReplyObject = {
    status: 400,
    param: 'temperature',
    errorCode: 'unsupported_value',
    content: "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
  }

  it('self-heal: a 400 naming temperature → the same request without it, remembered for the endpoint and model', async () => {
    const id = `custom/new-reasoner-${++count}`
    server.on((q) => (q.body as Any).temperature !== undefined, REJECT_TEMPERATURE)
    scriptHappy()
    const r = await reasoner(id).run(RUN)
    expect(r.score).toBe(0.5)
    const [first, second] = server.requests
    expect((first.body as Any).temperature).toBe(0)
    expect(first.status).toBe(400)
    expect((second.body as Any).temperature).toBeUndefined()
    expect({ ...(second.body as Any), temperature: 0 }).toEqual(first.body)
    const ex = r.judge!.preprocess.executions[0]
    expect([ex.status, ex.attemptCount, ex.modelCallCount]).toEqual(['success', 1, 2])
    // every later request, of this run and of the next runs (another scorer too), goes without it
    expect(server.requests.slice(1).every((q) => (q.body as Any).temperature === undefined)).toBe(true)
    expect(server.requests).toHaveLength(4)
    server.reset()
    server.on((q) => (q.body as Any).temperature !== undefined, REJECT_TEMPERATURE)
    scriptHappy()
    await reasoner(id).run(RUN)
    expect(server.requests).toHaveLength(3)
    expect(server.requests.every((q) => (q.body as Any).temperature === undefined && q.status === 200)).toBe(true)
    // another model at the same endpoint still sends it
    server.reset()
    scriptHappy()
    await reasoner(`custom/other-${++count}`).run(RUN)
    expect((server.requests[0].body as Any).temperature).toBe(0)
  })

  it('self-heal: max_tokens → max_completion_tokens, from the message alone', async () => {
    server.on((q) => (q.body as Any).max_tokens !== undefined, {
      status: 400,
      content: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    })
    scriptHappy()
    const r = await reasoner(`custom/r-${++count}`, { maxOutputTokens: 64 }).run(RUN)
    expect(r.score).toBe(0.5)
    expect((server.requests[1].body as Any).max_completion_tokens).toBe(64)
    expect((server.requests[1].body as Any).max_tokens).toBeUndefined()
  })

  it('a 400 about something else is not healed', async () => {
    server.on(() => true, { status: 400, param: 'messages', content: 'Invalid value for messages.' })
    const e = await failure(reasoner(`custom/r-${++count}`).run(RUN))
    expect(e.code).toBe('OXEVAL_JUDGE_HTTP')
    expect(e.cause.status).toBe(400)
    expect(server.requests).toHaveLength(1)
  })
})

describe('structured output by the capability table', () => {
  it('json_object: JSON mode with the schema in the prompt, free text stays text', async () => {
    server.on(() => true, heuristicJudge)
    const r = await createAnswerRelevancyScorer({ model: { id: `mistral/small-${++count}`, url: server.url }, modelSettings: { retryDelayMs: 1 } } as Any).run(RUN)
    expect(r.score).toBeGreaterThanOrEqual(0)
    const [pre, analyze, reason] = server.requests
    for (const q of [pre, analyze]) {
      expect((q.body as Any).response_format).toEqual({ type: 'json_object' })
      expect(q.system).toContain('Output schema name: ')
    }
    expect((reason.body as Any).response_format).toBeUndefined()
  })

  it('structuredOutput: json_object on any endpoint', async () => {
    scriptHappy()
    await createAnswerRelevancyScorer({ model: { id: `custom/m-${++count}`, url: server.url, structuredOutput: 'json_object' }, modelSettings: { retryDelayMs: 1 } } as Any).run(RUN)
    expect((server.requests[0].body as Any).response_format).toEqual({ type: 'json_object' })
  })

  it('self-heal: JSON mode rejected → dropped (the schema is in the prompt)', async () => {
    server.on((q) => (q.body as Any).response_format !== undefined, { status: 400, param: 'response_format', errorCode: 'unsupported_parameter', content: 'response_format is not supported' })
    scriptHappy()
    const r = await createAnswerRelevancyScorer({ model: { id: `fireworks/m-${++count}`, url: server.url }, modelSettings: { retryDelayMs: 1 } } as Any).run(RUN)
    expect(r.score).toBe(0.5)
    expect(server.requests).toHaveLength(4)
  })

  it('google gemma: schema in the prompt, no system instruction', async () => {
    scriptHappy()
    await createAnswerRelevancyScorer({ model: { id: `google/gemma-3-${++count}`, url: server.url }, modelSettings: { retryDelayMs: 1 } } as Any).run(RUN)
    const body = server.requests[0].body as Any
    expect(body.systemInstruction).toBeUndefined()
    expect(body.generationConfig.responseMimeType).toBeUndefined()
    expect(body.contents[0].parts[0].text).toContain('Output schema name: answer_relevancy_statements')
  })
})

describe('the scripted judge speaks each wire format', () => {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return { status: res.status, json: (await res.json()) as Any }
  }

  it('errors in the format of the request', async () => {
    server.enqueue({ status: 529, content: 'Overloaded' }, { status: 429, content: 'Quota' }, { status: 400, param: 'temperature', errorCode: 'unsupported_value', content: 'no' })
    expect(await post('/v1/messages', { model: 'c', max_tokens: 5, messages: [] })).toEqual({
      status: 529,
      json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    })
    expect(await post('/v1beta/models/g:generateContent', { contents: [] })).toEqual({
      status: 429,
      json: { error: { code: 429, message: 'Quota', status: 'RESOURCE_EXHAUSTED' } },
    })
    const azure = await post('/openai/deployments/d/chat/completions?api-version=v', { messages: [] })
    expect(azure.json.error).toEqual({ message: 'no', type: 'invalid_request_error', param: 'temperature', code: 'unsupported_value' })
  })

  it('rejects what the real APIs reject', async () => {
    expect((await post('/v1/messages', { model: 'c', messages: [] })).json.error.message).toContain('max_tokens')
    expect((await post('/v1beta/models/g:generateContent', { messages: [] })).json.error.message).toContain('"contents"')
    expect((await post('/openai/deployments/d/chat/completions', { messages: [] })).json.error.message).toContain('api-version')
    expect((await post('/v1/completions', {})).status).toBe(404)
    expect(server.requests.map((q) => q.api)).toEqual(['anthropic', 'google', 'azure', null])
  })

  it('answers: tool_use for a forced tool, Gemini candidates with usage', async () => {
    server.enqueue({ json: { a: 1 } }, { content: 'plain', finishReason: 'length' }, { content: '{"a": 2}' })
    const tool = await post('/v1/messages', { model: 'c', max_tokens: 5, system: 'S', messages: [{ role: 'user', content: 'U' }], tool_choice: { type: 'tool', name: 'x' } })
    expect(tool.json).toMatchObject({ type: 'message', content: [{ type: 'tool_use', name: 'x', input: { a: 1 } }], stop_reason: 'tool_use' })
    const text = await post('/v1/messages', { model: 'c', max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'text', text: 'U' }] }] })
    expect(text.json).toMatchObject({ content: [{ type: 'text', text: 'plain' }], stop_reason: 'max_tokens' })
    const gemini = await post('/v1beta/models/gemini-x:generateContent', {
      systemInstruction: { parts: [{ text: 'S' }] },
      contents: [{ role: 'user', parts: [{ text: 'U' }] }],
      generationConfig: { responseJsonSchema: { title: 'nv_rating_0_1_2' } },
    })
    expect(gemini.json).toMatchObject({ candidates: [{ content: { role: 'model', parts: [{ text: '{"a": 2}' }] }, finishReason: 'STOP' }], modelVersion: 'gemini-x' })
    expect(gemini.json.usageMetadata.totalTokenCount).toBeGreaterThan(0)
    const [a, , g] = server.requests
    expect([a.system, a.user, a.schemaName]).toEqual(['S', 'U', 'x'])
    expect([g.system, g.user, g.text, g.schemaName]).toEqual(['S', 'U', 'S\nU', 'nv_rating_0_1_2'])
  })
})
