// Self-test of the scripted judge (testing/judge-server.mjs) over real HTTP: wire format
// (plain and SSE), reply selection, scripted and seeded random faults, heuristicJudge.
// Plain node:assert, so it checks the module the way any Node user would.
import { it } from 'vitest'
import assert from 'node:assert/strict'
import { startJudgeServer, heuristicJudge, type RecordedRequest } from '../testing/judge-server.mjs'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any

/** heuristicJudge called directly with just the request fields it reads. */
const judgeDirect = heuristicJudge as (req: Partial<RecordedRequest>) => Any

const chat = (url: string, body: Record<string, unknown>, init: RequestInit = {}) =>
  fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer test' },
    body: JSON.stringify({ model: 'judge-test', ...body }),
    ...init,
  })

const msgs = (user: string, system = 'You are a judge.') => [
  { role: 'system', content: system },
  { role: 'user', content: user },
]

/** Parses an SSE body into the JSON payloads (plus the literal "[DONE]"). */
function parseSse(text: string): Any[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      assert.ok(block.startsWith('data: '), `bad SSE block ${JSON.stringify(block)}`)
      const data = block.slice(6)
      return data === '[DONE]' ? data : JSON.parse(data)
    })
}

it('non-stream reply, usage, recording, parts content', async () => {
  const s = await startJudgeServer()
  try {
    s.enqueue('hello judge')
    const res = await chat(s.url, {
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'sys part' }] },
        { role: 'user', content: 'question?' },
      ],
    })
    assert.equal(res.status, 200)
    const json: Any = await res.json()
    assert.equal(json.object, 'chat.completion')
    assert.match(json.id, /^chatcmpl-/)
    assert.equal(json.model, 'judge-test')
    assert.deepEqual(json.choices[0].message, { role: 'assistant', content: 'hello judge' })
    assert.equal(json.choices[0].finish_reason, 'stop')
    assert.deepEqual(json.usage, { prompt_tokens: Math.ceil(17 / 4), completion_tokens: 3, total_tokens: 8 })
    const [rec] = s.requests
    assert.equal(rec.path, '/v1/chat/completions')
    assert.equal(rec.system, 'sys part')
    assert.equal(rec.user, 'question?')
    assert.equal(rec.text, 'sys part\nquestion?')
    assert.equal(rec.headers.authorization, 'Bearer test')
    assert.equal(rec.stream, false)
    assert.equal(rec.status, 200)

    // json reply + usage override + non-JSON body + unknown route
    s.enqueue({ json: { a: 1 }, usage: { prompt_tokens: 1, completion_tokens: 2 } })
    const j2: Any = await (await chat(s.url, { messages: msgs('x') })).json()
    assert.equal(j2.choices[0].message.content, '{"a":1}')
    assert.deepEqual(j2.usage, { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 })
    const bad = await fetch(`${s.url}/chat/completions`, { method: 'POST', body: 'not json' })
    assert.equal(bad.status, 400)
    assert.ok(((await bad.json()) as Any).error.message)
    assert.equal(s.requests.at(-1)!.raw, 'not json')
    assert.equal(s.requests.at(-1)!.body, null)
    assert.equal((await fetch(`${s.url}/models`)).status, 404)
    // nothing scripted -> 500, still recorded
    const none = await chat(s.url, { messages: msgs('unscripted') })
    assert.equal(none.status, 500)
    assert.match(((await none.json()) as Any).error.message, /no scripted reply/)
    assert.equal(s.requests.length, 5)
  } finally {
    await s.close()
  }
})

it('stream reply parsed back from SSE', async () => {
  const s = await startJudgeServer()
  try {
    const content = '{"statements":["Paris is the capital.","I like croissants."]}'
    s.enqueue(content)
    const res = await chat(s.url, { messages: msgs('q'), stream: true, stream_options: { include_usage: true } })
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type')!, /^text\/event-stream/)
    const events = parseSse(await res.text())
    assert.equal(events.at(-1), '[DONE]')
    const chunks = events.slice(0, -1)
    assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk'))
    const usageChunk = chunks.at(-1)
    assert.deepEqual(usageChunk.choices, [])
    assert.equal(usageChunk.usage.completion_tokens, Math.ceil(content.length / 4))
    const finish = chunks.at(-2)
    assert.equal(finish.choices[0].finish_reason, 'stop')
    assert.deepEqual(finish.choices[0].delta, {})
    const deltas = chunks.slice(0, -2)
    assert.ok(deltas.length > 1, 'content split into several chunks')
    assert.equal(deltas[0].choices[0].delta.role, 'assistant')
    assert.equal(deltas.map((c) => c.choices[0].delta.content).join(''), content)
    assert.equal(s.requests[0].stream, true)

    // without include_usage: no usage chunk
    s.enqueue({ content: 'abc', finishReason: 'length' })
    const ev2 = parseSse(await (await chat(s.url, { messages: msgs('q'), stream: true })).text())
    assert.equal(ev2.at(-2).choices[0].finish_reason, 'length')
    assert.ok(ev2.slice(0, -1).every((c) => c.choices.length === 1))
  } finally {
    await s.close()
  }
})

it('queue FIFO, rules with times, regexp/predicate rules, reply functions', async () => {
  const s = await startJudgeServer({ handler: (req) => `default:${req.user}` })
  try {
    const ask = async (user: string) => ((await (await chat(s.url, { messages: msgs(user) })).json()) as Any).choices[0].message.content
    s.enqueue('q1', 'q2')
    s.on('special', 'rule-once', { times: 1 })
    s.on(/^regex/m, (req) => ({ content: `fn:${req.index}` }))
    s.on((req) => req.user === 'pred', async () => 'predicate')
    assert.equal(await ask('special'), 'rule-once')
    assert.equal(await ask('special'), 'q1') // rule used up -> queue
    assert.equal(await ask('other'), 'q2')
    assert.equal(await ask('other'), 'default:other') // queue empty -> handler
    assert.equal(await ask('regex here'), 'fn:4')
    assert.equal(await ask('pred'), 'predicate')
    assert.equal(s.queued, 0)
    s.reset()
    assert.equal(s.requests.length, 0)
    assert.equal(await ask('special'), 'default:special') // rules cleared
    assert.equal(s.requests[0].index, 0)
  } finally {
    await s.close()
  }
})

it('429 with retry-after, error body', async () => {
  const s = await startJudgeServer()
  try {
    s.enqueue({ status: 429, headers: { 'retry-after': '1' } }, 'ok')
    const r1 = await chat(s.url, { messages: msgs('q') })
    assert.equal(r1.status, 429)
    assert.equal(r1.headers.get('retry-after'), '1')
    const body: Any = await r1.json()
    assert.equal(body.error.code, 'rate_limit_exceeded')
    assert.equal(typeof body.error.message, 'string')
    const r2 = await chat(s.url, { messages: msgs('q') })
    assert.equal(r2.status, 200)
  } finally {
    await s.close()
  }
})

it('reset, truncate, empty faults; delay', async () => {
  const s = await startJudgeServer()
  try {
    s.enqueue({ fault: 'reset' }, { content: 'x'.repeat(200), fault: 'truncate' }, { content: 'nope', fault: 'empty' })
    await assert.rejects(chat(s.url, { messages: msgs('q') }))
    const t = await chat(s.url, { messages: msgs('q') })
    assert.equal(t.status, 200)
    await assert.rejects(t.text())
    const e: Any = await (await chat(s.url, { messages: msgs('q') })).json()
    assert.equal(e.choices[0].message.content, '')
    assert.deepEqual(
      s.requests.map((r) => r.fault),
      ['reset', 'truncate', 'empty'],
    )
    s.enqueue({ content: 'slow', delayMs: 120 })
    const t0 = Date.now()
    await chat(s.url, { messages: msgs('q') })
    assert.ok(Date.now() - t0 >= 100)
    assert.equal(s.inFlight, 0)
  } finally {
    await s.close()
  }
})

it('hang + close() and in-flight counters', async () => {
  const s = await startJudgeServer()
  s.enqueue({ fault: 'hang' }, { fault: 'hang' })
  const p1 = chat(s.url, { messages: msgs('a') }).then(
    () => 'answered',
    () => 'failed',
  )
  const p2 = chat(s.url, { messages: msgs('b') }).then(
    () => 'answered',
    () => 'failed',
  )
  await s.waitForRequests(2)
  assert.equal(s.inFlight, 2)
  assert.equal(s.maxInFlight, 2)
  const t0 = Date.now()
  await s.close()
  assert.ok(Date.now() - t0 < 1000, 'close() is prompt even with hanging requests')
  assert.deepEqual(await Promise.all([p1, p2]), ['failed', 'failed'])
  await s.close() // idempotent
})

it('waitForRequests proves concurrency; timeout rejects', async () => {
  const s = await startJudgeServer({
    handler: async (req) => {
      await s.waitForRequests(2)
      return `done ${req.user}`
    },
  })
  try {
    const [a, b] = await Promise.all([chat(s.url, { messages: msgs('a') }), chat(s.url, { messages: msgs('b') })])
    assert.equal(((await a.json()) as Any).choices[0].message.content, 'done a')
    assert.equal(((await b.json()) as Any).choices[0].message.content, 'done b')
    assert.equal(s.maxInFlight, 2)
    await assert.rejects(s.waitForRequests(5, 50), /timed out/)
  } finally {
    await s.close()
  }
})

it('seeded random faults are reproducible across servers', async () => {
  const run = async (seed: number) => {
    const s = await startJudgeServer({ handler: () => ({ json: { ok: true } }), faults: { rate: 0.5, seed }, hangMs: 30 })
    const outcomes: string[] = []
    try {
      for (let i = 0; i < 40; i++) {
        try {
          const res = await chat(s.url, { messages: msgs(`q${i}`) })
          const text = await res.text()
          const ra = res.headers.get('retry-after')
          outcomes.push(`${res.status}${ra != null ? `/ra=${ra}` : ''}:${res.status === 200 ? JSON.parse(text).choices[0].message.content + '|' + JSON.parse(text).choices[0].finish_reason : ''}`)
        } catch {
          outcomes.push('network-error')
        }
      }
      return { outcomes, faults: s.requests.map((r) => r.fault) }
    } finally {
      await s.close()
    }
  }
  const a = await run(42)
  const b = await run(42)
  const c = await run(7)
  assert.deepEqual(a, b)
  assert.notDeepEqual(a.faults, c.faults)
  const faulted = a.faults.filter(Boolean)
  assert.ok(faulted.length > 5 && faulted.length < 35, `~half faulted, got ${faulted.length}`)
  assert.ok(a.outcomes.includes('200:{"ok":true}|stop'))
  for (let i = 0; i < a.faults.length; i++) {
    const f = a.faults[i]
    const o = a.outcomes[i]
    if (f === '429') assert.equal(o, '429/ra=0:')
    if (f === 'reset' || f === 'hang' || f === 'truncate') assert.equal(o, 'network-error')
    if (f === 'schema-invalid') assert.equal(o, '200:{"unexpected":true}|stop')
    if (f === 'length') assert.equal(o, '200:{"ok"|length')
    if (f === 'empty') assert.equal(o, '200:|stop')
  }
})

it('heuristicJudge: answer relevancy schemas, reason, errors', async () => {
  const s = await startJudgeServer({ handler: heuristicJudge })
  try {
    const ask = async (body: Record<string, unknown>) => {
      const res = await chat(s.url, body)
      return { status: res.status, json: (await res.json()) as Any }
    }
    // native response_format name
    const r1 = await ask({
      messages: msgs('Extract statements.\nDATA: {"output":"Paris is the capital. I like croissants."}'),
      response_format: { type: 'json_schema', json_schema: { name: 'answer_relevancy_statements', schema: {} } },
    })
    assert.deepEqual(JSON.parse(r1.json.choices[0].message.content), {
      statements: ['Paris is the capital.', 'I like croissants.'],
    })
    // schema marker in system prompt, streamed
    const res = await chat(s.url, {
      stream: true,
      messages: msgs(
        'Judge each statement.\nDATA: {"input":"What is the capital of France?","statements":["Paris is the capital.","I like croissants.","Its top is red."]}',
        'You judge relevancy.\nOutput schema name: answer_relevancy_verdicts',
      ),
    })
    const events = parseSse(await res.text())
    const content = events
      .slice(0, -1)
      .map((e) => e.choices[0]?.delta?.content ?? '')
      .join('')
    const verdicts: Any = JSON.parse(content)
    assert.deepEqual(
      verdicts.results.map((r: Any) => r.result),
      ['yes', 'no', 'no'],
    )
    assert.ok(verdicts.results.every((r: Any) => typeof r.reason === 'string' && r.reason.length > 0))
    const unsure = judgeDirect({
      body: { messages: [] },
      text: 'Output schema name: answer_relevancy_verdicts\nDATA: {"input":"Is the cat big?","statements":["A cat sat."]}',
      user: '',
    })
    assert.equal(unsure.json.results[0].result, 'unsure')
    // plain-text reason
    const r3 = await ask({ messages: msgs('Explain the score in one sentence.\nDATA: {"score":0.5,"input":"q","output":"a"}') })
    assert.match(r3.json.choices[0].message.content, /^The score is 0\.5 because /)
    // factual correctness + nv ratings (direct calls)
    const claims = judgeDirect({ body: { messages: [] }, text: 'Output schema name: factual_correctness_claims', user: 'DATA: {"text":"A is B. C is D."}' })
    assert.deepEqual(claims.json, { claims: ['A is B.', 'C is D.'] })
    const fc = judgeDirect({
      body: { messages: [], response_format: { type: 'json_schema', json_schema: { name: 'factual_correctness_verdicts' } } },
      text: '',
      user: 'DATA: {"premise":"Paris is the capital of France.","statements":["Paris is the capital of France.","Berlin hosts zoos."]}',
    })
    assert.deepEqual(
      fc.json.statements.map((x: Any) => x.verdict),
      [1, 0],
    )
    const nv = judgeDirect({ body: { messages: [] }, text: 'Output schema name: nv_rating_0_2_4', user: 'DATA: {"response":"Paris capital","reference":"Paris is the capital"}' })
    assert.deepEqual(nv.json, { rating: 4 })
    // missing DATA -> 500 with clear message
    const r4 = await ask({ messages: msgs('no data here') })
    assert.equal(r4.status, 500)
    assert.match(r4.json.error.message, /DATA/)
  } finally {
    await s.close()
  }
})

