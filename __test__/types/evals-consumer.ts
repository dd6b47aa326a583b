// Type-checked in `npm test`: runEvals, oxeval/vitest and oxeval/testing as a user writes them.
import { createAnswerRelevancyScorer, estimateCost, runEvals, summarizeItems, type CostEstimate, type RunEvalsResult, type EvalItemResult, type EvalTurnRecord } from 'oxeval'
import { expectEvals, expectEval, registerEvalMatchers, OxevalEvalsReporter, EvalPassRateError } from 'oxeval/vitest'
import { createTestJudge, type TestJudge } from 'oxeval/testing'
import { expect } from 'vitest'

export async function positive(): Promise<number | null> {
  const judge: TestJudge = await createTestJudge({
    rules: [
      { step: 'answer_relevancy_verdicts', json: { results: [{ result: 'yes', reason: 'ok' }] }, times: 1 },
      { match: /France/, fault: 'http500' },
      { step: 'text', text: (req) => `reason for ${req.user.length}` },
    ],
  })
  const relevancy = createAnswerRelevancyScorer({ model: judge.model })
  const custom = { id: 'custom', async run(run: { output: unknown }) { return { score: String(run.output).length > 3 ? 1 : 0 } } }
  const r: RunEvalsResult = await runEvals({
    data: [{ input: 'q', output: 'a', groundTruth: 'g', context: ['c'] }],
    scorers: [relevancy, { scorer: custom, threshold: { min: 0.5 } }],
    gates: [custom],
    target: async (input: string) => `answer to ${input}`,
    concurrency: 4,
    trials: 2,
    keepItems: true,
    signal: AbortSignal.timeout(1000),
    onItemComplete: async (item) => {
      const e: EvalItemResult = item
      void e.results[relevancy.id]?.reason
      void item.scorerResults
    },
  })
  const mean: number | null = r.scores[relevancy.id]
  const cov: number = r.coverage[relevancy.id].scored / r.coverage[relevancy.id].total
  void r.stats[relevancy.id].ci95?.[0]
  void r.usage[relevancy.id].totalTokens
  void r.verdict
  void cov
  const again = summarizeItems({ items: r.items ?? [], scorers: [relevancy.id, { id: 'custom', threshold: 0.5 }], trials: 2 })
  void again.scores
  registerEvalMatchers()
  expect(r).toHaveScoreAbove(relevancy.id, 0.5)
  expect({ score: 1 }).toHaveScoreBelow(2)
  expect(r).toPassThresholds()
  expect(r).toHaveVerdict('passed')
  // labels: agreement per scorer, the matcher
  const labeled = await runEvals({ data: [{ input: 'q', output: 'a', expected: { custom: 'pass' } }, { input: 'r', output: 'b', expected: { custom: 0.2 } }], scorers: [custom] })
  const kappa: number | null | undefined = labeled.agreement?.custom.kappa
  const counts: number | undefined = labeled.agreement?.custom.confusion.judgePassLabelFail
  void kappa
  void counts
  // the results store: a path or { path, name, tags }; where the run went
  const stored = await runEvals({ data: [{ input: 'q', output: 'a' }], scorers: [custom], store: { path: '.oxeval/store.db', tags: ['nightly'] }, storePrompts: false })
  const runId: string | null | undefined = stored.store?.runId
  void runId
  await runEvals({ data: [], scorers: [custom], store: false })
  // @ts-expect-error store is a path, an object or false
  await runEvals({ data: [], scorers: [custom], store: 42 })
  expect(labeled).toAgreeWithLabels(0.6)
  expect(labeled).toAgreeWithLabels(0.6, 'custom')
  // runEvals for agents: multi-turn items, per-turn assertions, trajectories, the categorized form
  const agent = { id: 'agent', async generate(input: unknown) { return { text: String(input) } } }
  const conv = await runEvals({
    target: agent,
    targetOptions: { maxSteps: 2, memory: { resource: 'user-1' } },
    data: [{ inputs: ['a', 'b'], expectedTrajectory: { steps: [] } }, { turns: [{ input: 'a', gates: [custom], scorers: [{ scorer: custom, threshold: 0.5 }] }, { input: 'b' }] }],
    scorers: { agent: [custom], trajectory: [{ scorer: custom, threshold: 0.5 }] },
  })
  const traj: number | null | undefined = conv.scores.trajectory?.custom
  const turnGate: number | undefined = conv.turnResults?.[0].gateResults?.[0].score
  const turnRecord: EvalTurnRecord | undefined = conv.items?.[1].turns?.[0]
  const perTurn: RunEvalsResult = await runEvals({ target: async (input: unknown, ctx) => `${ctx.turn?.index}:${ctx.threadId}:${String(input)}`, data: [{ inputs: ['x'] }], scorers: [custom] })
  void [traj, turnGate, turnRecord, perTurn.warnings]
  const passed: RunEvalsResult = await expectEvals({ data: [{ input: 'q', output: 'a' }], scorers: [custom] }).toPass(0.9)
  await expectEval({ data: { input: 'q', output: 'a' }, scorers: [custom] }).toPass()
  void passed
  void new OxevalEvalsReporter({ color: false })
  void EvalPassRateError
  await judge.close()
  return mean
}

export async function negative(): Promise<void> {
  const s = createAnswerRelevancyScorer({ model: 'openai/x' })
  // @ts-expect-error data is required
  await runEvals({ scorers: [s] })
  // @ts-expect-error a threshold is a number or { min, max }
  await runEvals({ data: [], scorers: [{ scorer: s, threshold: 'high' }] })
  const r = await runEvals({ data: [], scorers: [s] })
  // @ts-expect-error a mean may be null (no scored item)
  const m: number = r.scores[s.id]
  void m
  // @ts-expect-error not a verdict
  expect(r).toHaveVerdict('ok')
  // @ts-expect-error a turn needs an input
  await runEvals({ data: [{ turns: [{ gates: [s] }] }], scorers: [s] })
  // @ts-expect-error the categorized form has agent and trajectory lists
  await runEvals({ data: [], scorers: { agent: s } })
  // @ts-expect-error a label is a number, 'pass' or 'fail'
  await runEvals({ data: [{ input: 'q', output: 'a', expected: { x: 'yes' } }], scorers: [s] })
  // @ts-expect-error minKappa is a number
  expect(r).toAgreeWithLabels('high')
  // @ts-expect-error a rule needs one of json/text/fault/reply
  await createTestJudge({ rules: [{ step: 'x', json: {}, fault: 'hang' }] })
  // @ts-expect-error unknown fault
  await createTestJudge({ rules: [{ fault: 'boom' }] })
}

// issue 40: the budget and the estimate
export async function cost(): Promise<number> {
  const scorers = [createAnswerRelevancyScorer({ model: 'openai/gpt-4o-mini' })]
  const data = [{ input: 'q', output: 'a' }]
  const r = await runEvals({ data, scorers, maxCost: 0.5, prices: { 'openai/gpt-4o-mini': { input: 0.15, output: 0.6 }, in: 1 } })
  const spent: number | undefined = r.budget?.spent
  const e: CostEstimate = await estimateCost({ data, scorers })
  const calls: number = e.scorers[0].calls.max
  const direct: number | undefined = e.total.cost?.direct.min
  // @ts-expect-error maxCost is a number of dollars
  await runEvals({ data, scorers, maxCost: '1' })
  return (spent ?? 0) + calls + (direct ?? 0)
}
