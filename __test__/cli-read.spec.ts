// The reading side of `oxeval run` and `oxeval merge` (issue 18), run as the real bin in a child
// process against the scripted judge: a UTF-8 BOM, every CSV column reaching the scorers, the
// nesting bound on rows, streamed --data and merge inputs (a heap far smaller than the file),
// bad rows passed on as invalid items, and merge refusing missing, unfinished or foreign shards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { heuristicJudge, startJudgeServer, type JudgeServer, type RecordedRequest } from '../testing/judge-server.mjs'
import { judgeArgs, jsonl, readOut, root, runCli, tempDir } from './helpers/cli'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any

const DATASET: Array<Record<string, Any>> = JSON.parse(readFileSync(join(root, 'examples', 'dataset.json'), 'utf8'))

let judge: JudgeServer
const tmp = tempDir('oxeval-cli-read-')
const { p, write } = tmp
const cli = (args: string[], opts: Parameters<typeof runCli>[1] = {}) => runCli(args, { cwd: tmp.dir, ...opts })
beforeAll(async () => {
  judge = await startJudgeServer({ handler: heuristicJudge })
})
afterAll(async () => {
  await judge?.close()
  tmp.remove()
})

const nest = (depth: number, leaf: unknown = 'x'): unknown => {
  let v = leaf
  for (let i = 0; i < depth; i++) v = [v]
  return v
}
const csvCell = (s: string) => `"${String(s).replace(/"/g, '""')}"`
const scoreOf = (item: Any, id: string) => item.results?.[id]?.score

describe('reading rows', () => {
  it('a .jsonl with a UTF-8 BOM keeps its first row', async () => {
    const rows = DATASET.slice(0, 3).map((r, i) => ({ id: `bom-${i}`, input: r.input, output: r.output }))
    const data = write('bom.jsonl', `\ufeff${jsonl(rows)}`)
    const out = p('bom.out.jsonl')
    const r = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--out', out])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).not.toMatch(/skipped row/)
    const res = readOut(out)
    expect(res.header.totalItems).toBe(3)
    expect(res.items.map((i: Any) => i.id).sort()).toEqual(['bom-0', 'bom-1', 'bom-2'])
    expect(res.summary.skipped).toBeUndefined()
  })

  it('every CSV column reaches the scorers: the same row scores the same from CSV and JSONL (summarization, noise sensitivity)', async () => {
    const rows = DATASET.slice(0, 3).map((r, i) => ({ id: `r${i}`, input: r.input, output: r.source, source: r.source, baselineResponse: r.output, noisyQuery: r.noisyQuery }))
    const cols = ['id', 'input', 'output', 'source', 'baselineResponse', 'noisyQuery']
    const csv = [cols.join(','), ...rows.map((row: Any) => cols.map((c) => csvCell(row[c])).join(','))].join('\r\n')
    const scorers = ['summarization-scorer', 'noise-sensitivity-scorer']
    const results: Any[] = []
    const sent: string[] = []
    for (const [name, text] of [['cols.csv', csv], ['cols.jsonl', jsonl(rows)]]) {
      judge.reset()
      const out = p(`${name}.out.jsonl`)
      const r = await cli(['run', '--data', write(name, text), ...scorers.flatMap((s) => ['--scorer', s]), ...judgeArgs(judge), '--out', out])
      expect(r.code, r.stderr).toBe(0)
      results.push(readOut(out))
      sent.push(judge.requests.map((q: RecordedRequest) => q.text).join('\n'))
    }
    const [fromCsv, fromJsonl] = results
    for (const id of scorers) {
      expect(fromJsonl.summary.coverage[id], id).toEqual({ scored: 3, total: 3 })
      expect(fromJsonl.summary.scores[id], id).toBeGreaterThan(0.5)
      expect(fromCsv.summary.coverage[id], id).toEqual(fromJsonl.summary.coverage[id])
      expect(fromCsv.summary.scores[id], id).toBe(fromJsonl.summary.scores[id])
      const byId = (res: Any) => Object.fromEntries(res.items.map((it: Any) => [it.id, scoreOf(it, id)]))
      expect(byId(fromCsv), id).toEqual(byId(fromJsonl))
    }
    // the baseline answer reached the noise sensitivity judge from the CSV column
    expect(sent[0]).toContain(rows[0].baselineResponse)
  })

  it('a row nested deeper than 64 levels is a bad row with its line (.jsonl, .json, .csv); the other items run and are written', async () => {
    const good = DATASET.slice(0, 2).map((r) => ({ input: r.input, output: r.output }))
    // 5 000 deep, 10 KB: before, the --out writer overflowed the stack (exit 2, every item lost)
    const deepText = (n: number) => `${'['.repeat(n)}"x"${']'.repeat(n)}`
    const deep = `{"input":"deep?","output":"deep.","meta":${deepText(5000)}}`
    // 64 levels (the row itself is level 1) is accepted and survives the whole run
    const edge = { id: 'edge', input: good[0].input, output: good[0].output, meta: nest(63) }
    const cases: Array<[string, string, number]> = [
      ['deep.jsonl', jsonl([good[0], deep, edge, good[1]]), 2],
      ['deep.json', `[\n${[good[0], deep, edge, good[1]].map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join(',\n')}\n]`, 3],
      ['deep.csv', ['input,output,context', `${csvCell(good[0].input)},${csvCell(good[0].output)},`, `"deep?","deep.",${csvCell(deepText(5000))}`, `${csvCell(good[1].input)},${csvCell(good[1].output)},${csvCell(JSON.stringify(['a passage']))}`].join('\n'), 3],
    ]
    for (const [name, text, line] of cases) {
      const out = p(`${name}.out.jsonl`)
      const r = await cli(['run', '--data', write(name, text), '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--out', out])
      // the bad row is an item error (the run's verdict is the outcome rules'), never a crash
      expect([0, 1], `${name}: ${r.stderr}`).toContain(r.code)
      expect(r.stderr, name).toMatch(new RegExp(`${name.replace('.', '\\.')}:${line}: skipped row 1: .*nested deeper than 64 levels`))
      const res = readOut(out)
      expect(res.summary, name).not.toBeNull()
      expect(res.summary.skipped, name).toEqual([{ index: 1, line, message: expect.stringMatching(/nested deeper than 64 levels/) }])
      const scored = res.items.filter((i: Any) => typeof scoreOf(i, 'answer-relevancy-scorer') === 'number').map((i: Any) => i.index)
      expect(scored.sort(), name).toEqual(name.endsWith('.csv') ? [0, 2] : [0, 2, 3])
      if (!name.endsWith('.csv')) expect(res.items.find((i: Any) => i.index === 2).id).toBe('edge')
    }
  })
})

describe('row bounds and CSV headers', () => {
  it('a .jsonl line or .json element larger than the row limit is a bad row, not read (held across 1 MiB reads)', async () => {
    const { readRows } = await import('../cli/data.mjs')
    const big = 'x'.repeat(3 << 20)
    const files = [
      write('size.jsonl', jsonl([{ input: 'a', output: 'b' }, { input: big }, { input: 'c' }])),
      write('size.json', `[{"input":"a","output":"b"},\n{"input":"${big}"},\n{"input":"c"}]`),
    ]
    for (const file of files) {
      const rows: Any[] = []
      for await (const r of readRows(file, undefined, { maxRowBytes: 1 << 20 })) rows.push(r)
      expect(rows.map((r) => [r.index, r.line, r.error ?? null]), file).toEqual([
        [0, 1, null],
        [1, 2, 'a row of 3 MiB or more (the limit is 1 MiB)'],
        [2, 3, null],
      ])
      // with the default limit (256 MiB) the same row is an item
      const all: Any[] = []
      for await (const r of readRows(file)) all.push(r)
      expect(all[1].item.input, file).toBe(big)
    }
  })

  it('a CSV header without input, or naming a column twice, is a data error (exit 2)', async () => {
    for (const [name, text, message] of [
      ['noinput.csv', 'question,output\nq,a\n', /needs an "input" column/],
      ['twice.csv', 'input,output,output\nq,a,b\n', /names the column "output" twice/],
    ] as const) {
      const r = await cli(['run', '--data', write(name, text), '--scorer', 'answer-relevancy', ...judgeArgs(judge)])
      expect(r.code, name).toBe(2)
      expect(r.stderr, name).toMatch(message)
    }
  })
})

describe('bad rows are items', () => {
  it('every bad row reaches runEvals as an invalid item in its file position (stderr line and summary.skipped kept)', async () => {
    const rows = [
      { id: 'a', input: DATASET[0].input, output: DATASET[0].output },
      '{"id": "broken", "input": ',
      { id: 'ctx', input: 'q?', output: 'a.', context: [1, 2] },
      [1, 2],
      { id: 'b', input: DATASET[1].input, output: DATASET[1].output },
    ]
    const out = p('bad.out.jsonl')
    const r = await cli(['run', '--data', write('bad.jsonl', jsonl(rows)), '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--out', out])
    expect([0, 1], r.stderr).toContain(r.code)
    expect(r.stderr).toMatch(/bad\.jsonl:2: skipped row 1: invalid JSON/)
    expect(r.stderr).toMatch(/bad\.jsonl:3: skipped row 2: "context" must be an array of strings/)
    expect(r.stderr).toMatch(/bad\.jsonl:4: skipped row 3: expected an object, got an array/)
    // the summary's first line still counts the bad rows
    expect(r.stdout.split('\n')[0]).toMatch(/5 items .*\b3\b.* rows/)
    const res = readOut(out)
    // all five rows are items of the run, in their file positions
    expect(res.header.totalItems).toBe(5)
    expect(res.items.map((i: Any) => i.index).sort()).toEqual([0, 1, 2, 3, 4])
    const byIndex = Object.fromEntries(res.items.map((i: Any) => [i.index, i]))
    // runEvals turns each invalid item into an item error that names the file, line and why
    const why: Record<number, RegExp> = { 1: /^bad\.jsonl:2: invalid JSON/, 2: /^bad\.jsonl:3: "context" must be an array of strings$/, 3: /^bad\.jsonl:4: expected an object, got an array$/ }
    for (const k of [1, 2, 3]) expect(byIndex[k].targetError, `row ${k}`).toMatchObject({ code: 'OXEVAL_INVALID_INPUT', message: expect.stringMatching(why[k]) })
    // they count: 2 of 5 items scored
    expect(res.summary.coverage['answer-relevancy-scorer']).toMatchObject({ scored: 2, total: 5 })
    // what of a bad row is readable is kept: the id and input of the row with a bad context
    expect(byIndex[2]).toMatchObject({ id: 'ctx', input: 'q?' })
    expect(byIndex[2].results).toEqual({})
    for (const k of [0, 4]) expect(typeof scoreOf(byIndex[k], 'answer-relevancy-scorer')).toBe('number')
    expect(res.summary.skipped.map((s: Any) => [s.index, s.line])).toEqual([[1, 2], [2, 3], [3, 4]])
  })

  it('the invalid item carries Symbol.for("oxeval.invalidItem") = "<file>:<line>: <message>" (what runEvals reads)', async () => {
    const { shardItems, INVALID_ITEM } = await import('../cli/data.mjs')
    const file = write('sym.jsonl', jsonl([{ id: 'x', input: 'q', output: 'a' }, '{nope', { id: 7, input: 'q2', context: 3 }]))
    const items: Any[] = []
    for await (const it of shardItems(file, null)) items.push(it)
    expect(INVALID_ITEM).toBe(Symbol.for('oxeval.invalidItem'))
    expect(items).toHaveLength(3)
    const plain = (o: Any) => Object.fromEntries(Object.entries(o))
    expect(items[0]).toEqual({ id: 'x', input: 'q', output: 'a' })
    expect(items[0][INVALID_ITEM]).toBeUndefined()
    expect(items[1][INVALID_ITEM]).toMatch(/^sym\.jsonl:2: invalid JSON/)
    expect(Object.keys(items[1])).toEqual([])
    expect(plain(items[2])).toEqual({ id: '7', input: 'q2' })
    expect(items[2][INVALID_ITEM]).toBe('sym.jsonl:3: "context" must be an array of strings')
    // shards keep file positions: row 1 and only row 1 belongs to shard 2/2
    const shard: Any[] = []
    for await (const it of shardItems(file, { index: 2, count: 2 })) shard.push(it)
    expect(shard).toHaveLength(1)
    expect(shard[0][INVALID_ITEM]).toMatch(/^sym\.jsonl:2:/)
  })
})

describe('streamed --data and merge inputs', () => {
  // A heap of 64 MB cannot hold a file of 120 MB as one string (readFileSync(…, 'utf8') then
  // split): before, each of these died of heap exhaustion. Streamed, only a line is held.
  const HEAP = ['--max-old-space-size=64']
  const env = { NODE_OPTIONS: HEAP.join(' ') }
  const padded = (rows: string[], filler: string, size: number) => {
    // the rows spread through `size` bytes of `filler` lines (blank for JSONL/CSV, whitespace in a JSON array)
    const block = Buffer.from(filler.repeat(Math.ceil(size / rows.length / filler.length)))
    const parts: Buffer[] = []
    for (const r of rows) parts.push(Buffer.from(r), block)
    return Buffer.concat(parts)
  }
  const rows = DATASET.slice(0, 3).map((r, i) => ({ id: `s${i}`, input: r.input, output: r.output }))

  it('.jsonl, .json and .csv of 120 MB run under a 64 MB heap; every row is found, with its line', async () => {
    const lineText = rows.map((r) => `${JSON.stringify(r)}\n`)
    const cases: Array<[string, Buffer]> = [
      ['big.jsonl', padded(lineText, `${' '.repeat(1023)}\n`, 120e6)],
      ['big.json', Buffer.concat([Buffer.from('['), padded(rows.map((r, i) => `${i ? ',' : ''}${JSON.stringify(r)}`), `\n${' '.repeat(1023)}`, 120e6), Buffer.from(']\n')])],
      ['big.csv', Buffer.concat([Buffer.from('id,input,output\n'), padded(rows.map((r) => `${[r.id, r.input, r.output].map(csvCell).join(',')}\n`), '\n', 120e6)])],
    ]
    for (const [name, bytes] of cases) {
      writeFileSync(p(name), bytes)
      const out = p(`${name}.out.jsonl`)
      const r = await cli(['run', '--data', p(name), '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--out', out, '--no-progress'], { env, timeoutMs: 120000 })
      expect(r.code, `${name}: ${r.stderr.slice(0, 2000)}`).toBe(0)
      const res = readOut(out)
      expect(res.header.totalItems, name).toBe(3)
      expect(res.header.dataset.bytes, name).toBe(bytes.length)
      expect(res.items.map((i: Any) => i.id).sort(), name).toEqual(['s0', 's1', 's2'])
      expect(res.summary.coverage['answer-relevancy-scorer'], name).toEqual({ scored: 3, total: 3 })
    }
  }, 300000)

  it('merge reads a 120 MB results file under a 64 MB heap', async () => {
    const data = write('m-big.jsonl', jsonl(rows))
    const out = p('m-big.out.jsonl')
    expect((await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--out', out])).code).toBe(0)
    const recs = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => `${l}\n`)
    writeFileSync(p('m-big.padded.jsonl'), Buffer.concat([Buffer.from(recs[0]), padded(recs.slice(1), `${' '.repeat(1023)}\n`, 120e6)]))
    const r = await cli(['merge', p('m-big.padded.jsonl'), '--out', p('m-big.merged.jsonl')], { env, timeoutMs: 120000 })
    expect(r.code, r.stderr.slice(0, 2000)).toBe(0)
    expect(readOut(p('m-big.merged.jsonl')).summary.scores).toEqual(readOut(out).summary.scores)
  }, 300000)
})

describe('merge refuses what is not one whole run (exit 2, naming the file)', () => {
  const rows = DATASET.slice(0, 6).map((r) => ({ input: r.input, output: r.output }))
  const args = ['--scorer', 'answer-relevancy', '--threshold', 'answer-relevancy=0.2']
  const run = async (data: string, shard: string | null, out: string) => {
    const r = await cli(['run', '--data', data, ...args, ...judgeArgs(judge), ...(shard ? ['--shard', shard] : []), '--out', out])
    expect(r.code, r.stderr).toBe(0)
    return out
  }
  const records = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
  const rewrite = (from: string, to: string, edit: (recs: Any[]) => Any[]) => {
    writeFileSync(to, edit(records(from)).map((r) => `${JSON.stringify(r)}\n`).join(''))
    return to
  }
  let data: string
  let s1: string
  let s2: string
  let s3: string
  let full: string
  beforeAll(async () => {
    data = write('m.jsonl', jsonl(rows))
    full = await run(data, null, p('m-full.jsonl'))
    s1 = await run(data, '1/3', p('m-1.jsonl'))
    s2 = await run(data, '2/3', p('m-2.jsonl'))
    s3 = await run(data, '3/3', p('m-3.jsonl'))
  }, 60000)

  it('the header records the dataset fingerprint (sha-256, bytes, rows) and the shard', async () => {
    const { createHash } = await import('node:crypto')
    const bytes = readFileSync(data)
    const h = records(s2)[0]
    expect(h.dataset).toEqual({ sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length, rows: 6 })
    expect(h.shard).toEqual({ index: 2, count: 3 })
    expect(records(full)[0].dataset).toEqual(h.dataset)
  })

  it('happy paths: all shards give exactly the unsharded result; one unsharded file merges alone', async () => {
    const m = await cli(['merge', s3, s1, s2, '--out', p('m-merged.jsonl')])
    expect(m.code, m.stderr).toBe(0)
    const a = readOut(full)
    const b = readOut(p('m-merged.jsonl'))
    for (const key of ['scores', 'stats', 'coverage', 'errors', 'summary', 'thresholdResults']) expect(b.summary[key], key).toEqual(a.summary[key])
    expect(b.items.map((i: Any) => i.index)).toEqual([0, 1, 2, 3, 4, 5])
    const alone = await cli(['merge', full, '--out', p('m-alone.jsonl')])
    expect(alone.code, alone.stderr).toBe(0)
    expect(readOut(p('m-alone.jsonl')).summary.scores).toEqual(a.summary.scores)
    // a merged file carries the fingerprint on: it merges alone again
    expect((await cli(['merge', p('m-merged.jsonl')])).code).toBe(0)
  })

  it('a missing shard, a shard given twice, different shard counts', async () => {
    const missing = await cli(['merge', s1, s3])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/shard 2\/3 missing \(given: .*m-1\.jsonl \(1\/3\), .*m-3\.jsonl \(3\/3\)\)/)
    const copy = p('m-2-copy.jsonl')
    writeFileSync(copy, readFileSync(s2))
    const twice = await cli(['merge', s1, s2, s3, copy])
    expect(twice.code).toBe(2)
    expect(twice.stderr).toMatch(/m-2-copy\.jsonl: shard 2\/3 given twice \(also .*m-2\.jsonl\)/)
    const two = await run(data, '2/2', p('m-2of2.jsonl'))
    const counts = await cli(['merge', s1, s2, s3, two])
    expect(counts.code).toBe(2)
    expect(counts.stderr).toMatch(/m-2of2\.jsonl: shard 2\/2, but .*m-1\.jsonl is shard 1\/3: different shard counts/)
    const whole = await cli(['merge', full, s1])
    expect(whole.code).toBe(2)
    expect(whole.stderr).toMatch(/m-full\.jsonl: not a shard/)
  })

  it('a shard of another dataset', async () => {
    const other = write('m-other.jsonl', jsonl([...rows.slice(0, 5), { input: 'a different row', output: 'so a different file' }]))
    const foreign = await run(other, '2/3', p('m-2-other.jsonl'))
    const r = await cli(['merge', s1, foreign, s3])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/m-2-other\.jsonl: another dataset than .*m-1\.jsonl \(sha-256 [0-9a-f]{12}…, 6 rows vs sha-256 [0-9a-f]{12}…, 6 rows\)/)
  })

  it('an unfinished shard (no summary line), an interrupted one (aborted), one without a fingerprint (older format)', async () => {
    const unfinished = rewrite(s2, p('m-2-unfinished.jsonl'), (recs) => recs.slice(0, -1))
    const a = await cli(['merge', s1, unfinished, s3])
    expect(a.code).toBe(2)
    expect(a.stderr).toMatch(/m-2-unfinished\.jsonl: unfinished: no summary line/)
    const aborted = rewrite(s2, p('m-2-aborted.jsonl'), (recs) => [...recs.slice(0, -1), { ...recs[recs.length - 1], aborted: true }])
    const b = await cli(['merge', s1, aborted, s3])
    expect(b.code).toBe(2)
    expect(b.stderr).toMatch(/m-2-aborted\.jsonl: interrupted: its summary says aborted/)
    const older = rewrite(s2, p('m-2-older.jsonl'), (recs) => {
      const { dataset: _d, ...header } = recs[0]
      return [header, ...recs.slice(1)]
    })
    const c = await cli(['merge', s1, older, s3])
    expect(c.code).toBe(2)
    expect(c.stderr).toMatch(/m-2-older\.jsonl: no dataset fingerprint in its header \(written by an older oxeval\)/)
    // several problems: one line each
    const d = await cli(['merge', unfinished, older])
    expect(d.code).toBe(2)
    expect(d.stderr).toMatch(/cannot merge \(\d+ problems\):/)
    expect(d.stderr).toMatch(/m-2-unfinished\.jsonl: unfinished/)
    expect(d.stderr).toMatch(/m-2-older\.jsonl: no dataset fingerprint/)
    expect(d.stderr).toMatch(/m-2-older\.jsonl: shard 2\/3 given twice/)
    expect(d.stderr).toMatch(/shards 1\/3, 3\/3 missing/)
  })
})
