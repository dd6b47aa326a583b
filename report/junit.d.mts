// Types of report/junit.mjs: the JUnit XML of an eval run.
import type { HtmlReportInput } from './html.mjs'

/** The XML text: a run suite (its outcome, thresholds, gates), then one <testsuite> per scorer (and gate), one <testcase> per item. */
export function renderJunit<Item extends { index: number }>(report: Pick<HtmlReportInput<Item>, 'header' | 'summary' | 'items'>): string
/** The same XML as text chunks (one per testcase). */
export function junitChunks<Item extends { index: number }>(report: Pick<HtmlReportInput<Item>, 'header' | 'summary' | 'items'>): Generator<string>
/** Writes the XML chunk by chunk. */
export function writeJunitReport<Item extends { index: number }>(file: string, report: Pick<HtmlReportInput<Item>, 'header' | 'summary' | 'items'>): Promise<void>
/** Escaped XML text without the characters XML 1.0 cannot hold. */
export function xmlEscape(value: unknown): string
