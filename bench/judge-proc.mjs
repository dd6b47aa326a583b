// The benchmark's judge: a separate process so its CPU and memory are not counted against the
// library under test. Prints its URL as the first stdout line.
//
// It answers by the SHAPE of the requested JSON schema (its property names), so every library
// gets byte-identical replies whatever its prompt wording: the measured difference is the
// library's own cost. The schema comes from `response_format.json_schema` (oxeval, Mastra) or,
// for JSON mode (`response_format: {type: 'json_object'}`, ragas through instructor), from the
// JSON schema written into the prompt.
//
// Factual correctness (oxeval and ragas): every decomposition gets the same 3 claims and every
// NLI pass the same 3 verdicts [1, 1, 0], so TP = 2, FP = 1, FN = 1 → F1 = 2/3 → 0.67 for every
// sample. Answer accuracy: both judges rate 4 → 1.0.
import { writeFileSync } from 'node:fs'
import { startJudgeServer } from '../testing/judge-server.mjs'

const REPLIES = {
  statements: { statements: ['Paris is the capital of France.', 'It is a large city.', 'I like croissants.'] },
  results: {
    results: [
      { result: 'yes', reason: 'Answers the question.' },
      { result: 'unsure', reason: 'Related background.' },
      { result: 'no', reason: 'Off-topic.' },
    ],
  },
  // the NLI reply has one verdict per claim of the claims reply
  claims: { claims: ['The Eiffel Tower is in Paris.', 'The Eiffel Tower is made of iron.', 'The Eiffel Tower is 330 m tall.'] },
  statementsNli: {
    statements: [
      { statement: 'The Eiffel Tower is in Paris.', reason: 'Stated in the premise.', verdict: 1 },
      { statement: 'The Eiffel Tower is made of iron.', reason: 'Follows from the premise.', verdict: 1 },
      { statement: 'The Eiffel Tower is 330 m tall.', reason: 'Not in the premise.', verdict: 0 },
    ],
  },
  rating: { rating: 4 },
  // faithfulness (Mastra's shape): one verdict per claim of the claims reply
  verdicts: {
    verdicts: [
      { verdict: 'yes', reason: 'Supported by the context.' },
      { verdict: 'yes', reason: 'Supported by the context.' },
      { verdict: 'no', reason: 'Not in the context.' },
    ],
  },
}

/** The JSON object that starts at text[start] ('{'), or null (balanced braces, JSON strings skipped). */
function jsonObjectAt(text, start) {
  if (text[start] !== '{') return null
  let depth = 0
  let inString = false
  for (let i = start; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '{') depth++
    else if (c === '}' && --depth === 0) {
      try {
        return JSON.parse(text.slice(start, i + 1))
      } catch {
        return null
      }
    }
  }
  return null
}

/**
 * JSON mode: the output schema written into the prompt, e.g. instructor's system message
 * "…match the following json_schema:\n\n{…}" or ragas's "…as specified in JSON Schema:\n{…}".
 */
function promptSchema(req) {
  const text = `${req.system}\n${req.user}`
  const re = /json[ _]schema:\s*/gi
  for (let m; (m = re.exec(text)); ) {
    const schema = jsonObjectAt(text, m.index + m[0].length)
    if (schema?.properties && typeof schema.properties === 'object') return schema
  }
  return null
}

function schemaKeys(req) {
  const rf = req.body?.response_format
  const props = rf?.json_schema?.schema?.properties
  if (props) return { keys: Object.keys(props) }
  const schema = promptSchema(req)
  if (schema) return { keys: Object.keys(schema.properties), schema }
  // schema described in the prompt (fallback / prompt mode): look for property names
  const m = /"properties":\s*\{\s*"(\w+)"/.exec(req.system + req.user)
  return { keys: m ? [m[1]] : [] }
}

function replyKind(req) {
  const { keys, schema } = schemaKeys(req)
  if (keys.includes('statements')) {
    // NLI verdicts ({statement, reason, verdict} items; ragas's schema has them under $defs) vs
    // answer relevancy's plain statement strings
    const nli = /"verdict"/.test(JSON.stringify(req.body?.response_format ?? '') + req.system + (schema ? JSON.stringify(schema) : ''))
    return nli ? 'statementsNli' : 'statements'
  }
  if (keys.includes('results')) return 'results'
  if (keys.includes('claims')) return 'claims'
  if (keys.includes('rating')) return 'rating'
  if (keys.includes('verdicts')) return 'verdicts'
  return 'text'
}

// calls answered per reply kind, written to JUDGE_STATS_FILE (if set) on SIGTERM
const calls = {}

function shapeJudge(req) {
  const kind = replyKind(req)
  calls[kind] = (calls[kind] ?? 0) + 1
  if (kind !== 'text') return { json: REPLIES[kind] }
  return { content: 'The score is 0.43 because one statement answers the question, one is related and one is off-topic.' }
}

const latencyMs = Number(process.env.JUDGE_LATENCY_MS || 0)
const faultRate = Number(process.env.JUDGE_FAULT_RATE || 0)
const server = await startJudgeServer({
  handler: shapeJudge,
  latencyMs,
  // hundreds of thousands of requests: keep no history (memory of this process stays flat)
  maxRecorded: 100,
  hangMs: Number(process.env.JUDGE_HANG_MS || 30000),
  // batch mode's benchmark: each batch ends this long after its creation, answers ready
  batchDelayMs: Number(process.env.JUDGE_BATCH_DELAY_MS || 0),
  batchPrepare: true,
  ...(faultRate > 0 ? { faults: { rate: faultRate, seed: Number(process.env.JUDGE_FAULT_SEED || 1) } } : {}),
})
// Service time as the judge itself sees it (request received → response finished), so the
// throughput bound can be stated for the real per-call latency, not only the nominal one.
let served = 0
let serviceMs = 0
server.httpServer.on('request', (_req, res) => {
  const t0 = performance.now()
  res.on('finish', () => {
    served++
    serviceMs += performance.now() - t0
  })
})
console.log(server.url)
process.on('SIGTERM', async () => {
  await server.close()
  if (process.env.JUDGE_STATS_FILE) {
    const batches = [...server.batches.values()].map((b) => b.lines?.length ?? 0)
    writeFileSync(process.env.JUDGE_STATS_FILE, JSON.stringify({ calls, served, meanServiceMs: served ? serviceMs / served : 0, batches: batches.length, batchLines: batches.reduce((a, b) => a + b, 0) }))
  }
  process.exit(0)
})
