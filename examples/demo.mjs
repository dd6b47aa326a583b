// `npm run demo`: score a small bundled Q&A dataset with oxeval.
//
// With OXEVAL_MODEL set (e.g. OXEVAL_MODEL=openai/gpt-4o-mini plus OPENAI_API_KEY) it uses that
// real judge. Without it, it starts oxeval's local SCRIPTED judge on 127.0.0.1 (a word-overlap
// heuristic speaking the OpenAI wire format) so the whole pipeline runs offline.
import { readFileSync } from 'node:fs'
import oxeval from '../index.js'
import { heuristicJudge, startJudgeServer } from '../testing/judge-server.mjs'

const { createAnswerRelevancyScorer, createFactualCorrectnessScorer, ScorerRunError } = oxeval
const dataset = JSON.parse(readFileSync(new URL('./dataset.json', import.meta.url), 'utf8'))

let server
let model = process.env.OXEVAL_MODEL
if (model) {
  console.log(`Judge: ${model} (real LLM judge from OXEVAL_MODEL)\n`)
} else {
  server = await startJudgeServer({ handler: heuristicJudge })
  model = { id: 'openai/scripted-judge', url: server.url }
  console.log('*** SCRIPTED JUDGE: OXEVAL_MODEL is not set, so the judgments below come from a local scripted')
  console.log(`*** judge (word-overlap heuristic) at ${server.url}, not from an LLM. Set OXEVAL_MODEL=provider/model`)
  console.log('*** and the provider API key (e.g. OPENAI_API_KEY) to use a real judge.\n')
}

const relevancy = createAnswerRelevancyScorer({ model })
const factual = createFactualCorrectnessScorer({ model, mode: 'f1' })

function judgeCost(result) {
  let calls = 0
  let tokens = 0
  for (const step of Object.values(result?.judge ?? {})) {
    for (const ex of step.executions) {
      calls += ex.modelCallCount
      tokens += ex.usage.totalTokens ?? 0
    }
  }
  return { calls, tokens }
}

/** Run `fn` over items with at most `limit` in flight; keeps order. */
async function mapLimit(items, limit, fn) {
  const out = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++
        out[i] = await fn(items[i], i)
      }
    }),
  )
  return out
}

async function scoreAll(scorer) {
  const t0 = performance.now()
  const rows = await mapLimit(dataset, 8, async (item) => {
    try {
      return { item, result: await scorer.run(item) }
    } catch (e) {
      return { item, error: e }
    }
  })
  return { rows, wallMs: performance.now() - t0 }
}

function report(title, { rows, wallMs }) {
  console.log(`${title} over ${dataset.length} items\n`)
  let calls = 0
  let tokens = 0
  const scores = []
  for (const [i, { item, result, error }] of rows.entries()) {
    const cost = judgeCost(result ?? (error instanceof ScorerRunError ? error.result : undefined))
    calls += cost.calls
    tokens += cost.tokens
    console.log(`${String(i + 1).padStart(2)}. ${item.input}`)
    if (error) {
      console.log(`    FAILED at step '${error.failedStep ?? '?'}' (${error.code ?? error.name}): ${error.message}\n`)
      continue
    }
    scores.push(result.score)
    console.log(`    score ${result.score.toFixed(2)}  |  ${result.reason}\n`)
  }
  const mean = scores.reduce((a, b) => a + b, 0) / (scores.length || 1)
  console.log('-'.repeat(72))
  console.log(`mean: ${mean.toFixed(3)} over ${scores.length} scored items (${rows.length - scores.length} failed)`)
  console.log(`judge calls: ${calls}   judge tokens: ${tokens}   wall: ${wallMs.toFixed(0)} ms\n`)
}

report(`Answer relevancy (${relevancy.id})`, await scoreAll(relevancy))
report(`Factual correctness, F1 of output vs groundTruth claims (${factual.id}, Ragas semantics)`, await scoreAll(factual))

await server?.close()
