// `oxeval compare` in a child process, on constructed --out files with known statistics, and
// on two real runs of the CLI against the scripted judge.
import { afterAll, describe, expect, it } from 'vitest'
import { fromMarkdown } from 'mdast-util-from-markdown'
import { gfmFromMarkdown } from 'mdast-util-gfm'
import { gfm } from 'micromark-extension-gfm'
import { runCli, tempDir } from './helpers/cli'
import type { Any } from './helpers/setup'

const t = tempDir('oxeval-compare-')
afterAll(() => t.remove())

/** An --out file: header, items (`scores[id]` per item), summary. */
function outFile(name: string, scorers: { id: string; direction?: string }[], items: { id?: string; input: unknown; scores: Record<string, number | null>; reason?: string }[]) {
  const header = { type: 'run', version: 'test', scorers: scorers.map((s) => ({ id: s.id })), gates: [], trials: 1, scorerInfo: Object.fromEntries(scorers.map((s) => [s.id, { direction: s.direction ?? 'higher', scale: 1 }])) }
  const lines = [header, ...items.map((it, index) => ({ type: 'item', index, ...(it.id !== undefined ? { id: it.id } : {}), input: it.input, output: 'o', results: Object.fromEntries(Object.entries(it.scores).filter(([, v]) => v !== null).map(([k, v]) => [k, { score: v, reason: it.reason ?? `r${index}` }])) })), { type: 'summary' }]
  return t.write(name, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
}

const N = 20
// relevance drops by 0.01·(i+1) on every item: W+ = 0 of 20 distinct ranks → exact p = 2/2^20
const base = outFile('base.jsonl', [{ id: 'relevance' }, { id: 'hallucination', direction: 'lower' }], Array.from({ length: N }, (_, i) => ({ id: `q${i}`, input: `question ${i}`, scores: { relevance: 0.9, hallucination: 0.5 } })))
const head = outFile(
  'head.jsonl',
  [{ id: 'relevance' }, { id: 'hallucination', direction: 'lower' }],
  [
    ...Array.from({ length: N }, (_, i) => ({ id: `q${i}`, input: `question ${i}`, scores: { relevance: 0.9 - 0.01 * (i + 1), hallucination: 0.5 - 0.01 * (i + 1) }, reason: i === N - 1 ? 'lost the point' : undefined })),
    { id: 'new-1', input: 'a new question', scores: { relevance: 1, hallucination: 0 } },
  ],
)

async function json(args: string[]) {
  const r = await runCli(['compare', base, head, '--format', 'json', ...args])
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}

describe('oxeval compare', () => {
  it('a paired, direction-aware test: relevance regressed (p = 2/2^20), hallucination (lower is better) improved', async () => {
    const c: Any = await json([])
    expect(c.pairedBy).toBe('id')
    expect(c.sharedItems).toBe(N)
    const rel = c.scorers.find((s: Any) => s.id === 'relevance')
    const hal = c.scorers.find((s: Any) => s.id === 'hallucination')
    expect(rel.delta).toBeCloseTo(-0.105, 12)
    expect(rel.pValue).toBeCloseTo(2 / 2 ** 20, 15)
    expect(rel.regressed).toBe(true)
    expect(rel.ci95[0]).toBeLessThan(rel.delta)
    expect(rel.ci95[1]).toBeLessThan(0)
    expect([hal.regressed, hal.improved]).toEqual([false, true])
    expect(c.newItems).toEqual(['new-1'])
    expect(c.missingItems).toEqual([])
    // the worst item first, with its reason
    expect(c.worstItems[0]).toMatchObject({ scorer: 'relevance', item: `q${N - 1}`, reason: 'lost the point' })
    expect(c.method).toMatch(/Wilcoxon signed-rank/)
  })

  it('--min-effect and --alpha decide; --fail-on-regression exits 1 only on a regression', async () => {
    expect((await json(['--min-effect', '0.2'])).scorers[0].regressed).toBe(false)
    expect((await json(['--alpha', '0.000001'])).scorers[0].regressed).toBe(false)
    const fail = await runCli(['compare', base, head, '--fail-on-regression'])
    expect(fail.code).toBe(1)
    expect(fail.stdout).toMatch(/relevance .*REGRESSED/)
    const same = await runCli(['compare', base, base, '--fail-on-regression'])
    expect(same.code).toBe(0)
    expect(same.stdout).toMatch(/no significant change/)
  })

  it('three items can never show a significant change: it says so (not "no significant change"); a larger run states what it could detect', async () => {
    const few = (name: string, score: number) => outFile(name, [{ id: 'relevance' }], [0, 1, 2].map((i) => ({ id: `s${i}`, input: `q${i}`, scores: { relevance: score } })))
    const r = await runCli(['compare', few('few-base.jsonl', 1), few('few-head.jsonl', 0), '--format', 'json'])
    const s = JSON.parse(r.stdout).scorers[0]
    expect([s.regressed, s.canDetect, s.minPairs]).toEqual([false, false, 6])
    const text = await runCli(['compare', t.p('few-base.jsonl'), t.p('few-head.jsonl')])
    expect(text.stdout).toMatch(/relevance .*too few items to detect any change \(a paired test at this α needs ≥ 6\)/)
    expect(text.stdout).not.toMatch(/no significant change/)
    const md = await runCli(['compare', t.p('few-base.jsonl'), t.p('few-head.jsonl'), '--format', 'markdown'])
    expect(md.stdout).toMatch(/too few items \(≥ 6 needed\)/)
    // 20 pairs: it could detect, and says how small a change it would have found; at
    // α = 1e-6 even 20 pairs cannot (2 / 2^20 is the smallest p), and it says that instead
    const c: Any = await json(['--min-effect', '0.2'])
    expect(c.scorers[0]).toMatchObject({ canDetect: true, regressed: false, minPairs: 6 })
    expect(c.scorers[0].detectable).toBeGreaterThan(0)
    expect((await json(['--alpha', '0.000001'])).scorers[0]).toMatchObject({ canDetect: false, minPairs: 21 })
  })

  it('--format markdown renders as a GitHub table with the regression called out', async () => {
    const r = await runCli(['compare', base, head, '--format', 'markdown'])
    expect(r.code).toBe(0)
    const tree: Any = fromMarkdown(r.stdout, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] })
    const table = tree.children.find((n: Any) => n.type === 'table')
    const cells = (row: Any) => row.children.map((c: Any) => c.children.map((x: Any) => x.value ?? x.children?.map((y: Any) => y.value).join('')).join(''))
    expect(cells(table.children[0]).slice(0, 4)).toEqual(['scorer', 'base', 'head', 'Δ'])
    const rel = table.children.map(cells).find((c: string[]) => c[0] === 'relevance')
    expect(rel[3]).toBe('-0.105')
    expect(rel[7]).toMatch(/regressed/)
    const strong = tree.children.find((n: Any) => n.type === 'paragraph' && n.children.some((c: Any) => c.type === 'strong'))
    expect(strong).toBeTruthy()
    // the items only one run has are listed, not only counted
    expect(r.stdout).toContain('<details><summary>New items: 1 (in head only: not compared)</summary>\n\n- new-1\n')
    expect(r.stdout).not.toContain('Missing items')
    const swapped = await runCli(['compare', head, base, '--format', 'markdown'])
    expect(swapped.stdout).toContain('<details><summary>Missing items: 1 (in base only: not compared)</summary>\n\n- new-1\n')
    const text = await runCli(['compare', base, head])
    expect(text.stdout).toMatch(/new items: 1, missing items: 0\n {2}new {2}new-1\n/)
  })

  it('oxeval run --base prints the comparison after the run (its exit status stays the run\'s)', async () => {
    const { jsonl } = await import('./helpers/cli')
    const { writeFileSync } = await import('node:fs')
    const mod = t.write('s.mjs', `import ox from ${JSON.stringify(`${process.cwd()}/index.js`)}\nexport default ox.createScorer({ id: 'len', description: 'l' }).generateScore(({ run }) => Math.min(1, String(run.output).length / 10))\n`)
    const data = t.write('d.jsonl', jsonl([{ id: 'a', input: 'q', output: 'short' }, { id: 'b', input: 'q', output: 'a bit longer' }]))
    const first = t.p('first.jsonl')
    expect((await runCli(['run', '--data', data, '--scorers', mod, '--out', first, '--no-progress'])).code).toBe(0)
    writeFileSync(data, jsonl([{ id: 'a', input: 'q', output: 'sh' }, { id: 'b', input: 'q', output: 'a bit' }]))
    const r = await runCli(['run', '--data', data, '--scorers', mod, '--out', t.p('second.jsonl'), '--base', first, '--no-progress'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/oxeval compare: 2 paired items \(by id\)/)
    expect(r.stdout).toMatch(/len +0\.750 +0\.350 +-0\.400/)
    // without --out the run is compared from the results store; without either, a usage error
    const store = t.p('store.db')
    const noOut = await runCli(['run', '--data', data, '--scorers', mod, '--base', first, '--store', store, '--no-progress'])
    expect(noOut.code, noOut.stderr).toBe(0)
    expect(noOut.stdout).toMatch(/len +0\.750 +0\.350 +-0\.400/)
    const bad = await runCli(['run', '--data', data, '--scorers', mod, '--base', first, '--no-store'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--base needs --out FILE or the results store/)
  })

  it('items without ids pair by input; no shared scorer, a missing file or a bad flag exit 2', async () => {
    const a = outFile('a.jsonl', [{ id: 's' }], [{ input: { q: 1, w: [2] }, scores: { s: 1 } }, { input: 'x', scores: { s: 0 } }])
    const b = outFile('b.jsonl', [{ id: 's' }], [{ input: { w: [2], q: 1 }, scores: { s: 0.5 } }, { input: 'y', scores: { s: 1 } }])
    const r = await runCli(['compare', a, b, '--format', 'json'])
    const c = JSON.parse(r.stdout)
    expect(c.pairedBy).toBe('input')
    expect(c.sharedItems).toBe(1)
    expect([c.newItems, c.missingItems]).toEqual([['y'], ['x']])
    const other = outFile('other.jsonl', [{ id: 'z' }], [{ input: 'x', scores: { z: 1 } }])
    for (const args of [[a, other], [a, t.p('nope.jsonl')], [a, b, '--alpha', '2'], [a, b, '--format', 'html'], [a]]) {
      const bad = await runCli(['compare', ...args])
      expect(bad.code, JSON.stringify(args)).toBe(2)
    }
  })
})
