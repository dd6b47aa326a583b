// The judge server itself: HTTP on 127.0.0.1, request recording, reply selection (rules →
// FIFO queue → handler → 500), scripted and random faults, latency, close. What a request
// means and how a reply is written is the wire formats' job (../wire/), what a judge answers
// by default is the replies' (../replies/).
import http from 'node:http'
import { nativeSchemaName, wireNamed, wireOf } from '../wire/index.mjs'
import { createBatches } from './batches.mjs'
import { embeddingsApi, embeddingTexts, invalidEmbeddings, renderEmbeddings } from './embeddings.mjs'
import { randomFaults, SCRIPTED_FAULTS } from './faults.mjs'
import { normalizeReply, render } from './render.mjs'

/**
 * Starts the fake judge on 127.0.0.1 with an ephemeral port.
 * @param {import('../judge-server').JudgeServerOptions} [options]
 * @returns {Promise<import('../judge-server').JudgeServer>}
 */
export async function startJudgeServer(options = {}) {
  const latencyMs = Math.max(0, Number(options.latencyMs ?? 0) || 0)
  const hangMs = Math.max(0, Number(options.hangMs ?? 30000))
  const maxRecorded = Math.max(1, Number(options.maxRecorded ?? Infinity) || Infinity)
  const faults = randomFaults(options.faults, hangMs)

  // ---- mutable state -------------------------------------------------------
  /** @type {{ matcher: any, reply: any, remaining: number }[]} */
  let rules = []
  let queue = []
  /** Embeddings: rules (`onEmbeddings`), vectors by text (`scriptEmbedding`), default dimension. */
  let embedRules = []
  const scripted = new Map()
  const dims = Math.max(1, Math.floor(Number(options.embeddingDimensions ?? 16)) || 16)
  const requests = []
  let nextIndex = 0
  let inFlight = 0
  let maxInFlight = 0
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

  /** A batch line answered by the reply logic of a direct request of its wire format. */
  async function answerLine(api, path, body, meta) {
    const wire = wireNamed(api)
    const { system, user, text } = wire.read(body)
    const marker = /Output schema name:\s*([A-Za-z0-9_.-]+)/.exec(system)?.[1]
    const rec = {
      index: nextIndex++,
      method: 'POST',
      path,
      query: meta.query ?? {},
      api,
      headers: {},
      body,
      raw: JSON.stringify(body),
      text,
      system,
      user,
      schemaName: nativeSchemaName(body) ?? marker ?? null,
      receivedAt: Date.now(),
      stream: false,
      fault: null,
      status: null,
      batch: meta.batch,
      customId: meta.customId,
    }
    requests.push(rec)
    if (requests.length > maxRecorded) requests.splice(0, requests.length - maxRecorded)
    notifyWaiters()
    const invalid = body && typeof body === 'object' ? wire.invalid(rec) : 'judge-server: the batch line has no request body'
    const reply = invalid !== undefined ? { status: 400, content: invalid } : await resolveReply(selectReply(rec), rec)
    const out = render(reply, rec)
    rec.status = out.status
    const payload = Array.isArray(out.payload) ? out.payload.join('') : out.payload
    let parsed
    try {
      parsed = JSON.parse(payload)
    } catch {
      parsed = { error: { message: `judge-server: the reply is not JSON: ${String(payload).slice(0, 200)}` } }
    }
    return { status: out.status, body: parsed, reply }
  }
  const batchApi = createBatches({
    answerLine,
    delayMs: Math.max(0, Number(options.batchDelayMs ?? 0) || 0),
    order: options.batchOrder ?? 'reverse',
    prepare: options.batchPrepare === true,
    now: () => Date.now(),
  })

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
    const embedApi = embeddingsApi(url.pathname)
    const wire = embedApi ? undefined : wireOf(url.pathname)
    const api = embedApi ?? wire?.name ?? null
    const texts = embedApi ? embeddingTexts(embedApi, body) : undefined
    const { system, user, text } = texts ? { system: '', user: texts.join('\n'), text: texts.join('\n') } : (wire ?? wireNamed('openai')).read(body)
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
      stream: wire !== undefined && wire.stream(body),
      fault: null,
      status: null,
    }
    if (texts) rec.texts = texts
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

    const out = rec.texts ? renderEmbeddings(reply, rec, { scripted, dims }) : render(reply, rec)
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

    const batchRoute = batchApi.route(rec.method, rec.path)
    if (batchRoute) {
      rec.api = `${batchRoute.api}-batch`
      const out = await batchApi.handle(batchRoute, rec, raw, req.headers, `http://127.0.0.1:${port}`)
      if (latencyMs > 0) await sleep(latencyMs)
      rec.status = out.status
      if (gone(res)) return
      // a create accepted, its answer lost: cut, or held until the client goes
      if (out.fault) rec.fault = out.fault
      if (out.fault === 'reset') return void res.socket?.destroy()
      if (out.fault === 'hold') return
      const bytes = Buffer.isBuffer(out.payload) ? out.payload : Buffer.from(out.payload, 'utf8')
      res.writeHead(out.status, { ...out.headers, 'content-length': String(bytes.length) })
      res.end(bytes)
      return
    }

    if (rec.texts && req.method === 'POST') return handleEmbeddings(res, rec)
    if (req.method !== 'POST' || rec.api === null) {
      return send(res, rec, { status: 404, content: `judge-server: no route for ${rec.method} ${rec.path}` })
    }
    if (rec.body === null) {
      return send(res, rec, { status: 400, content: 'judge-server: request body is not a JSON object' })
    }
    const invalid = wireNamed(rec.api).invalid(rec)
    if (invalid !== undefined) return send(res, rec, { status: 400, content: invalid })

    const randomFault = faults.draw()
    rec.fault = randomFault
    let reply = await resolveReply(selectReply(rec), rec)
    if (randomFault) reply = faults.apply(reply, randomFault)

    const wait = latencyMs + Math.max(0, Number(reply.delayMs ?? 0) || 0)
    if (wait > 0) await sleep(wait)
    send(res, rec, reply)
  }

  /** An embeddings request: checked, the first matching `onEmbeddings` rule or the vectors, faults. */
  async function handleEmbeddings(res, rec) {
    if (rec.body === null) return send(res, rec, { status: 400, content: 'judge-server: request body is not a JSON object' })
    const invalid = invalidEmbeddings(rec)
    if (invalid !== undefined) return send(res, rec, { status: 400, content: invalid })
    const randomFault = faults.draw()
    rec.fault = randomFault
    let chosen = {}
    for (let i = 0; i < embedRules.length; i++) {
      const rule = embedRules[i]
      if (!ruleMatches(rule, rec)) continue
      rule.remaining -= 1
      if (rule.remaining <= 0) embedRules.splice(i, 1)
      chosen = rule.reply
      break
    }
    let reply = await resolveReply(chosen, rec)
    if (randomFault) reply = faults.apply(reply, randomFault)
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

    /** Answers embeddings requests matching `matcher` (on the texts joined by newlines, or a predicate of the record) with `reply`. */
    onEmbeddings(matcher, reply, ruleOptions = {}) {
      const ok = typeof matcher === 'string' || matcher instanceof RegExp || typeof matcher === 'function'
      if (!ok) throw new TypeError('judge-server: matcher must be a string, RegExp or predicate function')
      const times = ruleOptions.times ?? Infinity
      if (!(times > 0)) throw new RangeError('judge-server: times must be a positive number')
      embedRules.push({ matcher, reply, remaining: times })
      return server
    },

    /** The vector every embeddings request answers for `text` (instead of the default). */
    scriptEmbedding(text, vector) {
      if (typeof text !== 'string') throw new TypeError('judge-server: scriptEmbedding(text, vector): text must be a string')
      if (!Array.isArray(vector)) throw new TypeError('judge-server: scriptEmbedding(text, vector): vector must be an array of numbers')
      scripted.set(text, vector.slice())
      return server
    },

    /** The recorded embeddings requests (each with `texts`). */
    get embeddingRequests() {
      return requests.filter((r) => r.texts !== undefined)
    },

    /** The batches created (id → state), every protocol. */
    batches: batchApi.batches,

    /** Scripts the next created batch (see batches.mjs). */
    scriptBatch(spec) {
      batchApi.script(spec)
      return server
    },

    enqueue(...replies) {
      for (const r of replies) queue.push(r)
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
      embedRules = []
      scripted.clear()
      requests.length = 0
      nextIndex = 0
      maxInFlight = inFlight
      faults.reset()
      batchApi.reset()
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
