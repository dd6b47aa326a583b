// The three providers' batch protocols on the judge server: OpenAI's (`POST …/files` with
// purpose `batch`, `POST …/batches`, `GET …/batches/{id}`, `POST …/batches/{id}/cancel`,
// `GET …/files/{id}/content`; Azure OpenAI the same under `/openai/…?api-version=`),
// Anthropic's Message Batches (`POST …/messages/batches`, `GET …/messages/batches/{id}`,
// `…/cancel`, `…/results`) and Gemini's batch mode (`POST …/models/{m}:batchGenerateContent`
// with inline requests, `GET …/batches/{id}`, `POST …/batches/{id}:cancel`).
//
// A batch line is answered by the server's own reply logic (rules → queue → handler), as a
// direct request of its wire format would be, when the batch completes; each line is
// recorded in `server.requests` with `batch` (the batch id) and `customId`. A reply may say
// how its LINE fails: `status >= 400` (an errored line with that status), `batchLine:
// 'expired' | 'canceled'`. A batch follows its provider's statuses over `delayMs` (from
// creation to the end); `server.scriptBatch(spec)` scripts the next created batch:
// `{ createStatus, createMessage }` (the create is refused), `{ final: 'failed' | 'expired'
// | 'cancelled', message, answered }`, `{ neverEnds: true }`, `{ delayMs }`, `{ createFault:
// 'reset' | 'hold' }` (the batch IS created, then the connection is cut before the answer, or
// the answer is held until the client goes: a create whose answer is lost). The lists
// (`GET …/batches`, `GET …/messages/batches`, Gemini `GET /v1beta/batches`) show every
// batch of the protocol, newest first, paginated as the providers do. Results come
// in reverse submission order (any order must do) unless `order: 'input'`. With `prepare`,
// the lines are answered from the batch's creation on (it is ready the moment its delay ends).

const DAY = 24 * 3600

/**
 * @param {{ answerLine: (api: string, path: string, body: any, meta: object) => Promise<{ status: number, body: any, reply: any }>, delayMs: number, order: string, now: () => number }} o
 */
export function createBatches(o) {
  let seq = 0
  const files = new Map()
  /** id → batch */
  const batches = new Map()
  const scripts = []

  const json = (status, value) => ({ status, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(value) })
  const openaiError = (status, message) => json(status, { error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: null } })
  const anthropicError = (status, message) => json(status, { type: 'error', error: { type: status === 404 ? 'not_found_error' : status >= 500 ? 'api_error' : 'invalid_request_error', message } })
  const googleError = (status, message) => json(status, { error: { code: status, message, status: status === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT' } })

  /** The batch route of a request, or null. */
  function route(method, path) {
    let m
    if ((m = /\/messages\/batches(?:\/([^/]+))?(?:\/(cancel|results))?$/.exec(path))) return { api: 'anthropic', id: m[1], action: m[2] ?? (m[1] ? 'get' : method === 'GET' ? 'list' : 'create'), method }
    if (method === 'GET' && /\/batches$/.test(path)) return { api: /\/v1(?:beta|alpha)\/batches$/.test(path) ? 'google' : 'openai', action: 'list', method }
    if ((m = /\/models\/([^/:]+):batchGenerateContent$/.exec(path))) return { api: 'google', model: m[1], action: 'create', method }
    if ((m = /\/batches\/([^/:]+):cancel$/.exec(path))) return { api: 'google', id: `batches/${m[1]}`, action: 'cancel', method }
    if ((m = /\/files\/([^/]+)\/content$/.exec(path))) return { api: 'openai', id: m[1], action: 'content', method }
    if (/\/files$/.test(path)) return { api: 'openai', action: 'upload', method }
    if ((m = /\/batches(?:\/([^/]+))?(?:\/(cancel))?$/.exec(path))) {
      if (m[1] && batches.get(`batches/${m[1]}`)?.api === 'google') return { api: 'google', id: `batches/${m[1]}`, action: 'get', method }
      return { api: 'openai', id: m[1], action: m[2] ?? (m[1] ? 'get' : 'create'), method }
    }
    return null
  }

  /** Where a batch is in its life: 'running' | 'finalizing' | 'ended' (by its script and delay). */
  function phase(b) {
    if (b.cancelled) return 'ended'
    if (b.script.neverEnds) return 'running'
    const t = o.now() - b.created
    if (t >= b.delayMs) return 'ended'
    return t >= b.delayMs * 0.8 ? 'finalizing' : t >= b.delayMs * 0.2 || b.delayMs === 0 ? 'running' : 'validating'
  }

  /** Answer every line of an ended batch once (reply logic of the server). */
  async function finish(b) {
    if (b.results) return b.results
    if (!b.finishing) {
      b.finishing = (async () => {
        const out = []
        const final = b.cancelled ? 'cancelled' : b.script.final
        const answered = final === 'expired' || final === 'cancelled' ? (b.script.answered ?? 0) : Infinity
        for (let i = 0; i < b.lines.length; i++) {
          const line = b.lines[i]
          if (final === 'failed') break
          if (i >= answered) {
            out.push({ id: line.id, kind: final === 'cancelled' ? 'canceled' : 'expired' })
            continue
          }
          const a = await o.answerLine(b.lineApi, line.path, line.body, { batch: b.id, customId: line.id, query: line.query ?? {} })
          const kind = a.reply && typeof a.reply.batchLine === 'string' ? a.reply.batchLine : a.status >= 400 ? 'errored' : 'succeeded'
          out.push({ id: line.id, kind, status: a.status, body: a.body })
        }
        if (o.order !== 'input') out.reverse()
        b.results = out
        return out
      })()
    }
    return b.finishing
  }

  const counts = (b, done) => {
    const ok = done ? b.results.filter((r) => r.kind === 'succeeded').length : 0
    return { total: b.lines.length, ok, failed: done ? b.results.length - ok : 0 }
  }

  async function openaiBatchObject(b) {
    const p = phase(b)
    let status = { validating: 'validating', running: 'in_progress', finalizing: 'finalizing' }[p]
    if (p === 'ended') {
      await finish(b)
      const final = b.cancelled ? 'cancelled' : b.script.final
      status = final === 'failed' ? 'failed' : final === 'expired' ? 'expired' : final === 'cancelled' ? 'cancelled' : 'completed'
      if (status !== 'failed' && !b.outputFile) {
        const ok = b.results.filter((r) => r.kind === 'succeeded' || r.kind === 'errored')
        const bad = b.results.filter((r) => r.kind !== 'succeeded' && r.kind !== 'errored')
        const line = (r) =>
          r.kind === 'succeeded' || r.kind === 'errored'
            ? { id: `batch_req_${r.id}`, custom_id: r.id, response: { status_code: r.status, request_id: `req_${r.id}`, body: r.body }, error: null }
            : { id: `batch_req_${r.id}`, custom_id: r.id, response: null, error: { code: r.kind === 'expired' ? 'batch_expired' : 'batch_cancelled', message: `This request could not be executed before the batch ${r.kind}.` } }
        if (ok.length) b.outputFile = addFile(ok.map((r) => JSON.stringify(line(r))).join('\n') + '\n', 'batch_output')
        if (bad.length) b.errorFile = addFile(bad.map((r) => JSON.stringify(line(r))).join('\n') + '\n', 'batch_output')
      }
    } else if (b.cancelled) status = 'cancelling'
    const c = counts(b, p === 'ended')
    return {
      id: b.id,
      object: 'batch',
      endpoint: b.endpoint,
      errors: status === 'failed' ? { object: 'list', data: [{ code: 'invalid_request', message: b.script.message ?? 'the input file did not validate', line: 1 }] } : null,
      input_file_id: b.inputFile,
      completion_window: '24h',
      status,
      output_file_id: b.outputFile ?? null,
      error_file_id: b.errorFile ?? null,
      created_at: Math.floor(b.created / 1000),
      expires_at: Math.floor(b.created / 1000) + DAY,
      request_counts: { total: c.total, completed: c.ok, failed: c.failed },
      metadata: b.metadata ?? null,
    }
  }

  async function anthropicBatchObject(b, origin) {
    const p = phase(b)
    const ended = p === 'ended'
    if (ended) await finish(b)
    const n = (k) => (ended ? b.results.filter((r) => r.kind === k).length : 0)
    return {
      id: b.id,
      type: 'message_batch',
      processing_status: ended ? 'ended' : b.cancelled ? 'canceling' : 'in_progress',
      request_counts: { processing: ended ? 0 : b.lines.length, succeeded: n('succeeded'), errored: n('errored'), canceled: n('canceled'), expired: n('expired') },
      ended_at: ended ? new Date().toISOString() : null,
      created_at: new Date(b.created).toISOString(),
      expires_at: new Date(b.created + DAY * 1000).toISOString(),
      cancel_initiated_at: b.cancelled ? new Date().toISOString() : null,
      results_url: ended ? `${origin}${b.base}/messages/batches/${b.id}/results` : null,
    }
  }

  async function googleOperation(b) {
    const p = phase(b)
    const ended = p === 'ended'
    if (ended) await finish(b)
    const final = b.cancelled ? 'cancelled' : b.script.final
    const state = !ended ? (p === 'validating' ? 'BATCH_STATE_PENDING' : 'BATCH_STATE_RUNNING') : final === 'failed' ? 'BATCH_STATE_FAILED' : final === 'cancelled' ? 'BATCH_STATE_CANCELLED' : final === 'expired' ? 'BATCH_STATE_EXPIRED' : 'BATCH_STATE_SUCCEEDED'
    const op = {
      name: b.id,
      metadata: {
        '@type': 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch',
        model: `models/${b.model}`,
        displayName: b.displayName,
        createTime: new Date(b.created).toISOString(),
        state,
        batchStats: { requestCount: String(b.lines.length), successfulRequestCount: String(ended ? b.results.filter((r) => r.kind === 'succeeded').length : 0), failedRequestCount: String(ended ? b.results.filter((r) => r.kind !== 'succeeded').length : 0) },
        name: b.id,
      },
      done: ended,
    }
    if (ended && final === 'failed') op.error = { code: 3, message: b.script.message ?? 'the batch failed' }
    else if (ended) {
      // inline answers come in request order; a line without an answer has neither field
      const byId = new Map(b.results.map((r) => [r.id, r]))
      op.response = {
        '@type': 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput',
        inlinedResponses: {
          inlinedResponses: b.lines.map((l) => {
            const r = byId.get(l.id)
            const metadata = { key: l.id }
            if (!r || (r.kind !== 'succeeded' && r.kind !== 'errored')) return { metadata, error: { code: 4, message: `the request did not run before the batch ${r?.kind ?? 'ended'}` } }
            if (r.kind === 'errored') return { metadata, error: { code: r.status === 429 ? 8 : r.status >= 500 ? 13 : 3, message: r.body?.error?.message ?? `HTTP ${r.status}` } }
            return { metadata, response: r.body }
          }),
        },
      }
    }
    return op
  }

  /** The batches of a protocol, newest first. */
  const listed = (api) => [...batches.values()].filter((b) => b.api === api).reverse().sort((a, b) => b.created - a.created)

  /** A page of `all` after the id `after`. */
  function pageOf(all, after, limit) {
    const from = after ? all.findIndex((b) => b.id === after) + 1 : 0
    const items = all.slice(from, from + Math.max(1, Math.min(100, limit)))
    return { items, more: from + items.length < all.length }
  }

  function addFile(text, purpose) {
    const id = `file-${++seq}`
    files.set(id, { bytes: Buffer.from(text, 'utf8'), purpose })
    return id
  }

  function newBatch(api, props) {
    const script = scripts.shift() ?? {}
    if (script.createStatus) return { refused: script }
    const b = { api, script, created: o.now(), delayMs: script.delayMs ?? o.delayMs, cancelled: false, ...props }
    batches.set(b.id, b)
    // `batchPrepare`: the lines are answered from creation on, so a batch is ready when its
    // delay ends (a batch-emulating judge of fixed latency: the benchmark's)
    if (o.prepare && !script.neverEnds) finish(b).catch(() => {})
    return { batch: b, fault: script.createFault }
  }

  /** Answers a batch API request: `{ status, headers, payload }`. */
  async function handle(r, rec, raw, headers, origin) {
    if (r.api === 'openai') {
      const azure = /\/openai\//.test(rec.path)
      if (azure && !rec.query['api-version']) return openaiError(400, 'Missing required query parameter: api-version')
      if (r.action === 'upload') {
        if (r.method !== 'POST') return openaiError(405, 'method not allowed')
        let form
        try {
          form = await new Response(Buffer.from(raw, 'utf8'), { headers: { 'content-type': headers['content-type'] ?? '' } }).formData()
        } catch {
          return openaiError(400, 'the upload is not multipart/form-data')
        }
        const file = form.get('file')
        if (form.get('purpose') !== 'batch' || !file || typeof file === 'string') return openaiError(400, "an upload needs purpose 'batch' and a file")
        const text = await file.text()
        const id = addFile(text, 'batch')
        return json(200, { id, object: 'file', bytes: Buffer.byteLength(text), created_at: Math.floor(o.now() / 1000), filename: file.name, purpose: 'batch' })
      }
      if (r.action === 'content') {
        const f = files.get(r.id)
        if (!f) return openaiError(404, `No such File object: ${r.id}`)
        return { status: 200, headers: { 'content-type': 'application/octet-stream' }, payload: f.bytes }
      }
      if (r.action === 'create') {
        const body = rec.body
        const f = body && files.get(body.input_file_id)
        if (!f) return openaiError(400, `the input file ${body?.input_file_id} does not exist`)
        const endpoint = azure ? '/chat/completions' : '/v1/chat/completions'
        if (body.endpoint !== endpoint || body.completion_window !== '24h') return openaiError(400, `endpoint must be ${endpoint} and completion_window 24h`)
        const lines = []
        for (const [i, text] of f.bytes.toString('utf8').split('\n').entries()) {
          if (text.trim() === '') continue
          let l
          try {
            l = JSON.parse(text)
          } catch {
            return openaiError(400, `line ${i + 1} of the input file is not JSON`)
          }
          if (typeof l.custom_id !== 'string' || l.method !== 'POST' || l.url !== endpoint || !l.body) return openaiError(400, `line ${i + 1} must be { custom_id, method: POST, url: ${endpoint}, body }`)
          lines.push({ id: l.custom_id, path: azure ? `/openai/deployments/${l.body.model}/chat/completions` : '/v1/chat/completions', body: l.body, query: azure ? { 'api-version': rec.query['api-version'] } : {} })
        }
        if (new Set(lines.map((l) => l.id)).size !== lines.length) return openaiError(400, 'custom_id values must be unique within a batch')
        const made = newBatch('openai', { id: `batch_${++seq}`, lineApi: azure ? 'azure' : 'openai', endpoint, inputFile: body.input_file_id, metadata: body.metadata, lines })
        if (made.refused) return openaiError(made.refused.createStatus, made.refused.createMessage ?? 'batch refused')
        return { ...json(200, await openaiBatchObject(made.batch)), fault: made.fault }
      }
      if (r.action === 'list') {
        const all = listed('openai').filter((b) => (b.lineApi === 'azure') === azure)
        const page = pageOf(all, rec.query.after, Number(rec.query.limit) || 20)
        const data = await Promise.all(page.items.map((b) => openaiBatchObject(b)))
        return json(200, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null, has_more: page.more })
      }
      const b = batches.get(r.id)
      if (!b || b.api !== 'openai') return openaiError(404, `No batch found with id '${r.id}'.`)
      if (r.action === 'cancel') b.cancelled = true
      return json(200, await openaiBatchObject(b))
    }
    if (r.api === 'anthropic') {
      const base = rec.path.replace(/\/messages\/batches.*$/, '')
      if (r.action === 'create') {
        const reqs = rec.body?.requests
        if (!Array.isArray(reqs) || reqs.length === 0) return anthropicError(400, 'requests: field required')
        for (const x of reqs) {
          if (typeof x?.custom_id !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(x.custom_id) || !x.params) return anthropicError(400, 'each request needs a custom_id matching ^[a-zA-Z0-9_-]{1,64}$ and params')
          if (typeof x.params.max_tokens !== 'number') return anthropicError(400, 'params.max_tokens: Field required')
        }
        const made = newBatch('anthropic', { id: `msgbatch_${++seq}`, lineApi: 'anthropic', base, lines: reqs.map((x) => ({ id: x.custom_id, path: `${base}/messages`, body: x.params })) })
        if (made.refused) return anthropicError(made.refused.createStatus, made.refused.createMessage ?? 'batch refused')
        return { ...json(200, await anthropicBatchObject(made.batch, origin)), fault: made.fault }
      }
      if (r.action === 'list') {
        const page = pageOf(listed('anthropic'), rec.query.after_id, Number(rec.query.limit) || 20)
        const data = await Promise.all(page.items.map((b) => anthropicBatchObject(b, origin)))
        return json(200, { data, has_more: page.more, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null })
      }
      const b = batches.get(r.id)
      if (!b || b.api !== 'anthropic') return anthropicError(404, `batch ${r.id} not found`)
      if (r.action === 'cancel') b.cancelled = true
      if (r.action === 'results') {
        if (phase(b) !== 'ended') return anthropicError(400, 'the batch has not ended')
        const results = await finish(b)
        const line = (x) => {
          if (x.kind === 'succeeded') return { custom_id: x.id, result: { type: 'succeeded', message: x.body } }
          if (x.kind === 'errored') return { custom_id: x.id, result: { type: 'errored', error: x.body } }
          return { custom_id: x.id, result: { type: x.kind === 'canceled' ? 'canceled' : 'expired' } }
        }
        return { status: 200, headers: { 'content-type': 'application/binary' }, payload: results.map((x) => JSON.stringify(line(x))).join('\n') + '\n' }
      }
      return json(200, await anthropicBatchObject(b, origin))
    }
    // google
    if (r.action === 'create') {
      const batch = rec.body?.batch
      const list = batch?.inputConfig?.requests?.requests ?? batch?.input_config?.requests?.requests
      if (!Array.isArray(list) || list.length === 0) return googleError(400, 'batch.inputConfig.requests.requests is required')
      const base = rec.path.replace(/\/models\/[^/]+$/, '')
      const id = `batches/b${++seq}`
      const made = newBatch('google', {
        id,
        lineApi: 'google',
        model: r.model,
        displayName: batch.displayName ?? batch.display_name,
        lines: list.map((x, i) => ({ id: x?.metadata?.key ?? String(i), path: `${base}/models/${r.model}:generateContent`, body: x?.request })),
      })
      if (made.refused) return googleError(made.refused.createStatus, made.refused.createMessage ?? 'batch refused')
      return { ...json(200, await googleOperation(made.batch)), fault: made.fault }
    }
    if (r.action === 'list') {
      const all = listed('google')
      const start = Number(rec.query.pageToken ?? 0) || 0
      const size = Number(rec.query.pageSize) || 20
      const items = all.slice(start, start + size)
      const operations = await Promise.all(items.map((b) => googleOperation(b)))
      return json(200, { operations, ...(start + size < all.length ? { nextPageToken: String(start + size) } : {}) })
    }
    const b = batches.get(r.id)
    if (!b || b.api !== 'google') return googleError(404, `${r.id} not found`)
    if (r.action === 'cancel') {
      b.cancelled = true
      return json(200, {})
    }
    return json(200, await googleOperation(b))
  }

  return {
    route,
    handle,
    batches,
    script(spec) {
      scripts.push({ ...spec })
    },
    reset() {
      batches.clear()
      files.clear()
      scripts.length = 0
    },
  }
}
