// Types of `oxeval/report`: the HTML report of an eval run (report/html.mjs).

/** A threshold as runEvals takes it: a minimum, or a range. */
export type Threshold = number | { min?: number; max?: number }

/** What the report reads of a run. `items` are runEvals' EvalItemResult records (full or `slimItem`'d). */
export interface HtmlReportInput<Item extends { index: number } = { index: number }> {
  header: {
    scorers: Array<{ id: string; threshold?: Threshold }>
    gates?: string[]
    /** Shown in the header: 'provider/model' or `{ id, url }` (write no secrets here). */
    model?: string | { id: string; url?: string }
    data?: string
    trials?: number
    shard?: { index: number; count: number } | null
    version?: string
  }
  /** runEvals' EvalRunResult (its `items` are not read: pass them as `items`). */
  summary: {
    scores?: Record<string, number | null>
    summary?: { totalItems: number; failedItems: number }
    thresholdResults?: Array<{ id: string; passed: boolean; averageScore: number | null; threshold: Threshold }>
    gateResults?: Array<{ id: string; passed: boolean; score: number }>
    errors?: Record<string, number>
    coverage?: Record<string, { scored: number; total: number }>
    usage?: Record<string, { calls: number; inputTokens: number; outputTokens: number; totalTokens: number; reasoningTokens?: number; cachedInputTokens?: number }>
    stats?: Record<string, { n: number; mean: number | null; std: number | null; min: number | null; max: number | null; ci95: [number, number] | null }>
    trials?: number
    durationMs?: number
    aborted?: boolean
    skipped?: Array<{ index: number; line?: number; message: string }>
  }
  items: ReadonlyArray<Item>
  /** Dollars per 1M input / output tokens: adds a cost per scorer. */
  prices?: { in?: number; out?: number }
  title?: string
  /** The table the items' prompt references (`{ t, s }`) come from, when they were slimItem'd with one. */
  prompts?: PromptTable
  /** The page's item data, spooled on disk while a run went; `items` then only feed the scorer cards. */
  spool?: ItemSpool
}

/** A prompt as the page stores it: its shared instructions (template `t`) and its own DATA part `s`. */
export interface PromptRef {
  t: number
  s: string
}

/** The report's prompts: the part before the last `DATA:` line once per distinct text (`templates`). */
export class PromptTable {
  readonly templates: string[]
  /** `{ t, s }`, or the prompt itself (cut at 20 000 characters) when it has no shared part. */
  intern(prompt: string): PromptRef | string
}

/** The page's item data on disk (a temp folder) while a run goes; removed by close() or at exit. */
export class ItemSpool {
  constructor(prompts?: PromptTable)
  readonly prompts: PromptTable
  add(item: { index: number }): void
  /** The items' JSON texts in index order. */
  json(): Generator<string, void, unknown>
  close(): void
}

/** What the scorer cards and JUnit read of an item: index, id, input, output, score/reason/warnings per scorer, errors, trials, duration. */
export function reportItem<T extends { index: number }>(item: T): Record<string, unknown> & { index: number }

/** The report as one HTML string (self-contained: no network access when viewed). */
export function renderHtmlReport<Item extends { index: number }>(report: HtmlReportInput<Item>): string
/** The same, as text chunks (items serialized one at a time). */
export function htmlReportChunks<Item extends { index: number }>(report: HtmlReportInput<Item>): Generator<string, void, unknown>
/** Writes the report to `file` chunk by chunk. */
export function writeHtmlReport<Item extends { index: number }>(file: string, report: HtmlReportInput<Item>): Promise<void>
/** What the report keeps of an item: scores, reasons, step results, prompts, errors (no judge record; long strings cut). */
export function slimItem<T extends { index: number }>(item: T, prompts?: PromptTable): Record<string, unknown> & { index: number }
/** An inline SVG histogram of scores (10 bins over [0, 1]). */
export function histogramSvg(scores: number[], options?: { threshold?: Threshold; label?: string }): string
export function escapeHtml(value: unknown): string
/** JSON that is safe inside a <script> element. */
export function scriptJson(value: unknown): string
export function itemScore(item: unknown, scorerId: string): number | null
export function itemError(item: unknown, scorerId: string): { name: string; message: string; code?: string; failedStep?: string } | null
export function meetsThreshold(score: number | null, threshold: Threshold | undefined): boolean
