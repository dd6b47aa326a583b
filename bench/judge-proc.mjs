// The benchmark's judge: a separate process so its CPU and memory are not counted against the
// library under test. Prints its URL as the first stdout line.
//
// It answers by the SHAPE of the requested JSON schema (its property names), so every library
// gets byte-identical replies whatever its prompt wording: the measured difference is the
// library's own cost.
import { startJudgeServer } from '../__test__/helpers/judge-server.mjs'

const REPLIES = {
  statements: { statements: ['Paris is the capital of France.', 'It is a large city.', 'I like croissants.'] },
  results: {
    results: [
      { result: 'yes', reason: 'Answers the question.' },
      { result: 'unsure', reason: 'Related background.' },
      { result: 'no', reason: 'Off-topic.' },
    ],
  },
  claims: { claims: ['The Eiffel Tower is in Paris.', 'The Eiffel Tower is 330 m tall.'] },
  statementsNli: {
    statements: [
      { statement: 'The Eiffel Tower is in Paris.', reason: 'Stated in the premise.', verdict: 1 },
      { statement: 'The Eiffel Tower is 330 m tall.', reason: 'Not in the premise.', verdict: 0 },
    ],
  },
  rating: { rating: 4 },
}

function schemaKeys(req) {
  const rf = req.body?.response_format
  const props = rf?.json_schema?.schema?.properties
  if (props) return Object.keys(props)
  // schema described in the prompt (fallback / prompt mode): look for property names
  const m = /"properties":\s*\{\s*"(\w+)"/.exec(req.system + req.user)
  return m ? [m[1]] : []
}

function shapeJudge(req) {
  const keys = schemaKeys(req)
  if (keys.includes('statements')) {
    const nli = /"verdict"/.test(JSON.stringify(req.body?.response_format ?? '') + req.system)
    return { json: nli ? REPLIES.statementsNli : REPLIES.statements }
  }
  if (keys.includes('results')) return { json: REPLIES.results }
  if (keys.includes('claims')) return { json: REPLIES.claims }
  if (keys.includes('rating')) return { json: REPLIES.rating }
  return { content: 'The score is 0.43 because one statement answers the question, one is related and one is off-topic.' }
}

const latencyMs = Number(process.env.JUDGE_LATENCY_MS || 0)
const faultRate = Number(process.env.JUDGE_FAULT_RATE || 0)
const server = await startJudgeServer({
  handler: shapeJudge,
  latencyMs,
  hangMs: Number(process.env.JUDGE_HANG_MS || 30000),
  ...(faultRate > 0 ? { faults: { rate: faultRate, seed: Number(process.env.JUDGE_FAULT_SEED || 1) } } : {}),
})
console.log(server.url)
process.on('SIGTERM', async () => {
  await server.close()
  process.exit(0)
})
