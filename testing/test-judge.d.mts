import type { JudgeServer, RecordedRequest, Reply, ReplyObject, FaultOptions } from './judge-server.mjs'

export type TestJudgeFault = 'http500' | 'http429' | 'http400' | 'hang' | 'reset' | 'truncate' | 'empty' | 'malformed' | 'refusal' | 'length'

interface RuleBase {
  /** The step's schema name as sent (e.g. 'answer_relevancy_statements'), or 'text' for a free-text step. */
  step?: string
  /** A substring of, or a RegExp tested on, the whole prompt. */
  match?: string | RegExp
  /** Any other condition. */
  when?: (req: RecordedRequest) => boolean
  /** Answer this many requests, then retire (default: every matching request). */
  times?: number
  delayMs?: number
}

/** One rule: where it applies, and exactly one of `json`, `text`, `fault`, `reply`. */
export type TestJudgeRule = RuleBase &
  (
    | { json: unknown | ((req: RecordedRequest) => unknown); text?: never; fault?: never; reply?: never }
    | { text: string | ((req: RecordedRequest) => string); json?: never; fault?: never; reply?: never }
    | { fault: TestJudgeFault; json?: never; text?: never; reply?: never }
    | { reply: Reply; json?: never; text?: never; fault?: never }
  )

export interface TestJudgeOptions {
  /** Checked in order before the defaults. */
  rules?: TestJudgeRule[]
  /** Called when no rule matched; return undefined for the default reply. */
  reply?: (req: RecordedRequest) => Reply | undefined | Promise<Reply | undefined>
  /** Added to every reply. */
  latencyMs?: number
  /** Random faults (seeded). */
  faults?: FaultOptions
  /** The model id scorers report (default 'openai/oxeval-test-judge'). */
  modelId?: string
}

export interface TestJudge {
  /** Pass as a scorer's `model`. */
  readonly model: { id: string; url: string; apiKey: string }
  readonly url: string
  readonly server: JudgeServer
  /** Every request received (live). */
  readonly requests: RecordedRequest[]
  requestsFor(step: string): RecordedRequest[]
  addRule(rule: TestJudgeRule): TestJudge
  close(): Promise<void>
}

export declare function createTestJudge(options?: TestJudgeOptions): Promise<TestJudge>
/** The schema name of a structured request (undefined for a free-text step). */
export declare function stepOf(req: RecordedRequest): string | undefined
export type { ReplyObject }
