/// <reference path="./matchers.d.mts" />
import type { RunEvalsOptions, RunEvalsResult, EvalItem, EvalVerdict, EvalThresholdResult, EvalTurnResult } from '../index.js'

export type ExpectEvalsOptions = RunEvalsOptions
export type ExpectEvalOptions = Omit<RunEvalsOptions, 'data'> & { data: EvalItem }

/** Thrown by `.toPass()` when a gate's pass rate or a threshold is not met. */
export declare class EvalPassRateError extends Error {
  readonly name: 'EvalPassRateError'
  readonly result: RunEvalsResult<any>
  constructor(message: string, result: RunEvalsResult<any>)
}

export interface EvalScoresAssertion {
  /**
   * Runs the eval; every gate's pass rate must be `>= minPassRate` (default 1) and every
   * threshold must pass. Resolves with the result; rejects with `EvalPassRateError` naming
   * each failure, by how much, and the worst items with their reasons.
   */
  toPass(minPassRate?: number): Promise<RunEvalsResult<any>>
}

export declare function expectEvals(options: ExpectEvalsOptions): EvalScoresAssertion
export declare function expectEval(options: ExpectEvalOptions): EvalScoresAssertion

export interface WorstItem {
  index: number
  id?: string
  /** null: the scorer failed on this item. */
  score: number | null
  reason: string
}

/** The lowest-scoring items of a scorer in a runEvals result (errors first). */
export declare function worstItems(result: RunEvalsResult<any>, scorerId: string, n?: number): WorstItem[]

/** The lowest-scoring items of one turn's assertion (`turns` items; errors first). */
export declare function worstTurnItems(result: RunEvalsResult<any>, turn: number, scorerId: string, n?: number): WorstItem[]

export interface OxevalEvalMeta {
  /** Means by scorer id; the categorized form's under `agent.<id>` / `trajectory.<id>`. */
  scores: Record<string, number | null>
  totalItems: number
  coverage?: RunEvalsResult['coverage']
  errors?: RunEvalsResult['errors']
  stats?: Record<string, { ci95: [number, number] | null }>
  verdict?: EvalVerdict
  gateResults?: RunEvalsResult['gateResults']
  thresholdResults?: EvalThresholdResult[]
  worst?: Record<string, WorstItem[]>
  /** Per turn (turns items): its gates, thresholds, scores and coverage. */
  turnResults?: Array<Pick<EvalTurnResult, 'index' | 'gateResults' | 'thresholdResults' | 'scores' | 'coverage'>>
  /** The worst items of each turn assertion that did not pass, keyed `turn <index> <id>`. */
  worstTurns?: Record<string, WorstItem[]>
}

export declare function toEvalMeta(result: RunEvalsResult<any>): OxevalEvalMeta

export interface EvalMatchers<R = unknown> {
  /** The run's verdict (`passed`, `scored`, `failed`). */
  toHaveVerdict(verdict: EvalVerdict): R
  /** A scorer's mean (dot-paths allowed) is strictly above `min`; on a single scorer result: `toHaveScoreAbove(min)`. */
  toHaveScoreAbove(scorerId: string, min: number): R
  toHaveScoreAbove(min: number): R
  /** A scorer's mean is strictly below `max`; on a single scorer result: `toHaveScoreBelow(max)`. */
  toHaveScoreBelow(scorerId: string, max: number): R
  toHaveScoreBelow(max: number): R
  /** All gates passed, per-turn gates included (fails when none were configured). */
  toPassGates(): R
  /** All thresholds passed, per-turn thresholds included (fails when none were configured). */
  toPassThresholds(): R
  /** Cohen's κ between each labeled scorer's judge and the items' `expected` labels (at the
   * scorer's threshold) is at least `minKappa`; `scorerId` checks one scorer. The failure names
   * the scorer, κ and the confusion counts. */
  toAgreeWithLabels(minKappa: number, scorerId?: string): R
}

/** The matchers as asymmetric matchers: `expect.toHaveScoreAbove(0.5)` inside `toEqual` etc. */
export interface EvalAsymmetricMatchers {
  toHaveVerdict(verdict: EvalVerdict): any
  toHaveScoreAbove(scorerId: string, min: number): any
  toHaveScoreAbove(min: number): any
  toHaveScoreBelow(scorerId: string, max: number): any
  toHaveScoreBelow(max: number): any
  toPassGates(): any
  toPassThresholds(): any
  toAgreeWithLabels(minKappa: number, scorerId?: string): any
}

type MatcherResult = { pass: boolean; message: () => string }
export declare const evalMatchers: {
  toHaveVerdict(received: unknown, verdict: EvalVerdict): MatcherResult
  toHaveScoreAbove(received: unknown, scorerOrMin: string | number, min?: number): MatcherResult
  toHaveScoreBelow(received: unknown, scorerOrMax: string | number, max?: number): MatcherResult
  toPassGates(received: unknown): MatcherResult
  toPassThresholds(received: unknown): MatcherResult
  toAgreeWithLabels(received: unknown, minKappa: number, scorerId?: string): MatcherResult
}

/** Registers the matchers on Vitest's `expect` (or use `setupFiles: ['oxeval/vitest/setup']`). */
export declare function registerEvalMatchers(): void

/** Prints per-scorer means, intervals, coverage and the worst items after the test run, for each test that ran `expectEvals`/`expectEval` or gave a runEvals result to a registered matcher. */
export declare class OxevalEvalsReporter {
  constructor(options?: { color?: boolean; write?: (text: string) => void })
  onTestRunEnd(testModules: ReadonlyArray<unknown>): void
  render(entries: Array<{ fullName: string; meta: OxevalEvalMeta }>): string
}
export { OxevalEvalsReporter as MastraEvalsReporter }

// the matchers on `expect`: ./matchers.d.mts (global, so that it reaches the app's own Vitest)
declare module 'vitest' {
  interface TaskMeta {
    oxevalEval?: OxevalEvalMeta
  }
}
