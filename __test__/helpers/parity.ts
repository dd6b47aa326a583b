// The parity harness of the parity-*.spec.ts files: Mastra's scorer (@mastra/evals) and
// oxeval's pointed at ONE scripted judge that answers each step of the current case the same
// way for both, so any difference in score, step results or result keys comes from how each
// library reads the run and does its math.
//
//   const parity = useParity<Case>({ preprocess: 'claims', analyze: 'verdicts' }, (c, step) => …)
//   const { mr, or, mreq, oreq } = await parity.runBoth(c, mastraScorer({ model: parity.mastraModel() }), oxScorer, run)
import { expect } from 'vitest'
import { uniqueModelId, useJudgeServer, type Any, type JudgeServer, type RecordedRequest, type ReplyObject } from './setup'

export type ParityStep = 'preprocess' | 'analyze' | 'generateReason'

/**
 * How a request names its step: a property of its JSON schema (`response_format`; Mastra's
 * requests carry no schema name), or, with `schema`, that schema name in the system message
 * (oxeval's format fallback). A request matching none is the free-text generateReason.
 */
export type StepRoutes = Partial<Record<Exclude<ParityStep, 'generateReason'>, { property: string; schema?: string } | string>>

/** The step of `req` by `routes`, checked in the order preprocess, analyze. */
export function stepRouter(routes: StepRoutes) {
  const entries = (['preprocess', 'analyze'] as const)
    .filter((s) => routes[s] !== undefined)
    .map((s) => {
      const r = routes[s]!
      return [s, typeof r === 'string' ? { property: r } : r] as const
    })
  return (req: RecordedRequest): ParityStep => {
    const props = Object.keys((req.body?.response_format as Any)?.json_schema?.schema?.properties ?? {})
    for (const [step, r] of entries) if (props.includes(r.property) || (r.schema !== undefined && req.system.includes(r.schema))) return step
    return 'generateReason'
  }
}

export interface BothRuns {
  /** Mastra's result, oxeval's result. */
  mr: Any
  or: Any
  /** The judge requests of each run. */
  mreq: RecordedRequest[]
  oreq: RecordedRequest[]
}

export interface Parity<C> {
  /** The scripted judge (started in beforeAll, reset after each test). */
  server: JudgeServer
  /** The step of a request (see StepRoutes). */
  stepOf: (req: RecordedRequest) => ParityStep
  /** The case the judge answers for; without one it answers 500 "no current case". */
  current: C | undefined
  /** Mastra's model config for the judge. */
  mastraModel(): Any
  /** oxeval's model config for the judge, with a model id of its own (`openai/<tag>-<n>`). */
  oxModel(tag?: string): { id: string; url: string }
  /** Runs Mastra's scorer then oxeval's on `c` (oxeval with `oxRun`, default `run`), each with its requests. */
  runBoth(c: C, mastra: Any, oxeval: Any, run: Record<string, unknown>, oxRun?: Record<string, unknown>): Promise<BothRuns>
}

/**
 * A parity judge for one spec file: `reply(c, step, req)` is the answer to `step` for the
 * current case `c` (a string is the free-text reason).
 */
export function useParity<C>(routes: StepRoutes, reply: (c: C, step: ParityStep, req: RecordedRequest) => ReplyObject | string): Parity<C> {
  const stepOf = stepRouter(routes)
  let current: C | undefined
  const server = useJudgeServer({
    handler: (req) => {
      const c = current
      if (!c) return { status: 500, content: 'no current case' }
      return reply(c, stepOf(req), req)
    },
  })
  return {
    server,
    stepOf,
    get current() {
      return current
    },
    set current(c: C | undefined) {
      current = c
    },
    mastraModel: () => ({ id: 'openai/gpt-4o-mini', url: server.url, apiKey: 'x' }),
    oxModel: (tag = 'parity') => ({ id: uniqueModelId(tag), url: server.url }),
    async runBoth(c, mastra, oxeval, run, oxRun = run) {
      current = c
      const start = server.requests.length
      const mr: Any = await mastra.run(run as Any)
      const mreq = server.requests.slice(start)
      const mid = server.requests.length
      const or: Any = await oxeval.run(oxRun)
      const oreq = server.requests.slice(mid)
      current = undefined
      return { mr, or, mreq, oreq }
    },
  }
}

/** Verdict labels trimmed and lowercased (oxeval records them so; Mastra keeps the judge's text). */
export const normalizedLabels = (key: string, list: string) => (step: Any) => ({ [list]: step[list].map((v: Any) => ({ ...v, [key]: v[key].trim().toLowerCase() })) })

/**
 * The same reason, preprocess and analyze step results (Mastra's analyze result through
 * `analyze` when oxeval records it normalized) and the same result keys.
 */
export function expectSameResults(or: Any, mr: Any, opts: { analyze?: (mastraAnalyze: Any) => unknown } = {}) {
  expect(or.reason).toBe(mr.reason)
  expect(or.preprocessStepResult).toEqual(mr.preprocessStepResult)
  expect(or.analyzeStepResult).toEqual(opts.analyze ? opts.analyze(mr.analyzeStepResult) : mr.analyzeStepResult)
  expect(Object.keys(or)).toEqual(Object.keys(mr))
}
