// createTestJudge: an offline, scriptable judge for users' own tests. An OpenAI-compatible
// server on 127.0.0.1 that answers every oxeval scorer's steps with sensible defaults (the
// heuristic judge for the steps it knows, a schema-shaped reply for the others), scriptable
// per step (schema name) or by prompt content, with injectable faults.
import { heuristicJudge, requestSchema, startJudgeServer } from './judge-server.mjs'
import { nativeSchemaName } from './wire/index.mjs'

const FAULTS = {
  http500: () => ({ status: 500, content: 'oxeval test judge: injected 500' }),
  http429: () => ({ status: 429, content: 'oxeval test judge: injected 429', headers: { 'retry-after': '0' } }),
  http400: () => ({ status: 400, content: 'oxeval test judge: injected 400' }),
  hang: () => ({ fault: 'hang' }),
  reset: () => ({ fault: 'reset' }),
  truncate: () => ({ fault: 'truncate' }),
  empty: () => ({ fault: 'empty' }),
  malformed: () => ({ content: '{"this is": not JSON' }),
  // OpenAI's refusal shape: no content, a `refusal` text
  refusal: () => ({
    body: JSON.stringify({
      id: 'chatcmpl-test-refusal',
      object: 'chat.completion',
      created: 0,
      model: 'oxeval-test-judge',
      choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: "I'm sorry, I can't help with that." }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    }),
  }),
  length: () => ({ content: '{"statements": ["cut', finishReason: 'length' }),
}

/** The schema name of a structured request (`undefined` for a free-text step). */
export function stepOf(req) {
  // the wire formats' native name (OpenAI/Azure response_format, Anthropic's forced tool, Gemini's schema title), else the fallback's marker
  return nativeSchemaName(req.body) ?? /Output schema name:\s*(\S+)/.exec(req.text ?? '')?.[1]
}

function matches(rule, req) {
  if (rule.step !== undefined) {
    const step = stepOf(req)
    if (rule.step === 'text' ? step !== undefined : step !== rule.step) return false
  }
  if (rule.match !== undefined) {
    const text = req.text ?? ''
    if (typeof rule.match === 'string' ? !text.includes(rule.match) : !rule.match.test(text)) return false
  }
  if (typeof rule.when === 'function' && !rule.when(req)) return false
  return true
}

function answer(rule, req) {
  if (rule.fault !== undefined) {
    const f = FAULTS[rule.fault]
    return { ...f(), delayMs: rule.delayMs }
  }
  if (rule.json !== undefined) return { json: typeof rule.json === 'function' ? rule.json(req) : rule.json, delayMs: rule.delayMs }
  if (rule.text !== undefined) return { content: typeof rule.text === 'function' ? rule.text(req) : rule.text, delayMs: rule.delayMs }
  if (rule.reply !== undefined) return typeof rule.reply === 'function' ? rule.reply(req) : rule.reply
  return undefined
}

function checkRule(rule, i) {
  const where = `createTestJudge: rules[${i}]`
  if (rule === null || typeof rule !== 'object') throw new TypeError(`${where} must be an object`)
  const kinds = ['fault', 'json', 'text', 'reply'].filter((k) => rule[k] !== undefined)
  if (kinds.length !== 1) throw new TypeError(`${where} needs exactly one of fault, json, text, reply (got ${kinds.join(', ') || 'none'})`)
  if (rule.fault !== undefined && !(rule.fault in FAULTS)) throw new TypeError(`${where}.fault must be one of ${Object.keys(FAULTS).join(', ')}`)
  if (rule.match !== undefined && typeof rule.match !== 'string' && !(rule.match instanceof RegExp)) throw new TypeError(`${where}.match must be a string or a RegExp`)
  if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times > 0)) throw new TypeError(`${where}.times must be a positive integer`)
}

/**
 * @param {import('./test-judge').TestJudgeOptions} [options]
 * @returns {Promise<import('./test-judge').TestJudge>}
 */
export async function createTestJudge(options = {}) {
  const { reply, latencyMs, faults } = options
  const rules = [...(options.rules ?? [])]
  rules.forEach(checkRule)
  const remaining = rules.map((r) => r.times ?? Infinity)
  const handler = async (req) => {
    for (let i = 0; i < rules.length; i++) {
      if (remaining[i] <= 0 || !matches(rules[i], req)) continue
      remaining[i]--
      return answer(rules[i], req)
    }
    if (typeof reply === 'function') {
      const r = await reply(req)
      if (r !== undefined) return r
    }
    // a free-text step of a prompt the user wrote (a custom scorer's generateReason): a
    // default text (the bare heuristic judge wants oxeval's DATA line)
    if (!requestSchema(req) && !/^DATA: /m.test(req.user ?? '')) return { content: 'The test judge has no DATA line to read; this is its default reason.' }
    return heuristicJudge(req)
  }
  const server = await startJudgeServer({ handler, latencyMs, faults })
  const modelId = options.modelId ?? 'openai/oxeval-test-judge'
  return {
    model: { id: modelId, url: server.url, apiKey: 'oxeval-test-judge-key' },
    url: server.url,
    server,
    get requests() {
      return server.requests
    },
    /** Requests of one step (schema name; 'text' for free-text steps). */
    requestsFor(step) {
      return server.requests.filter((r) => (step === 'text' ? stepOf(r) === undefined : stepOf(r) === step))
    },
    /** Adds a rule (checked before the options' rules that are left). */
    addRule(rule) {
      checkRule(rule, rules.length)
      rules.unshift(rule)
      remaining.unshift(rule.times ?? Infinity)
      return this
    },
    close: () => server.close(),
  }
}

export { requestSchema }
