// Local fake LLM judge: lets code that uses oxeval be tested, demonstrated and
// benchmarked without a real model. Plain ESM, Node built-ins only. See
// judge-server.d.ts for the typed API. It speaks four wire formats, routed by path:
//   POST …/chat/completions                          OpenAI Chat Completions
//   POST …/openai/deployments/{d}/chat/completions   Azure OpenAI (needs ?api-version=)
//   POST …/messages                                  Anthropic Messages
//   POST …/models/{m}:generateContent                Google Gemini
// Replies and faults are scripted once and rendered in the format of the request.
//
//   const judge = await startJudgeServer({ handler: heuristicJudge })
//   judge.url            // "http://127.0.0.1:<port>/v1" -> give to an OpenAI client
//   judge.origin         // "http://127.0.0.1:<port>"    -> Azure: `${origin}/openai`
//   judge.on(/capital/, { json: { statements: ['a'] } }, { times: 1 })
//   judge.enqueue('plain text reply', { status: 429, headers: { 'retry-after': '1' } })
//   await judge.close()
//
// Reply selection order per request: rules (server.on) -> FIFO queue
// (server.enqueue) -> options.handler -> 500 "no scripted reply".
// Random faults (options.faults) wrap whatever reply was selected.

import http from 'node:http'

/** Every kind the seeded random fault injector can produce. */
export const RANDOM_FAULT_KINDS = Object.freeze([
  '429',
  '500',
  '502',
  '503',
  'reset',
  'hang',
  'truncate',
  'invalid-json',
  'schema-invalid',
  'empty',
  'length',
])

const SCRIPTED_FAULTS = new Set(['reset', 'hang', 'truncate', 'empty'])

/** mulberry32: tiny seeded PRNG returning floats in [0, 1). */
function mulberry32(seed) {
  let a = seed >>> 0
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Normalizes an OpenAI message `content` (string | parts[] | null) to a string. */
function contentToString(content) {
  if (content == null) return ''
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (typeof part === 'string') return part
        if (part && typeof part.text === 'string') return part.text
        return ''
      })
      .filter((s) => s !== '')
      .join('\n')
  }
  if (typeof content === 'object' && typeof content.text === 'string') return content.text
  return String(content)
}

/** Text of an Anthropic `system` (string | text blocks). */
function anthropicSystem(system) {
  return contentToString(system)
}

/** Text of Gemini `parts` (`[{ text }]`). */
function partsToString(parts) {
  return Array.isArray(parts) ? contentToString(parts) : ''
}

/** Which wire format a request path speaks (null: none). */
function apiOf(path) {
  if (/\/openai\/deployments\/[^/]+\/chat\/completions$/.test(path)) return 'azure'
  if (path.endsWith('/chat/completions')) return 'openai'
  if (path.endsWith('/messages')) return 'anthropic'
  if (path.endsWith(':generateContent')) return 'google'
  return null
}

/**
 * The schema name a request carries natively: OpenAI/Azure `response_format.json_schema.name`,
 * Anthropic's forced tool (`tool_choice.name`), Gemini's schema `title`.
 */
function nativeSchemaName(body) {
  if (!body || typeof body !== 'object') return undefined
  const openai = body.response_format?.json_schema?.name
  if (typeof openai === 'string') return openai
  if (body.tool_choice?.type === 'tool' && typeof body.tool_choice.name === 'string') return body.tool_choice.name
  const config = body.generationConfig
  const title = config?.responseJsonSchema?.title ?? config?.responseSchema?.title
  if (typeof title === 'string') return title
  return undefined
}

const estimateTokens = (chars) => Math.ceil(chars / 4)

/** Anthropic's error `type` for an HTTP status. */
function anthropicErrorType(status) {
  if (status === 400) return 'invalid_request_error'
  if (status === 401) return 'authentication_error'
  if (status === 403) return 'permission_error'
  if (status === 404) return 'not_found_error'
  if (status === 413) return 'request_too_large'
  if (status === 429) return 'rate_limit_error'
  if (status === 529) return 'overloaded_error'
  return status >= 500 ? 'api_error' : 'invalid_request_error'
}

/** Google's error `status` for an HTTP status. */
function googleErrorStatus(status) {
  const known = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED' }
  return known[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION')
}

/** Anthropic `stop_reason` for a reply's finish reason (OpenAI names or Anthropic's own). */
function anthropicStopReason(finishReason, toolUse) {
  if (finishReason === 'stop') return toolUse ? 'tool_use' : 'end_turn'
  if (finishReason === 'length') return 'max_tokens'
  if (finishReason === 'content_filter') return 'refusal'
  return finishReason
}

/** Gemini `finishReason` for a reply's finish reason (OpenAI names or Gemini's own). */
function googleFinishReason(finishReason) {
  if (finishReason === 'stop') return 'STOP'
  if (finishReason === 'length') return 'MAX_TOKENS'
  if (finishReason === 'content_filter' || finishReason === 'refusal') return 'SAFETY'
  return finishReason
}

/** Default OpenAI-ish error `type`/`code` for an HTTP status. */
function errorShape(status) {
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded' }
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' }
  if (status === 404) return { type: 'invalid_request_error', code: 'not_found' }
  if (status >= 400 && status < 500) return { type: 'invalid_request_error', code: 'bad_request' }
  return { type: 'server_error', code: 'server_error' }
}

/** Splits `text` into at most `n` roughly equal pieces on code point boundaries. */
function splitPieces(text, n) {
  const chars = Array.from(text)
  if (chars.length <= 1) return [text]
  const count = Math.min(n, chars.length)
  const size = Math.ceil(chars.length / count)
  const pieces = []
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''))
  return pieces
}

/** Normalizes a resolved reply value (string | object) to a reply object. */
function normalizeReply(value) {
  if (typeof value === 'string') return { content: value }
  if (value && typeof value === 'object') return value
  return {
    status: 500,
    content: `judge-server: reply resolved to ${value === undefined ? 'undefined' : typeof value}, expected a string or reply object`,
  }
}

/**
 * Starts the fake judge on 127.0.0.1 with an ephemeral port.
 * @param {import('./judge-server').JudgeServerOptions} [options]
 * @returns {Promise<import('./judge-server').JudgeServer>}
 */
export async function startJudgeServer(options = {}) {
  const latencyMs = Math.max(0, Number(options.latencyMs ?? 0) || 0)
  const hangMs = Math.max(0, Number(options.hangMs ?? 30000))
  const maxRecorded = Math.max(1, Number(options.maxRecorded ?? Infinity) || Infinity)
  const faultRate = Math.min(1, Math.max(0, Number(options.faults?.rate ?? 0) || 0))
  const faultSeed = Number(options.faults?.seed ?? 0) >>> 0
  const faultKinds = options.faults?.kinds?.length ? [...options.faults.kinds] : [...RANDOM_FAULT_KINDS]
  for (const kind of faultKinds) {
    if (!RANDOM_FAULT_KINDS.includes(kind)) throw new TypeError(`judge-server: unknown fault kind ${JSON.stringify(kind)}`)
  }

  // ---- mutable state -------------------------------------------------------
  /** @type {{ matcher: any, reply: any, remaining: number }[]} */
  let rules = []
  let queue = []
  const requests = []
  let nextIndex = 0
  let inFlight = 0
  let maxInFlight = 0
  let rand = mulberry32(faultSeed)
  let closed = false
  let closePromise = null
  const sockets = new Set()
  /** Pending timers (delays, bounded hangs); `close()` clears them and runs their wake-up. */
  const timers = new Map()
  /** waitForRequests() waiters. */
  let waiters = []

  /** Sleeps `ms`; wakes early (returning) when the server closes. */
  function sleep(ms) {
    if (ms <= 0) return Promise.resolve()
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t)
        resolve()
      }, ms)
      timers.set(t, resolve)
    })
  }

  /** Runs `fn` after `ms` unless the server closes first; returns a cancel function. */
  function later(ms, fn) {
    const t = setTimeout(() => {
      timers.delete(t)
      fn()
    }, ms)
    timers.set(t, () => {})
    return () => {
      clearTimeout(t)
      timers.delete(t)
    }
  }

  function notifyWaiters() {
    waiters = waiters.filter((w) => {
      if (requests.length < w.n) return true
      clearTimeout(w.timer)
      w.resolve(requests.slice())
      return false
    })
  }

  // ---- reply selection -----------------------------------------------------

  function ruleMatches(rule, rec) {
    const m = rule.matcher
    try {
      if (typeof m === 'string') return rec.text.includes(m)
      if (m instanceof RegExp) {
        m.lastIndex = 0
        return m.test(rec.text)
      }
      if (typeof m === 'function') return Boolean(m(rec))
    } catch {
      // A throwing predicate simply does not match.
    }
    return false
  }

  /** Synchronously picks the reply source (so FIFO/`times` follow arrival order). */
  function selectReply(rec) {
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i]
      if (!ruleMatches(rule, rec)) continue
      rule.remaining -= 1
      if (rule.remaining <= 0) rules.splice(i, 1)
      return rule.reply
    }
    if (queue.length > 0) return queue.shift()
    if (options.handler !== undefined) return options.handler
    return {
      status: 500,
      content: `judge-server: no scripted reply for request #${rec.index} (${rec.user.slice(0, 120).replace(/\s+/g, ' ')})`,
    }
  }

  /** Resolves reply functions (possibly async, possibly returning functions). */
  async function resolveReply(reply, rec) {
    try {
      let value = reply
      for (let depth = 0; typeof value === 'function' && depth < 8; depth++) value = await value(rec)
      return normalizeReply(value)
    } catch (err) {
      return { status: 500, content: `judge-server: reply function threw: ${err?.message ?? err}` }
    }
  }

  /** Draws the random fault (if any) for one chat request. Always draws twice for a stable sequence. */
  function drawFault() {
    if (faultRate <= 0) return null
    const hit = rand() < faultRate
    const pick = faultKinds[Math.floor(rand() * faultKinds.length)]
    return hit ? pick : null
  }

  /** Wraps the selected reply with a random fault kind. */
  function applyRandomFault(base, kind) {
    const keep = { delayMs: base.delayMs }
    switch (kind) {
      case '429':
        return { ...keep, status: 429, headers: { 'retry-after': '0' }, content: 'Rate limit reached (injected fault)' }
      case '500':
      case '502':
      case '503':
        return { ...keep, status: Number(kind), content: `Upstream error ${kind} (injected fault)` }
      case 'reset':
      case 'truncate':
      case 'empty':
        return { ...base, status: undefined, body: undefined, fault: kind }
      case 'hang':
        return { ...base, fault: 'hang', hangMs }
      case 'invalid-json':
        return { ...keep, content: 'Sorry, I cannot help with that request.' }
      case 'schema-invalid':
        return { ...keep, content: '{"unexpected":true}' }
      case 'length': {
        const full = replyContent(base)
        const chars = Array.from(full)
        return { ...keep, content: chars.slice(0, Math.floor(chars.length / 2)).join(''), finishReason: 'length' }
      }
      default:
        return base
    }
  }

  // ---- rendering -----------------------------------------------------------

  function replyContent(reply) {
    if (reply.fault === 'empty') return ''
    if (reply.json !== undefined) return JSON.stringify(reply.json)
    return reply.content ?? ''
  }

  /** Builds {status, headers, payload (string | string[] of SSE events)} for a reply. */
  function render(reply, rec) {
    const extra = reply.headers ?? {}
    if (typeof reply.body === 'string') {
      return {
        status: reply.status ?? 200,
        headers: { 'content-type': rec.stream ? 'text/event-stream' : 'application/json', ...extra },
        payload: reply.body,
      }
    }
    if (reply.status != null && reply.status >= 400) {
      const message = reply.content ?? `judge-server: scripted HTTP ${reply.status}`
      const headers = { 'content-type': 'application/json', ...extra }
      if (rec.api === 'anthropic') {
        const error = { type: anthropicErrorType(reply.status), message }
        return { status: reply.status, headers, payload: JSON.stringify({ type: 'error', error }) }
      }
      if (rec.api === 'google') {
        const error = { code: reply.status, message, status: googleErrorStatus(reply.status) }
        return { status: reply.status, headers, payload: JSON.stringify({ error }) }
      }
      const shape = errorShape(reply.status)
      const error = { message, type: shape.type, param: reply.param ?? null, code: reply.errorCode ?? shape.code }
      return { status: reply.status, headers, payload: JSON.stringify({ error }) }
    }

    const body = rec.body ?? {}
    const content = replyContent(reply)
    const finishReason = reply.finishReason ?? 'stop'
    const id = `chatcmpl-judge${rec.index}`
    const created = Math.floor(Date.now() / 1000)
    const model = typeof body.model === 'string' ? body.model : 'oxeval-fake-judge'
    const promptChars =
      rec.api === 'openai' || rec.api === 'azure'
        ? (Array.isArray(body.messages) ? body.messages : []).reduce((n, m) => n + contentToString(m?.content).length, 0)
        : rec.text.length
    const promptTokens = estimateTokens(promptChars)
    const usage = { prompt_tokens: promptTokens, completion_tokens: estimateTokens(content.length), ...reply.usage }
    if (reply.usage?.total_tokens == null) usage.total_tokens = usage.prompt_tokens + usage.completion_tokens
    const status = reply.status ?? 200

    if (rec.api === 'anthropic') return renderAnthropic(reply, rec, { content, finishReason, usage, status, extra })
    if (rec.api === 'google') return renderGoogle(reply, rec, { content, finishReason, usage, status, extra })

    if (!rec.stream) {
      return {
        status,
        headers: { 'content-type': 'application/json', ...extra },
        payload: JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: finishReason }],
          usage,
        }),
      }
    }

    const chunk = (choices, more) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...more })}\n\n`
    const events = splitPieces(content, 4).map((piece, i) =>
      chunk([{ index: 0, delta: i === 0 ? { role: 'assistant', content: piece } : { content: piece }, finish_reason: null }]),
    )
    events.push(chunk([{ index: 0, delta: {}, finish_reason: finishReason }]))
    if (body.stream_options?.include_usage) events.push(chunk([], { usage }))
    events.push('data: [DONE]\n\n')
    return {
      status,
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...extra },
      payload: events,
    }
  }

  /** An Anthropic message: a forced tool call answers with a `tool_use` block when the content is a JSON object. */
  function renderAnthropic(reply, rec, { content, finishReason, usage, status, extra }) {
    const body = rec.body ?? {}
    const forced = body.tool_choice?.type === 'tool' ? body.tool_choice.name : undefined
    let input
    if (forced !== undefined && reply.fault !== 'empty') {
      let value = reply.json
      if (value === undefined) {
        try {
          value = JSON.parse(content)
        } catch {
          value = undefined
        }
      }
      if (value && typeof value === 'object' && !Array.isArray(value)) input = value
    }
    const blocks =
      input !== undefined
        ? [{ type: 'tool_use', id: `toolu_judge${rec.index}`, name: forced, input }]
        : content === ''
          ? []
          : [{ type: 'text', text: content }]
    const payload = {
      id: `msg_judge${rec.index}`,
      type: 'message',
      role: 'assistant',
      model: typeof body.model === 'string' ? body.model : 'oxeval-fake-judge',
      content: blocks,
      stop_reason: anthropicStopReason(finishReason, input !== undefined),
      stop_sequence: null,
      usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens },
    }
    return { status, headers: { 'content-type': 'application/json', ...extra }, payload: JSON.stringify(payload) }
  }

  /** A Gemini `generateContent` response; a blocked finish reason carries no content. */
  function renderGoogle(reply, rec, { content, finishReason, usage, status, extra }) {
    const reason = googleFinishReason(finishReason)
    const blocked = ['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII'].includes(reason)
    const candidate = { index: 0, finishReason: reason }
    if (!blocked) candidate.content = { role: 'model', parts: content === '' ? [] : [{ text: content }] }
    const payload = {
      candidates: [candidate],
      usageMetadata: {
        promptTokenCount: usage.prompt_tokens,
        candidatesTokenCount: usage.completion_tokens,
        totalTokenCount: usage.total_tokens,
      },
      modelVersion: rec.path.split('/').pop()?.replace(/:generateContent$/, '') ?? 'oxeval-fake-judge',
    }
    return { status, headers: { 'content-type': 'application/json', ...extra }, payload: JSON.stringify(payload) }
  }

  // ---- request handling ----------------------------------------------------

  const gone = (res) => closed || res.destroyed || res.writableEnded

  function readBody(req) {
    return new Promise((resolve, reject) => {
      const chunks = []
      req.on('data', (c) => chunks.push(c))
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
      req.on('error', reject)
      req.on('aborted', () => reject(new Error('aborted')))
    })
  }

  function record(req, raw) {
    let parsed = null
    if (raw.trim() !== '') {
      try {
        parsed = JSON.parse(raw)
      } catch {
        parsed = null
      }
    }
    const body = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : null
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const api = apiOf(url.pathname)
    let system
    let user
    let text
    if (api === 'google') {
      const contents = Array.isArray(body?.contents) ? body.contents : []
      system = partsToString(body?.systemInstruction?.parts)
      user = contents
        .filter((c) => (c?.role ?? 'user') === 'user')
        .map((c) => partsToString(c?.parts))
        .join('\n')
      text = [system, ...contents.map((c) => partsToString(c?.parts))].filter((t) => t !== '').join('\n')
    } else {
      const messages = Array.isArray(body?.messages) ? body.messages : []
      const join = (pred) =>
        messages
          .filter((m) => pred(m?.role))
          .map((m) => contentToString(m?.content))
          .join('\n')
      if (api === 'anthropic') {
        system = anthropicSystem(body?.system)
        text = [system, join(() => true)].filter((t) => t !== '').join('\n')
      } else {
        system = join((r) => r === 'system' || r === 'developer')
        text = join(() => true)
      }
      user = join((r) => r === 'user')
    }
    const marker = /Output schema name:\s*([A-Za-z0-9_.-]+)/.exec(system)?.[1]
    const rec = {
      index: nextIndex++,
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      api,
      headers: { ...req.headers },
      body,
      raw,
      text,
      system,
      user,
      schemaName: nativeSchemaName(body) ?? marker ?? null,
      receivedAt: Date.now(),
      stream: body?.stream === true && (api === 'openai' || api === 'azure'),
      fault: null,
      status: null,
    }
    requests.push(rec)
    // a long-running judge (benchmarks, soaks) keeps only the latest records
    if (requests.length > maxRecorded) requests.splice(0, requests.length - maxRecorded)
    notifyWaiters()
    return rec
  }

  /** Writes a rendered response, honouring faults. */
  function send(res, rec, reply) {
    if (gone(res)) return
    const fault = SCRIPTED_FAULTS.has(reply.fault) ? reply.fault : null
    if (fault) rec.fault = rec.fault ?? fault

    if (fault === 'reset') {
      res.socket?.destroy()
      return
    }
    if (fault === 'hang') {
      // Never answer. A bounded hang (random mode / reply.hangMs) resets afterwards.
      if (reply.hangMs != null) {
        const cancel = later(reply.hangMs, () => res.socket?.destroy())
        res.once('close', cancel)
      }
      return
    }

    const out = render(reply, rec)
    const payload = Array.isArray(out.payload) ? out.payload.join('') : out.payload
    const bytes = Buffer.from(payload, 'utf8')
    rec.status = out.status

    if (fault === 'truncate') {
      // Promise the full length, deliver half, then cut the connection.
      res.writeHead(out.status, { ...out.headers, 'content-length': String(bytes.length) })
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.destroy())
      return
    }

    if (Array.isArray(out.payload)) {
      // SSE: one write per event, chunked transfer encoding.
      res.writeHead(out.status, out.headers)
      for (const event of out.payload) res.write(event)
      res.end()
      return
    }
    res.writeHead(out.status, { ...out.headers, 'content-length': String(bytes.length) })
    res.end(bytes)
  }

  async function handle(req, res) {
    inFlight += 1
    maxInFlight = Math.max(maxInFlight, inFlight)
    let counted = true
    res.once('close', () => {
      if (counted) inFlight -= 1
      counted = false
    })
    res.on('error', () => {})

    let raw
    try {
      raw = await readBody(req)
    } catch {
      return // client went away mid-body
    }
    const rec = record(req, raw)

    if (req.method !== 'POST' || rec.api === null) {
      return send(res, rec, { status: 404, content: `judge-server: no route for ${rec.method} ${rec.path}` })
    }
    if (rec.body === null) {
      return send(res, rec, { status: 400, content: 'judge-server: request body is not a JSON object' })
    }
    if (rec.api === 'google') {
      if (!Array.isArray(rec.body.contents)) {
        return send(res, rec, { status: 400, content: 'judge-server: request body has no "contents" array' })
      }
    } else if (!Array.isArray(rec.body.messages)) {
      return send(res, rec, { status: 400, content: 'judge-server: request body has no "messages" array' })
    }
    if (rec.api === 'anthropic' && typeof rec.body.max_tokens !== 'number') {
      return send(res, rec, { status: 400, content: 'judge-server: max_tokens: Field required' })
    }
    if (rec.api === 'azure' && !rec.query['api-version']) {
      return send(res, rec, { status: 400, content: 'judge-server: Missing required query parameter: api-version' })
    }

    const randomFault = drawFault()
    rec.fault = randomFault
    let reply = await resolveReply(selectReply(rec), rec)
    if (randomFault) reply = applyRandomFault(reply, randomFault)

    const wait = latencyMs + Math.max(0, Number(reply.delayMs ?? 0) || 0)
    if (wait > 0) await sleep(wait)
    send(res, rec, reply)
  }

  // ---- server --------------------------------------------------------------

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      // Last-resort guard: never let a handler bug crash the test process.
      try {
        if (!gone(res)) {
          res.writeHead(500, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ error: { message: `judge-server internal error: ${err?.message ?? err}`, type: 'server_error', code: 'server_error' } }))
        }
      } catch {
        res.socket?.destroy()
      }
    })
  })
  httpServer.on('connection', (socket) => {
    socket.setNoDelay(true)
    socket.on('error', () => {})
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  httpServer.on('clientError', (_err, socket) => socket.destroy())

  await new Promise((resolve, reject) => {
    httpServer.once('error', reject)
    httpServer.listen(0, '127.0.0.1', () => {
      httpServer.off('error', reject)
      resolve()
    })
  })
  httpServer.on('error', () => {})
  const port = /** @type {import('node:net').AddressInfo} */ (httpServer.address()).port

  const server = {
    url: `http://127.0.0.1:${port}/v1`,
    origin: `http://127.0.0.1:${port}`,
    port,
    httpServer,
    requests,
    get inFlight() {
      return inFlight
    },
    get maxInFlight() {
      return maxInFlight
    },
    get queued() {
      return queue.length
    },

    on(matcher, reply, ruleOptions = {}) {
      const ok = typeof matcher === 'string' || matcher instanceof RegExp || typeof matcher === 'function'
      if (!ok) throw new TypeError('judge-server: matcher must be a string, RegExp or predicate function')
      const times = ruleOptions.times ?? Infinity
      if (!(times > 0)) throw new RangeError('judge-server: times must be a positive number')
      rules.push({ matcher, reply, remaining: times })
      return server
    },

    enqueue(...replies) {
      queue.push(...replies)
      return server
    },

    waitForRequests(n, timeoutMs = 5000) {
      if (requests.length >= n) return Promise.resolve(requests.slice())
      if (closed) return Promise.reject(new Error('judge-server: closed'))
      return new Promise((resolve, reject) => {
        const w = { n, resolve, reject, timer: null }
        w.timer = setTimeout(() => {
          waiters = waiters.filter((x) => x !== w)
          reject(new Error(`judge-server: timed out after ${timeoutMs}ms waiting for ${n} requests (got ${requests.length})`))
        }, timeoutMs)
        waiters.push(w)
      })
    },

    reset() {
      rules = []
      queue = []
      requests.length = 0
      nextIndex = 0
      maxInFlight = inFlight
      rand = mulberry32(faultSeed)
    },

    close() {
      if (closePromise) return closePromise
      closed = true
      for (const [t, wake] of timers) {
        clearTimeout(t)
        wake()
      }
      timers.clear()
      for (const w of waiters) {
        clearTimeout(w.timer)
        w.reject(new Error('judge-server: closed'))
      }
      waiters = []
      closePromise = new Promise((resolve) => httpServer.close(() => resolve()))
      for (const socket of sockets) socket.destroy()
      httpServer.closeAllConnections?.()
      return closePromise
    },
  }
  return server
}

// ===========================================================================
// heuristicJudge: deterministic "LLM" for oxeval's scorer prompts.
// ===========================================================================

const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it ' +
    'its me my no not of on or our she so such than that the their them then there these they this those to too up us ' +
    'was we were what when where which while who why will with would you your yes also just very some any all about'
  ).split(' '),
)

const KNOWN_SCHEMAS = new Set([
  'noise_sensitivity_analysis',
  'faithfulness_claims',
  'faithfulness_verdicts',
  'hallucination_claims',
  'hallucination_verdicts',
  'context_precision_verdicts',
  'context_recall_claims',
  'context_recall_verdicts',
  'context_relevance_llm_analysis',
  'answer_similarity_units',
  'answer_similarity_analysis',
  'summarization_source_judgement',
  'summarization_coverage',
  'answer_relevancy_statements',
  'answer_relevancy_verdicts',
  'factual_correctness_claims',
  'factual_correctness_verdicts',
  'nv_rating_0_2_4',
  'nv_rating_0_1_2',
])

/** Lowercase content words (not stopwords) of at least `minLen` characters. */
function contentWords(text, minLen = 3) {
  const words = String(text ?? '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
  return new Set(words.filter((w) => w.length >= minLen && !STOPWORDS.has(w)))
}

/** Share of `a`'s content words found in `b` (1 when `a` has none). */
function overlap(a, b) {
  const aw = [...contentWords(a, 3)]
  if (!aw.length) return 1
  const bw = b instanceof Set ? b : contentWords(b, 3)
  return aw.filter((w) => bw.has(w)).length / aw.length
}

const joined = (v) => (Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('\n') : String(v ?? ''))

function splitSentences(text) {
  return String(text ?? '')
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean)
}

/** First present field among `keys`; arrays of strings are joined with newlines. */
function pick(data, ...keys) {
  for (const k of keys) {
    const v = data[k]
    if (typeof v === 'string') return v
    if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('\n')
  }
  return undefined
}

/** Parses the last `DATA: {...}` line (user messages first, then the whole prompt). */
function findData(req) {
  for (const source of [req.user, req.text]) {
    const lines = String(source ?? '').split(/\r?\n/)
    for (let i = lines.length - 1; i >= 0; i--) {
      const m = /^\s*DATA:\s*(.*)$/.exec(lines[i])
      if (!m) continue
      try {
        const data = JSON.parse(m[1])
        if (data && typeof data === 'object' && !Array.isArray(data)) return data
      } catch {
        // keep looking
      }
    }
  }
  return null
}

const fail = (message) => ({ status: 500, content: `heuristicJudge: ${message}` })

/**
 * Produces a plausible judge answer for oxeval's prompts without an LLM.
 * @param {import('./judge-server').RecordedRequest} req
 * @returns {import('./judge-server').ReplyObject}
 */
export function heuristicJudge(req) {
  const format = req.body?.response_format
  const nativeName = nativeSchemaName(req.body)
  const marker = /Output schema name:\s*([A-Za-z0-9_.-]+)/.exec(req.text ?? '')?.[1]
  const schema = KNOWN_SCHEMAS.has(nativeName) ? nativeName : (marker ?? nativeName)

  const data = findData(req)
  if (!data) return fail(`no parseable "DATA: {...}" line in the prompt (schema: ${schema ?? 'none'})`)

  switch (schema) {
    case 'answer_relevancy_statements': {
      const text = pick(data, 'output', 'text', 'response')
      if (text === undefined) return fail('answer_relevancy_statements needs DATA.output')
      return { json: { statements: splitSentences(text) } }
    }
    case 'answer_relevancy_verdicts': {
      const input = contentWords(pick(data, 'input', 'question', 'query') ?? '', 3)
      if (!Array.isArray(data.statements)) return fail('answer_relevancy_verdicts needs DATA.statements (array)')
      const results = data.statements.map((statement) => {
        const shared = [...contentWords(statement, 3)].filter((w) => input.has(w))
        const strong = shared.find((w) => w.length >= 4)
        if (strong) return { result: 'yes', reason: `The statement mentions "${strong}", which the input asks about.` }
        if (shared.length) return { result: 'unsure', reason: `The statement only shares the short word "${shared[0]}" with the input.` }
        return { result: 'no', reason: 'The statement shares no content words with the input.' }
      })
      return { json: { results } }
    }
    case 'factual_correctness_claims': {
      const text = pick(data, 'text', 'output', 'response')
      if (text === undefined) return fail('factual_correctness_claims needs DATA.text')
      return { json: { claims: splitSentences(text) } }
    }
    case 'factual_correctness_verdicts': {
      const premise = contentWords(pick(data, 'premise', 'context', 'reference') ?? '', 3)
      if (!Array.isArray(data.statements)) return fail('factual_correctness_verdicts needs DATA.statements (array)')
      const statements = data.statements.map((statement) => {
        const words = [...contentWords(statement, 3)]
        const found = words.filter((w) => premise.has(w)).length
        const verdict = words.length > 0 && found / words.length > 0.5 ? 1 : 0
        const reason = `${found} of ${words.length} content words of the statement appear in the premise.`
        return { statement: String(statement), reason, verdict }
      })
      return { json: { statements } }
    }
    case 'faithfulness_claims':
    case 'hallucination_claims':
      return { json: { claims: splitSentences(pick(data, 'output', 'text') ?? '') } }
    case 'context_recall_claims':
      return { json: { claims: splitSentences(pick(data, 'ground_truth', 'groundTruth', 'reference') ?? '') } }
    case 'faithfulness_verdicts':
    case 'context_recall_verdicts': {
      // supported when most of the claim's content words are in the context
      const ctx = contentWords(joined(data.context), 3)
      const claims = Array.isArray(data.claims) ? data.claims : []
      const faith = schema === 'faithfulness_verdicts'
      const verdicts = claims.map((c) => {
        const o = overlap(c, ctx)
        const verdict = o > 0.5 ? 'yes' : faith && o > 0.2 ? 'unsure' : 'no'
        return { verdict, reason: `${Math.round(o * 100)}% of the claim's content words appear in the context.` }
      })
      return { json: { verdicts } }
    }
    case 'hallucination_verdicts': {
      const ctx = contentWords(joined(data.context), 3)
      const claims = Array.isArray(data.claims) ? data.claims : []
      const verdicts = claims.map((c) => {
        const o = overlap(c, ctx)
        return { statement: String(c), verdict: o > 0.5 ? 'no' : 'yes', reason: `${Math.round(o * 100)}% of the claim's content words appear in the context.` }
      })
      return { json: { verdicts } }
    }
    case 'context_precision_verdicts': {
      const out = contentWords(`${pick(data, 'output') ?? ''} ${pick(data, 'input') ?? ''}`, 3)
      const pieces = Array.isArray(data.context) ? data.context : []
      const verdicts = pieces.map((p, i) => {
        const o = overlap(p, out)
        return { context_index: i, verdict: o >= 0.3 ? 'yes' : 'no', reason: `${Math.round(o * 100)}% of the piece's content words appear in the question or answer.` }
      })
      return { json: { verdicts } }
    }
    case 'context_relevance_llm_analysis': {
      const q = contentWords(pick(data, 'query', 'input') ?? '', 3)
      const r = contentWords(pick(data, 'response', 'output') ?? '', 3)
      const pieces = Array.isArray(data.context) ? data.context : []
      const evaluations = pieces.map((p, i) => {
        const o = overlap(p, q)
        const relevanceLevel = o >= 0.5 ? 'high' : o >= 0.25 ? 'medium' : o > 0 ? 'low' : 'none'
        return { context_index: i, contextPiece: String(p), relevanceLevel, wasUsed: overlap(p, r) >= 0.3, reasoning: `${Math.round(o * 100)}% of the piece's content words appear in the query.` }
      })
      return { json: { evaluations, missingContext: [], overallAssessment: `${evaluations.filter((e) => e.relevanceLevel === 'high').length} of ${evaluations.length} pieces are highly relevant (word-overlap heuristic).` } }
    }
    case 'answer_similarity_units':
      return { json: { outputUnits: splitSentences(pick(data, 'output') ?? ''), groundTruthUnits: splitSentences(pick(data, 'groundTruth', 'ground_truth') ?? '') } }
    case 'answer_similarity_analysis': {
      const outs = Array.isArray(data.outputUnits) ? data.outputUnits.map(String) : []
      const gts = Array.isArray(data.groundTruthUnits) ? data.groundTruthUnits.map(String) : []
      const norm = (t) => [...contentWords(t, 1)].sort().join(' ')
      const used = new Set()
      const matches = gts.map((g) => {
        let best = null
        let bestO = 0
        for (const o of outs) {
          const v = overlap(g, o)
          if (v > bestO) {
            bestO = v
            best = o
          }
        }
        if (best !== null) used.add(best)
        const matchType = best !== null && norm(best) === norm(g) ? 'exact' : bestO >= 0.7 ? 'semantic' : bestO >= 0.3 ? 'partial' : 'missing'
        return { groundTruthUnit: g, outputUnit: matchType === 'missing' ? null : best, matchType, explanation: `${Math.round(bestO * 100)}% of the unit's content words are in the output.` }
      })
      return { json: { matches, extraInOutput: outs.filter((o) => !used.has(o)), contradictions: [] } }
    }
    case 'summarization_source_judgement': {
      const src = contentWords(pick(data, 'source') ?? '', 3)
      const alignment = splitSentences(pick(data, 'summary', 'output') ?? '').map((claim) => {
        const o = overlap(claim, src)
        return { claim, supported: o > 0.5, reason: `${Math.round(o * 100)}% of the claim's content words are in the source.` }
      })
      const max = Number(data.maxQuestions) || 10
      const questions = splitSentences(pick(data, 'source') ?? '')
        .slice(0, max)
        .map((sentence) => `Does the summary say that ${sentence.replace(/[.!?]+$/, '').replace(/^./, (c) => c.toLowerCase())}?`)
      return { json: { alignment, questions } }
    }
    case 'summarization_coverage': {
      const sum = contentWords(pick(data, 'summary', 'output') ?? '', 3)
      const qs = Array.isArray(data.questions) ? data.questions.map(String) : []
      const coverage = qs.map((question) => {
        const o = overlap(question.replace(/^Does the summary say that /, ''), sum)
        return { question, answered: o >= 0.5, reason: `${Math.round(o * 100)}% of the question's content words are in the summary.` }
      })
      return { json: { coverage } }
    }
    case 'noise_sensitivity_analysis': {
      // Mastra's five dimensions; the impact from how much of the baseline the noisy answer keeps
      const base = [...contentWords(pick(data, 'baselineResponse') ?? '', 3)]
      const noisy = contentWords(pick(data, 'noisyResponse', 'output') ?? '', 3)
      const kept = base.length ? base.filter((w) => noisy.has(w)).length / base.length : 1
      const impactLevel = kept >= 0.95 ? 'none' : kept >= 0.7 ? 'minimal' : kept >= 0.4 ? 'moderate' : 'significant'
      const dims = ['content_accuracy', 'completeness', 'relevance', 'consistency', 'hallucination_resistance']
      return {
        json: {
          dimensions: dims.map((dimension) => ({
            dimension,
            impactLevel,
            specificChanges: `${Math.round(kept * 100)}% of the baseline's content words are kept.`,
            noiseInfluence: 'Word-overlap heuristic of the scripted judge.',
          })),
          overallAssessment: `The noisy answer keeps ${Math.round(kept * 100)}% of the baseline's content words.`,
          majorIssues: [],
          robustnessScore: Math.round(kept * 100) / 100,
        },
      }
    }
    case 'nv_rating_0_2_4':
    case 'nv_rating_0_1_2': {
      // oxeval's DATA keys per judge: answer accuracy (candidate_answer/reference_answer,
      // proposed_answer/ground_truth), context relevance (question/context, question/passage),
      // response groundedness (response/context, reply/passages)
      const a = pick(data, 'candidate_answer', 'proposed_answer', 'response', 'reply', 'output', 'answer', 'user_input', 'input', 'question')
      const b = pick(data, 'reference_answer', 'ground_truth', 'reference', 'expected', 'context', 'passage', 'passages', 'contexts', 'retrieved_contexts', 'premise')
      if (a === undefined || b === undefined) return fail(`${schema} needs a response/input field and a reference/context field in DATA`)
      const aw = [...contentWords(a, 3)]
      const bw = contentWords(b, 3)
      const overlap = aw.length ? aw.filter((w) => bw.has(w)).length / aw.length : 0
      const scale = schema === 'nv_rating_0_2_4' ? [0, 2, 4] : [0, 1, 2]
      const rating = overlap >= 0.7 ? scale[2] : overlap >= 0.3 ? scale[1] : scale[0]
      return { json: { rating } }
    }
    case undefined: {
      if (format && format.type !== 'text') return fail('JSON output requested but no schema name (response_format.json_schema.name or "Output schema name:" marker)')
      // Plain-text reason prompt.
      const score =
        typeof data.score === 'number' || typeof data.score === 'string'
          ? data.score
          : Object.values(data).find((v) => typeof v === 'number')
      if (score === undefined) return { content: 'The score reflects how well the output addresses the input according to the heuristic judge.' }
      if (Array.isArray(data.verdicts) && data.verdicts.some((v) => v && 'result' in v)) {
        // answer relevancy reason: count the verdicts it was given
        const n = data.verdicts.length
        const count = (v) => data.verdicts.filter((x) => String(x?.result).trim().toLowerCase() === v).length
        return {
          content: `The score is ${score} because ${count('yes')} of ${n} statements address the input, ${count('unsure')} partly and ${count('no')} not at all (word-overlap heuristic).`,
        }
      }
      if (Array.isArray(data.verdicts)) {
        const n = data.verdicts.length
        const yes = data.verdicts.filter((x) => String(x?.verdict).trim().toLowerCase() === 'yes').length
        return { content: `The score is ${score} because ${yes} of ${n} verdicts are "yes" (word-overlap heuristic).` }
      }
      const high = Number(score) >= 0.5
      return {
        content: `The score is ${score} because the heuristic judge found the output ${high ? 'largely' : 'poorly'} supported by the given data.`,
      }
    }
    default: {
      // Any other scorer's step: a valid instance of the schema the request carries, shaped
      // by the DATA (one array item per item of the DATA's list, the texts' sentences).
      const requested = requestSchema(req)
      if (requested) return { json: schemaInstance(requested, data) }
      return fail(
        `unknown schema name ${JSON.stringify(schema)} and no JSON schema in the request; known: ${[...KNOWN_SCHEMAS].join(', ')} ` +
          '(via response_format.json_schema.name or an "Output schema name: <name>" prompt line)',
      )
    }
  }
}

/**
 * The JSON schema a request asks for: OpenAI/Azure `response_format.json_schema.schema`,
 * Anthropic's forced tool's `input_schema`, Gemini's `responseJsonSchema`, or the schema
 * written into the prompt (`… matches this JSON schema:` then the JSON). Undefined when none.
 * @param {import('./judge-server').RecordedRequest} req
 */
export function requestSchema(req) {
  const body = req.body
  if (body && typeof body === 'object') {
    const openai = body.response_format?.json_schema?.schema
    if (openai && typeof openai === 'object') return openai
    if (body.tool_choice?.type === 'tool' && Array.isArray(body.tools)) {
      const tool = body.tools.find((t) => t?.name === body.tool_choice.name)
      if (tool?.input_schema) return tool.input_schema
    }
    const g = body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema
    if (g && typeof g === 'object') return g
  }
  const m = /JSON schema:\s*\n(\{[^\n]*\})/.exec(req.text ?? '')
  if (m) {
    try {
      return JSON.parse(m[1])
    } catch {
      return undefined
    }
  }
  return undefined
}

const REASON_KEYS = /reason|explanation|assessment|rationale|analysis|justification/i

/**
 * A valid instance of `schema` (a JSON Schema as oxeval's steps send them: objects, arrays,
 * enums, `$ref`s to `$defs`, nullable unions), shaped by the prompt's DATA: an array of objects
 * gets one item per element of the DATA's first non-empty list (so verdict counts match the
 * statements or contexts they judge; an `…index` integer is the item's position), an array of strings gets the sentences of the DATA's
 * longest text, a list of problems (`missing…`, `extra…`, `contradictions`, `…issues`) is empty,
 * a string property named like a DATA list's singular (`statement` for
 * `statements`) copies that element, enums prefer "yes", numbers take their maximum.
 * @param {object} schema
 * @param {Record<string, unknown>} [data]
 */
export function schemaInstance(schema, data = {}) {
  const root = schema
  const lists = Object.entries(data ?? {}).filter(([, v]) => Array.isArray(v) && v.length > 0)
  const texts = Object.values(data ?? {}).filter((v) => typeof v === 'string')
  const longest = texts.sort((a, b) => b.length - a.length)[0] ?? ''
  const resolve = (s) => {
    let cur = s
    for (let i = 0; i < 32 && cur && typeof cur.$ref === 'string'; i++) {
      const path = cur.$ref.replace(/^#\//, '').split('/')
      cur = path.reduce((o, k) => (o == null ? undefined : o[k]), root)
    }
    return cur ?? {}
  }
  const gen = (raw, key, element, depth, idx = 0, parentList = undefined) => {
    const s = resolve(raw)
    if (depth > 24) return null
    if (Array.isArray(s.enum) && s.enum.length) {
      if (s.enum.includes('yes')) return 'yes'
      const nums = s.enum.filter((x) => typeof x === 'number')
      return nums.length ? Math.max(...nums) : s.enum[0]
    }
    if (s.const !== undefined) return s.const
    const union = s.anyOf ?? s.oneOf
    if (Array.isArray(union) && union.length) {
      const pickOne = union.map(resolve).find((u) => u.type !== 'null') ?? union[0]
      return gen(pickOne, key, element, depth + 1, idx, parentList)
    }
    let type = s.type
    if (Array.isArray(type)) type = type.find((t) => t !== 'null') ?? type[0]
    if (!type && s.properties) type = 'object'
    if (!type && s.items) type = 'array'
    switch (type) {
      case 'object': {
        const out = {}
        for (const [k, v] of Object.entries(s.properties ?? {})) out[k] = gen(v, k, element, depth + 1, idx, key)
        return out
      }
      case 'array': {
        // lists of problems (missing, extra, contradictions, issues) default to none
        if (key && /missing|extra|contradiction|issue|unsupported|error/i.test(key) && !(typeof s.minItems === 'number' && s.minItems > 0)) return []
        const item = resolve(s.items ?? {})
        const itemIsString = item.type === 'string' && !item.enum
        let n
        let elements = []
        let alignedName
        if (itemIsString) {
          elements = splitSentences(longest)
          if (elements.length === 0) elements = ['(test judge) no text in DATA']
          n = elements.length
        } else {
          // align with the DATA list the items judge: one about retrieved passages when the
          // item carries an index (context precision/relevance), else the claims/statements
          const indexed = Object.keys(item.properties ?? {}).some((k) => /index/i.test(k))
          const aligned = lists.find(([name]) => /context|passage/i.test(name) === indexed) ?? lists[0]
          elements = aligned ? aligned[1] : [undefined]
          alignedName = aligned ? aligned[0] : undefined
          n = elements.length
        }
        if (typeof s.minItems === 'number') n = Math.max(n, s.minItems)
        if (typeof s.maxItems === 'number') n = Math.min(n, s.maxItems)
        return Array.from({ length: n }, (_, i) => (itemIsString ? (elements[i] ?? elements[0]) : gen(s.items ?? {}, alignedName, elements[i] ?? elements[0], depth + 1, i)))
      }
      case 'string': {
        // the item's own text under the singular of its list's name (`statement` of `statements`)
        if (key && element !== undefined && parentList && (parentList === `${key}s` || parentList === key || parentList.replace(/s$/, '') === key)) {
          return typeof element === 'string' ? element : JSON.stringify(element)
        }
        if (key && REASON_KEYS.test(key)) return 'Default reply of the oxeval test judge.'
        if (key && /^(verdict|result|answer|label)$/i.test(key)) return 'yes'
        return 'test'
      }
      case 'integer':
        if (key && /index/i.test(key)) return idx
        return typeof s.maximum === 'number' ? Math.floor(s.maximum) : 1
      case 'number':
        if (key && /index/i.test(key)) return idx
        return typeof s.maximum === 'number' ? s.maximum : 1
      case 'boolean':
        return true
      case 'null':
        return null
      default:
        return null
    }
  }
  return gen(root, undefined, undefined, 0)
}
