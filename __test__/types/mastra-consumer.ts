// tsc --strict: oxeval/mastra scorers in every place Mastra takes a scorer, with no cast.
import { Agent } from '@mastra/core/agent'
import { MastraScorer, createScorer, runEvals, type MastraScorers } from '@mastra/core/evals'
import { MastraError } from '@mastra/core/error'
import { Mastra } from '@mastra/core/mastra'
import { createStep, createWorkflow } from '@mastra/core/workflows'
import { z } from 'zod'
import {
  createAnswerRelevancyScorer,
  createFactualCorrectnessScorer,
  createContextRelevanceScorer,
  ScorerRunError,
  type OxevalMastraScorer,
} from 'oxeval/mastra'
import type { AnswerRelevancyPreprocess } from 'oxeval'

const relevancy = createAnswerRelevancyScorer({ model: 'openai/gpt-4o-mini', cache: true, modelSettings: { maxRetries: 1 } })
const factual = createFactualCorrectnessScorer({ id: 'fc', model: { id: 'openai/gpt-4o-mini', url: 'http://127.0.0.1:1/v1' }, mode: 'precision' })
const context = createContextRelevanceScorer({ model: 'openai/gpt-4o-mini', contextExtractor: () => ['ctx'] })

// a MastraScorer, id typed as a literal
const asMastra: MastraScorer<'answer-relevancy-scorer', any, any, any> = relevancy
const fcId: 'fc' = factual.id
const own: OxevalMastraScorer<'fc'> = factual
const mastraSide = createScorer({ id: 'mastra-side', description: 'd', type: 'agent' }).generateScore(() => 1)

// Agent `scorers`
const agent = new Agent({
  id: 'a',
  name: 'a',
  instructions: 'i',
  model: 'openai/gpt-4o-mini',
  scorers: { relevancy: { scorer: relevancy, sampling: { type: 'ratio', rate: 1 } }, context: { scorer: context } },
})
const entries: MastraScorers = { relevancy: { scorer: relevancy } }

// new Mastra({ scorers }) and addScorer
const mastra = new Mastra({ agents: { agent }, scorers: { relevancy, factual } })
mastra.addScorer(context)
mastra.addScorer(relevancy, 'other-key')
const got = mastra.getScorerById('answer-relevancy-scorer')

// workflow-step scorers
const step = createStep({
  id: 's',
  inputSchema: z.object({ q: z.string() }),
  outputSchema: z.object({ a: z.string() }),
  execute: async ({ inputData }) => ({ a: inputData.q }),
  scorers: { relevancy: { scorer: relevancy } },
})
const workflow = createWorkflow({ id: 'w', inputSchema: z.object({ q: z.string() }), outputSchema: z.object({ a: z.string() }) }).then(step).commit()

// runEvals: bare, { scorer, threshold }, gates, mixed with Mastra's own scorers, workflow targets
async function evals() {
  const r = await runEvals({
    target: agent,
    data: [{ input: 'q', groundTruth: 'g' }],
    scorers: [relevancy, { scorer: factual, threshold: 0.5 }, mastraSide],
    gates: [relevancy],
  })
  const w = await runEvals({
    target: workflow,
    data: [{ input: { q: 'q' } }],
    scorers: { workflow: [relevancy], steps: { s: [relevancy] } },
  })
  return [r.verdict, w.scores]
}

// run(): Mastra's result plus oxeval's judge records, typed step results
async function direct() {
  const r = await relevancy.run({ input: 'q', output: 'a' }, { deadlineMs: 1000 })
  // @mastra/core 1.71: a run may be not scorable (`notScorable`), so `score` may be absent
  const score: number | undefined = r.score
  const reason: string | undefined = r.reason
  const pre: AnswerRelevancyPreprocess | undefined = r.preprocessStepResult
  const trace: string | undefined = r.scoreTraceId
  const usage = r.judge?.analyze?.executions[0]?.usage?.totalTokens
  try {
    await factual.run({ input: 'q', output: 'a', groundTruth: 'g' })
  } catch (e) {
    if (e instanceof ScorerRunError) {
      const code: string = e.code
      const m: MastraError = e
      return [code, m.id, m.toJSON().code]
    }
  }
  return [score, reason, pre, trace, usage]
}

export { asMastra, fcId, own, entries, mastra, got, evals, direct }

// negative cases: oxeval/mastra's types are real, not `any`
// @ts-expect-error a Mastra scorer built with createScorer is not an OxevalMastraScorer (no cacheStats)
const notOx: OxevalMastraScorer = mastraSide
// @ts-expect-error the id is typed as its literal
const wrongId: 'answer-relevancy-scorer' = factual.id
// @ts-expect-error `output` is required by Mastra's ScorerRun
void relevancy.run({ input: 'q' })
// @ts-expect-error unknown oxeval option values are rejected (mode)
createFactualCorrectnessScorer({ model: 'openai/gpt-4o-mini', mode: 'best' })
// @ts-expect-error model is required
createAnswerRelevancyScorer({ id: 'x' })
export { notOx, wrongId }
