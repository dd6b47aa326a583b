// Agreement with a user's own labels (items' `expected`): runEvals' `agreement` per scorer (MAE,
// Spearman's ρ, Cohen's κ at the threshold with the confusion counts), summarizeItems giving
// the same numbers, the CLI summary lines, the HTML report card and `toAgreeWithLabels`. The
// expected values are computed here with independent formulas (κ from the 2×2 table, ρ by the
// rank-difference formula), not read back from oxeval.
import { afterAll, describe, expect, it } from 'vitest'
import { formatSummary } from '../cli/summary.mjs'
import { renderHtmlReport } from '../report/html.mjs'
import { evalMatchers, registerEvalMatchers } from '../vitest/index.mjs'
import { failure, oxeval, useJudgeServer, type Any } from './helpers/setup'
import { jsonl, judgeArgs, readOut, runCli, tempDir } from './helpers/cli'
import { heuristicJudge } from '../testing/judge-server.mjs'

const { runEvals, summarizeItems } = oxeval

/** A duck-typed scorer: the score is the item's `judged` field (an Error throws). */
const tableScorer = (id: string) => ({
  id,
  async run(run: Any) {
    if (run.judged instanceof Error) throw run.judged
    if ('expected' in run) throw new Error('expected reached the scorer')
    return { score: run.judged, reason: `judged ${run.judged}` }
  },
})

// judge score, label (threshold 0.5)
const rows: Array<[number | Error, number | 'pass' | 'fail']> = [
  [0.9, 1.0], // pass/pass
  [0.8, 0.7], // pass/pass
  [0.6, 0.2], // pass/fail
  [0.3, 0.4], // fail/fail
  [0.1, 0.0], // fail/fail
  [0.4, 'pass'], // fail/pass
  [0.7, 'pass'], // pass/pass
  [new Error('judge down'), 'pass'], // not scored: never agreement
]
const data = rows.map(([judged, label], i) => ({ input: `q${i}`, output: 'o', judged, expected: { j: label } }))

/** Cohen's κ from the 2×2 table, written out. */
function kappaOf(a: number, b: number, c: number, d: number) {
  // a both pass, b judge pass / label fail, c judge fail / label pass, d both fail
  const n = a + b + c + d
  const po = (a + d) / n
  const pe = ((a + b) / n) * ((a + c) / n) + ((c + d) / n) * ((b + d) / n)
  return (po - pe) / (1 - pe)
}

/** Spearman's ρ without ties: 1 − 6 Σd² / (n (n² − 1)). */
function rhoNoTies(xs: number[], ys: number[]) {
  const rank = (v: number[]) => v.map((x) => [...v].sort((p, q) => p - q).indexOf(x) + 1)
  const rx = rank(xs)
  const ry = rank(ys)
  const n = xs.length
  const d2 = rx.reduce((s, r, i) => s + (r - ry[i]) ** 2, 0)
  return 1 - (6 * d2) / (n * (n * n - 1))
}

describe('runEvals agreement', () => {
  it('per scorer: κ with the confusion counts, MAE and ρ on constructed labels', async () => {
    const r: Any = await runEvals({ data, scorers: [{ scorer: tableScorer('j'), threshold: 0.5 }], maxErrors: 1 })
    const a = r.agreement.j
    expect([a.labeled, a.scored, a.unscored, a.numeric]).toEqual([8, 7, 1, 5])
    expect(a.confusion).toEqual({ bothPass: 3, bothFail: 2, judgePassLabelFail: 1, judgeFailLabelPass: 1 })
    expect(a.threshold).toBe('>= 0.5')
    expect(a.kappa).toBeCloseTo(kappaOf(3, 1, 1, 2), 12)
    expect(a.kappa).toBeCloseTo(0.4166666666666667, 12) // by hand: (5/7 − 25/49) / (24/49) = 10/24
    expect(a.observedAgreement).toBeCloseTo(5 / 7, 12)
    const judged = [0.9, 0.8, 0.6, 0.3, 0.1]
    const labels = [1.0, 0.7, 0.2, 0.4, 0.0]
    expect(a.mae).toBeCloseTo(judged.reduce((s, x, i) => s + Math.abs(x - labels[i]), 0) / 5, 12)
    expect(a.spearman).toBeCloseTo(rhoNoTies(judged, labels), 12) // 1 − 6·2/120 = 0.9
    expect(a.spearman).toBeCloseTo(0.9, 12)
    // the record keeps the labels, and summarizeItems recomputes the same numbers
    expect(r.items[0].expected).toEqual({ j: 1.0 })
    const again: Any = summarizeItems({ items: r.items, scorers: [{ id: 'j', threshold: 0.5 }], maxErrors: 1 })
    expect(again.agreement).toEqual(r.agreement)
  })

  it('no labels: no agreement key (the result shape is unchanged)', async () => {
    const r: Any = await runEvals({ data: [{ input: 'q', output: 'o', judged: 1 }], scorers: [tableScorer('j')] })
    expect('agreement' in r).toBe(false)
  })

  it('undefined statistics are null with a reason, never NaN; no threshold: half the scale', async () => {
    const r: Any = await runEvals({
      data: [
        { input: 'a', output: 'o', judged: 0.9, expected: { j: 'pass' } },
        { input: 'b', output: 'o', judged: 0.8, expected: { j: 'pass' } },
      ],
      scorers: [tableScorer('j')],
    })
    const a = r.agreement.j
    expect(a.threshold).toBe('>= 0.5 (no threshold set: half the scale)')
    expect([a.kappa, a.mae, a.spearman]).toEqual([null, null, null])
    expect(a.kappaReason).toMatch(/same side \(pass\).*undefined/)
    expect(a.spearmanReason).toMatch(/at least 2 scored items with numeric labels, got 0/)
  })

  it('a bad label or an unknown scorer id fails the run with a clear error, before the item’s target and scorers run', async () => {
    let calls = 0
    const counting = { id: 'j', async run() { calls++; return { score: 1 } } }
    const target = async () => {
      calls++
      return 'o'
    }
    const bad = await failure(runEvals({ data: [{ input: 'a', judged: 1, expected: { j: 'yes' } }], scorers: [counting], target }))
    expect(calls).toBe(0)
    expect(String(bad.message)).toContain(`item 0: expected["j"] must be a number, 'pass' or 'fail', got the string "yes"`)
    const unknown = await failure(runEvals({ data: [{ input: 'a', output: 'o', judged: 1, expected: { k: 1 } }], scorers: [tableScorer('j')] }))
    expect(String(unknown.message)).toContain('expected names the scorer "k", which is not in this run (scorers: j)')
  })
})

describe('surfaces', () => {
  it('the CLI summary, the HTML card and toAgreeWithLabels name the scorer, κ and the counts', async () => {
    const r: Any = await runEvals({ data, scorers: [{ scorer: tableScorer('j'), threshold: 0.5 }], maxErrors: 1 })
    const text = formatSummary({ run: r, scorers: [{ id: 'j', threshold: 0.5 }] })
    expect(text).toContain('agreement with your labels:')
    expect(text).toContain('j: κ 0.42 at >= 0.5 (judge/label pass/pass 3, fail/fail 2, pass/fail 1, fail/pass 1), MAE 0.16, ρ 0.90, 7 of 8 labeled items scored')
    const html = renderHtmlReport({ header: { scorers: [{ id: 'j', threshold: 0.5 }] }, summary: { ...r, items: undefined }, items: r.items })
    expect(html).toContain('agreement with your labels: κ 0.42 at &gt;= 0.5')

    expect(evalMatchers.toAgreeWithLabels(r, 0.4).pass).toBe(true)
    const miss = evalMatchers.toAgreeWithLabels(r, 0.5)
    expect(miss.pass).toBe(false)
    expect(miss.message()).toContain('expected κ ≥ 0.5 with the labels, but 1 scorer fell short:')
    expect(miss.message()).toContain('✗ j: κ 0.42 at >= 0.5 (judge/label pass/pass 3, fail/fail 2, pass/fail 1, fail/pass 1)')
    expect(() => evalMatchers.toAgreeWithLabels(r, 2)).toThrow(TypeError)
    const none: Any = await runEvals({ data: [{ input: 'q', output: 'o', judged: 1 }], scorers: [tableScorer('j')] })
    expect(evalMatchers.toAgreeWithLabels(none, 0.1).message()).toMatch(/no item of this run carries labels/)
    expect(evalMatchers.toAgreeWithLabels(r, 0.1, 'other').message()).toMatch(/scorer "other" has no labels/)
    // as a registered matcher
    registerEvalMatchers()
    expect(r).toAgreeWithLabels(0.4)
    expect(r).not.toAgreeWithLabels(0.9)
  })
})

describe('the CLI: run and merge report agreement from a dataset’s labels', () => {
  const server = useJudgeServer({ handler: heuristicJudge })
  const dir = tempDir('oxeval-agreement-')
  afterAll(() => dir.remove())

  it('prints one line per labeled scorer, keeps the labels in --out, and merge recomputes them', async () => {
    const id = 'answer-relevancy-scorer'
    // the heuristic judge: word overlap, so 1 for the on-topic answers and 0 for the others
    const data = dir.write(
      'data.jsonl',
      jsonl([
        { input: 'What is the capital of France?', output: 'Paris is the capital of France.', expected: { [id]: 'pass' } },
        { input: 'How many legs does a spider have?', output: 'I like turtles.', expected: { [id]: 0 } },
        { input: 'Who wrote Hamlet?', output: 'Shakespeare wrote Hamlet.', expected: { [id]: 1 } },
        { input: 'What is 2 + 2?', output: 'The weather is nice.', expected: { [id]: 'pass' } },
      ]),
    )
    const out = dir.p('out.jsonl')
    const r = await runCli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(server), '--threshold', 'answer-relevancy=0.5', '--out', out])
    expect(r.code).toBe(0)
    // pass/pass 2, fail/fail 1, fail/pass 1: pₒ = 3/4, pₑ = ½·¾ + ½·¼ = ½, κ = 0.5
    const line = `${id}: κ 0.50 at >= 0.5 (judge/label pass/pass 2, fail/fail 1, pass/fail 0, fail/pass 1), MAE 0.00, ρ 1.00, 4 of 4 labeled items scored`
    expect(r.stdout).toContain(`agreement with your labels:\n  ${line}`)
    // items are written as they finish: compare in index order
    const written = readOut(out).items.sort((a: Any, b: Any) => a.index - b.index)
    expect(written.map((it: Any) => it.expected[id])).toEqual(['pass', 0, 1, 'pass'])
    const m = await runCli(['merge', out])
    expect(m.code).toBe(0)
    expect(m.stdout).toContain(line)
  })
})
