// The `oxeval` command (cli/oxeval.mjs) run as a child process against the local scripted judge
// (testing/judge-server.mjs): exit codes, data formats and bad rows, scorer names, shards and
// their merge (exactly the unsharded numbers), resuming with --cache, Ctrl-C, progress lines
// and secrets in the outputs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { heuristicJudge, startJudgeServer, type JudgeServer, type RecordedRequest } from '../testing/judge-server.mjs'
import { runCli, type CliOptions, type CliResult } from './helpers/cli'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any

const root = fileURLToPath(new URL('..', import.meta.url))
const CLI = join(root, 'cli', 'oxeval.mjs')
const require = createRequire(import.meta.url)
const REGISTRY: Array<{ id: string; factory: string }> = require('../generated/scorers.js')
const VERSION: string = require('../package.json').version
const DATASET: Array<{ input: string; output: string; groundTruth: string }> = JSON.parse(readFileSync(join(root, 'examples', 'dataset.json'), 'utf8'))

/** Runs the CLI in this spec's folder (async: the judge server answers from this process meanwhile). */
function cli(args: string[], opts: Omit<CliOptions, 'cwd'> = {}): Promise<CliResult> {
  return runCli(args, { ...opts, cwd: dir })
}

let dir: string
let judge: JudgeServer
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'oxeval-cli-'))
  judge = await startJudgeServer({ handler: heuristicJudge })
})
afterAll(async () => {
  await judge?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const p = (name: string) => join(dir, name)
const write = (name: string, text: string) => {
  writeFileSync(p(name), text)
  return p(name)
}
const jsonl = (rows: unknown[]) => rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n'
/** Flags for the scripted judge at `server`. */
const judgeArgs = (server: JudgeServer = judge) => ['--model', 'openai/scripted-judge', '--model-url', server.url]

interface ResultsFile {
  header: Any
  items: Any[]
  summary: Any
}
function readOut(file: string): ResultsFile {
  const recs = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l))
  expect(recs[0].type).toBe('run')
  const last = recs[recs.length - 1]
  return { header: recs[0], items: recs.filter((r) => r.type === 'item'), summary: last.type === 'summary' ? last : null }
}

describe('help, version, usage errors (exit 2)', () => {
  it('--help, run --help, merge --help, --version exit 0; every registry scorer is listed', async () => {
    const top = await cli(['--help'])
    expect(top.code).toBe(0)
    expect(top.stdout).toMatch(/oxeval run/)
    expect(top.stdout).toMatch(/oxeval merge/)
    const runHelp = await cli(['run', '--help'])
    expect(runHelp.code).toBe(0)
    for (const flag of ['--data', '--scorer', '--model', '--model-url', '--threshold', '--trials', '--cache', '--cache-mode', '--out', '--junit', '--html', '--shard', '--gate', '--option', '--concurrency']) {
      expect(runHelp.stdout).toContain(flag)
    }
    for (const s of REGISTRY) {
      expect(top.stdout).toContain(s.id)
      expect(runHelp.stdout).toContain(s.factory)
    }
    const mergeHelp = await cli(['merge', '--help'])
    expect(mergeHelp.code).toBe(0)
    expect(mergeHelp.stdout).toMatch(/Usage: oxeval merge/)
    const v = await cli(['--version'])
    expect(v.code).toBe(0)
    expect(v.stdout.trim()).toBe(VERSION)
  })

  it('an unknown scorer exits 2 and lists the valid names', async () => {
    const data = write('one.jsonl', jsonl([{ input: 'q', output: 'a' }]))
    const r = await cli(['run', '--data', data, '--scorer', 'answer-relevance', ...judgeArgs()])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/unknown scorer "answer-relevance"/)
    for (const s of REGISTRY) {
      expect(r.stderr).toContain(s.id)
      expect(r.stderr).toContain(s.id.replace(/-scorer$/, ''))
      expect(r.stderr).toContain(s.factory)
    }
    expect(judge.requests).toHaveLength(0)
  })

  it.each([
    ['no --data', ['run', '--scorer', 'answer-relevancy', '--model', 'openai/x'], /--data FILE is required/],
    ['no --scorer', ['run', '--data', 'x.jsonl', '--model', 'openai/x'], /--scorer NAME is required/],
    ['an unknown flag', ['run', '--data', 'x.jsonl', '--scorer', 'answer-relevancy', '--model', 'openai/x', '--colour'], /Unknown option '--colour'/],
    ['an unknown command', ['evaluate'], /unknown command "evaluate"/],
    ['a bad --shard', ['run', '--data', 'x.jsonl', '--scorer', 'answer-relevancy', '--model', 'openai/x', '--shard', '4/3'], /--shard must be k\/n/],
    ['a bad --threshold', ['run', '--data', 'x.jsonl', '--scorer', 'answer-relevancy', '--model', 'openai/x', '--threshold', 'answer-relevancy=high'], /"high" is not a number/],
    ['a threshold for a scorer not run', ['run', '--data', 'x.jsonl', '--scorer', 'answer-relevancy', '--model', 'openai/x', '--threshold', 'factual-correctness=0.5'], /not one of the --scorer scorers/],
    ['a bad --cache-mode', ['run', '--data', 'x.jsonl', '--scorer', 'answer-relevancy', '--model', 'openai/x', '--cache', 'c', '--cache-mode', 'sometimes'], /--cache-mode must be auto, record or replay/],
    ['a bad --concurrency', ['run', '--data', 'x.jsonl', '--scorer', 'answer-relevancy', '--model', 'openai/x', '--concurrency', '0'], /--concurrency must be an integer/],
    ['no model', ['run', '--data', 'x.jsonl', '--scorer', 'answer-relevancy'], /--model PROVIDER\/MODEL is required/],
  ])('%s exits 2', async (_name, args, message) => {
    const r = await cli(args)
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toMatch(message)
    expect(r.stdout).toBe('')
  })

  it('an unreadable file, an empty file, a .json that is not an array, an unknown extension: exit 2', async () => {
    const cases: Array<[string, RegExp]> = [
      [p('missing.jsonl'), /cannot read the file \(ENOENT\)/],
      [write('empty.jsonl', '\n\n'), /no valid items/],
      [write('obj.json', '{"input":"q"}'), /must be an array of items/],
      [write('broken.json', '[{"input":'), /not valid JSON/],
      [write('data.txt', 'input\nq\n'), /unknown format "\.txt"/],
      [write('allbad.jsonl', jsonl(['{oops', { output: 'no input' }])), /no valid items \(2 bad rows\)/],
    ]
    for (const [file, message] of cases) {
      const r = await cli(['run', '--data', file, '--scorer', 'answer-relevancy', ...judgeArgs()])
      expect(r.code, `${file}: ${r.stderr}`).toBe(2)
      expect(r.stderr).toMatch(message)
    }
    expect(judge.requests).toHaveLength(0)
  })

  it('an --out, --html or --junit that cannot be written is exit 2 before any judge call', async () => {
    const data = write('w.jsonl', jsonl([{ input: 'q', output: 'a' }]))
    judge.reset()
    for (const flag of ['--out', '--html', '--junit']) {
      const r = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(), flag, p('no-such-dir/file')])
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toMatch(new RegExp(`${flag} .*no-such-dir/file: cannot write`))
    }
    expect(judge.requests).toHaveLength(0)
  })

  it('a factory option the scorer rejects is a usage error naming it (--option reaches the factory)', async () => {
    const data = write('opt.jsonl', jsonl([{ input: 'q', output: 'a' }]))
    const r = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(), '--option', 'answer-relevancy.modelSettings.temperature=7'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/temperature/)
    expect(r.stderr).toMatch(/answer-relevancy-scorer/)
  })
})

describe('data formats and bad rows', () => {
  const items = DATASET.slice(0, 4)

  it('bad JSONL rows are reported with their line numbers and counted as unscored items: exit 1 unless --max-errors allows them', async () => {
    const text = [
      JSON.stringify(items[0]),
      '{"input": "unterminated',
      '',
      JSON.stringify(items[1]),
      '[1, 2, 3]',
      JSON.stringify({ output: 'an answer without a question' }),
      JSON.stringify(items[2]),
    ].join('\n')
    const data = write('bad-rows.jsonl', text)
    const out = p('bad-rows.out.jsonl')
    // a bad row is an item that was not scored: the run fails unless they are allowed
    const strict = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs()])
    expect(strict.code, strict.stdout).toBe(1)
    expect(strict.stdout).toMatch(/outcome: failed/)
    expect(strict.stdout).toContain('3 of 6 items were not scored (allowed: 0')
    const r = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(), '--out', out, '--max-errors', '3'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/outcome: passed/)
    expect(r.stderr).toMatch(/bad-rows\.jsonl:2: skipped row 1: invalid JSON/)
    expect(r.stderr).toMatch(/bad-rows\.jsonl:5: skipped row 3: expected an object, got an array/)
    expect(r.stderr).toMatch(/bad-rows\.jsonl:6: skipped row 4: missing "input"/)
    expect(r.stdout).toMatch(/6 items \(3 of them unreadable rows\)/)
    const res = readOut(out)
    expect(res.header.totalItems).toBe(6)
    // item indexes are row indexes in the file (bad rows counted, blank lines not); bad rows are items too
    expect(res.items.map((i) => i.index).sort()).toEqual([0, 1, 2, 3, 4, 5])
    expect(res.items.find((i) => i.index === 5).input).toBe(items[2].input)
    expect(res.items.find((i) => i.index === 1).targetError).toMatchObject({ code: 'OXEVAL_INVALID_INPUT' })
    expect(res.summary.skipped.map((s: Any) => s.line)).toEqual([2, 5, 6])
    expect(res.summary.coverage['answer-relevancy-scorer']).toEqual({ scored: 3, total: 6 })
  })

  it('.csv, .json and .jsonl of the same items give the same results', async () => {
    const csvCell = (s: string) => `"${s.replace(/"/g, '""')}"`
    const csv = ['id,input,output,groundTruth', ...items.map((it, i) => [`row-${i}`, it.input, it.output, it.groundTruth].map(csvCell).join(','))].join('\n')
    const withIds = items.map((it, i) => ({ id: `row-${i}`, ...it }))
    const files = [write('same.csv', csv), write('same.json', JSON.stringify(withIds, null, 2)), write('same.jsonl', jsonl(withIds))]
    const outs: ResultsFile[] = []
    for (const [i, file] of files.entries()) {
      const out = p(`same-${i}.out.jsonl`)
      const r = await cli(['run', '--data', file, '--scorer', 'answer-relevancy', '--scorer', 'factual-correctness', ...judgeArgs(), '--out', out])
      expect(r.code, r.stderr).toBe(0)
      outs.push(readOut(out))
    }
    const scores = outs.map((o) => o.summary.scores)
    expect(scores[0]['answer-relevancy-scorer']).toBeTypeOf('number')
    expect(scores[1]).toEqual(scores[0])
    expect(scores[2]).toEqual(scores[0])
    const view = (o: ResultsFile) =>
      o.items
        .map((it) => ({ index: it.index, id: it.id, input: it.input, output: it.output, groundTruth: it.groundTruth }))
        .sort((a, b) => a.index - b.index)
    expect(view(outs[0])).toEqual(view(outs[2]))
    expect(view(outs[1])).toEqual(view(outs[2]))
  })

  it('.csv context (JSON array or "|"-separated) reaches the judge; a bad context cell is a skipped row', async () => {
    const csv = [
      'input,output,context',
      '"Where is Paris?","Paris is in France.","[""Paris is the capital of France."", ""France is in Europe.""]"',
      '"Where is Rome?","Rome is in Italy.","Rome is the capital of Italy.|Italy is in Europe."',
      '"Where is Oslo?","Oslo is in Norway.","[not json"',
    ].join('\n')
    const data = write('ctx.csv', csv)
    judge.reset()
    const r = await cli(['run', '--data', data, '--scorer', 'response-groundedness', ...judgeArgs(), '--max-errors', '1'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/ctx\.csv:4: skipped row 2: "context" is not a valid JSON array/)
    const text = judge.requests.map((q: RecordedRequest) => q.text).join('\n')
    for (const passage of ['Paris is the capital of France.', 'France is in Europe.', 'Rome is the capital of Italy.', 'Italy is in Europe.']) expect(text).toContain(passage)
    expect(text).not.toContain('Oslo')
  })
})

describe('exit codes: thresholds and gates', () => {
  const data = () => write('thr.jsonl', jsonl(DATASET))

  it('exit 0 when every threshold holds, 1 when a mean misses its threshold', async () => {
    const args = ['run', '--data', data(), '--scorer', 'answer-relevancy', ...judgeArgs()]
    const base = await cli(args)
    expect(base.code).toBe(0)
    const mean = Number(/answer-relevancy-scorer\s+([\d.]+)/.exec(base.stdout)?.[1])
    expect(mean).toBeGreaterThan(0.1)
    expect(mean).toBeLessThan(0.95)
    const pass = await cli([...args, '--threshold', `answer-relevancy=${(mean - 0.05).toFixed(3)}`])
    expect(pass.code, pass.stdout).toBe(0)
    expect(pass.stdout).toMatch(/PASS/)
    const fail = await cli([...args, '--threshold', `answer-relevancy-scorer=${(mean + 0.05).toFixed(3)}`])
    expect(fail.code, fail.stdout).toBe(1)
    expect(fail.stdout).toMatch(/FAIL/)
    expect(fail.stdout).toMatch(/verdict: scored \(scored: every item was scored and the gates passed, but a scorer missed its threshold; this is not a pass\)/)
    expect(fail.stdout).toMatch(/✗ "answer-relevancy-scorer" mean [\d.]+ is below the minimum [\d.]+/)
    const max = await cli([...args, '--threshold', `createAnswerRelevancyScorer=<=${(mean - 0.05).toFixed(3)}`])
    expect(max.code, max.stdout).toBe(1)
    // a maximum is missed from above, and the words say so
    expect(max.stdout).toMatch(/✗ "answer-relevancy-scorer" mean [\d.]+ is above the maximum [\d.]+/)
    expect(max.stdout).not.toMatch(/below/)
  })

  it('a gate every item must pass with 1: exit 1 when one item scores less', async () => {
    const ok = write('gate-ok.jsonl', jsonl([DATASET[0]]))
    expect((await cli(['run', '--data', ok, '--scorer', 'factual-correctness', '--gate', 'answer-relevancy', ...judgeArgs()])).code).toBe(0)
    const r = await cli(['run', '--data', data(), '--scorer', 'factual-correctness', '--gate', 'answer-relevancy', ...judgeArgs(), '--out', p('gate.jsonl'), '--html', p('gate.html'), '--junit', p('gate.xml')])
    expect(r.code, r.stdout).toBe(1)
    const gate = readOut(p('gate.jsonl')).summary.gateResults[0]
    expect(gate).toMatchObject({ id: 'answer-relevancy-scorer', passed: false })
    expect(r.stdout).toMatch(new RegExp(`answer-relevancy-scorer\\s+${gate.score.toFixed(3)}\\s+15/15.*gate FAIL`))
    const html = readFileSync(p('gate.html'), 'utf8')
    expect(html).toMatch(new RegExp(`data-scorer="answer-relevancy-scorer">[\\s\\S]*?class="big">${gate.score.toFixed(3)}<[\\s\\S]*?gate \\(every item scores 1\\): <span class="fail">FAIL`))
    const xml = readFileSync(p('gate.xml'), 'utf8')
    expect(xml).toMatch(/<testsuite name="answer-relevancy-scorer" tests="15" failures="[1-9]\d*" errors="0"/)
    // no MaxListenersExceededWarning: every run in flight listens to the one abort signal
    expect(r.stderr).not.toMatch(/MaxListeners/)
  })
})

describe('--out, --shard and merge', () => {
  // the bundled dataset with two bad rows inside: shard membership counts them
  const rows = [...DATASET.slice(0, 5), '{broken', ...DATASET.slice(5, 11), JSON.stringify({ output: 'no input' }), ...DATASET.slice(11)]
  const scorerArgs = ['--scorer', 'answer-relevancy', '--scorer', 'factual-correctness', '--threshold', 'answer-relevancy=0.5', '--max-errors', '2']

  it('3 shards merged give exactly the unsharded scores, stats and coverage', async () => {
    const data = write('shard.jsonl', jsonl(rows))
    const full = await cli(['run', '--data', data, ...scorerArgs, ...judgeArgs(), '--out', p('full.jsonl')])
    expect(full.code, full.stderr).toBe(0)
    const shardFiles: string[] = []
    for (const k of [1, 2, 3]) {
      const out = p(`shard-${k}.jsonl`)
      const r = await cli(['run', '--data', data, ...scorerArgs, ...judgeArgs(), '--shard', `${k}/3`, '--out', out])
      // a shard's mean is not the run's: its threshold does not decide the exit status
      expect(r.code, r.stderr).toBe(0)
      const res = readOut(out)
      expect(res.header.shard).toEqual({ index: k, count: 3 })
      // row i belongs to shard (i % 3) + 1, bad rows included
      for (const it of res.items) expect(it.index % 3).toBe(k - 1)
      shardFiles.push(out)
    }
    const merged = await cli(['merge', ...shardFiles.reverse(), '--out', p('merged.jsonl')])
    expect(merged.code, merged.stderr).toBe(0)
    const a = readOut(p('full.jsonl'))
    const b = readOut(p('merged.jsonl'))
    // the two bad rows are items too (unscored, allowed by --max-errors 2)
    expect(a.header.totalItems).toBe(DATASET.length + 2)
    expect(b.header.totalItems).toBe(DATASET.length + 2)
    for (const key of ['scores', 'stats', 'coverage', 'errors', 'usage', 'summary', 'thresholdResults', 'trials']) {
      expect(b.summary[key], key).toEqual(a.summary[key])
    }
    // the means are equal bit for bit, not just close
    for (const id of ['answer-relevancy-scorer', 'factual-correctness-scorer']) {
      expect(Object.is(b.summary.scores[id], a.summary.scores[id])).toBe(true)
      expect(b.summary.stats[id].ci95).toEqual(a.summary.stats[id].ci95)
    }
    expect(b.summary.skipped.map((s: Any) => s.index)).toEqual(a.summary.skipped.map((s: Any) => s.index))
    expect(b.items.map((i) => i.index)).toEqual([...a.items.map((i) => i.index)].sort((x, y) => x - y))
    const scoreOf = (f: ResultsFile) => Object.fromEntries(f.items.map((i) => [i.index, i.results['answer-relevancy-scorer']?.score]))
    expect(scoreOf(b)).toEqual(scoreOf(a))
    // the printed tables agree too (the run's duration line aside)
    expect(merged.stdout.split('\n').slice(1)).toEqual(full.stdout.split('\n').slice(1))
  })

  it('merge refuses duplicate item indexes and files of different scorers (exit 2)', async () => {
    const data = write('shard2.jsonl', jsonl(DATASET.slice(0, 4)))
    const one = p('dup-1.jsonl')
    expect((await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(), '--shard', '1/2', '--out', one])).code).toBe(0)
    const dup = await cli(['merge', one, one])
    expect(dup.code).toBe(2)
    expect(dup.stderr).toMatch(/item index \d+ appears twice/)
    const other = p('dup-2.jsonl')
    expect((await cli(['run', '--data', data, '--scorer', 'factual-correctness', ...judgeArgs(), '--shard', '2/2', '--out', other])).code).toBe(0)
    const mixed = await cli(['merge', one, other])
    expect(mixed.code).toBe(2)
    expect(mixed.stderr).toMatch(/scorers differ/)
    const notResults = await cli(['merge', write('plain.jsonl', jsonl([{ input: 'q' }]))])
    expect(notResults.code).toBe(2)
    expect(notResults.stderr).toMatch(/not an oxeval results header/)
  })

  it('--out: a header, one line per item, a summary; --trials reaches runEvals', async () => {
    const data = write('out.jsonl', jsonl(DATASET.slice(0, 3)))
    const out = p('out.out.jsonl')
    const r = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(), '--trials', '2', '--out', out])
    expect(r.code, r.stderr).toBe(0)
    const res = readOut(out)
    expect(res.header).toMatchObject({ type: 'run', version: VERSION, scorers: [{ id: 'answer-relevancy-scorer' }], gates: [], trials: 2, shard: null, totalItems: 3 })
    expect(res.items).toHaveLength(3)
    for (const it of res.items) {
      expect(it.trials['answer-relevancy-scorer'].scores).toHaveLength(2)
      expect(it.results['answer-relevancy-scorer']).toBeDefined()
    }
    expect(res.summary.trials).toBe(2)
    expect(res.summary.coverage['answer-relevancy-scorer']).toEqual({ scored: 3, total: 3 })
  })
})

describe('secrets', () => {
  it('--out, --html and --junit hold no API key, URL userinfo or query', async () => {
    const data = write('secret.jsonl', jsonl(DATASET.slice(0, 2)))
    const withUser = judge.url.replace('http://', 'http://alice:hunter2-password@')
    judge.reset()
    const r = await cli(
      ['run', '--data', data, '--scorer', 'answer-relevancy', '--model', 'openai/scripted-judge', '--model-url', withUser, '--out', p('secret.out.jsonl'), '--html', p('secret.html'), '--junit', p('secret.xml')],
      { env: { OPENAI_API_KEY: 'sk-test-DO-NOT-LEAK-4242' } },
    )
    expect(r.code, r.stderr).toBe(0)
    // the secrets were in play: the judge received the key
    expect(judge.requests.length).toBeGreaterThan(0)
    expect(String(judge.requests[0].headers.authorization)).toContain('sk-test-DO-NOT-LEAK-4242')
    const header = readOut(p('secret.out.jsonl')).header
    expect(header.model).toEqual({ id: 'openai/scripted-judge', url: judge.url })
    for (const f of ['secret.out.jsonl', 'secret.html', 'secret.xml']) {
      const text = readFileSync(p(f), 'utf8')
      expect(text.length).toBeGreaterThan(100)
      for (const secret of ['sk-test-DO-NOT-LEAK-4242', 'hunter2-password', 'alice']) expect(text, `${f} contains ${secret}`).not.toContain(secret)
    }
    for (const secret of ['sk-test-DO-NOT-LEAK-4242', 'hunter2-password']) expect(r.stdout + r.stderr).not.toContain(secret)
  })

  it('--api-key-env: the key from that variable reaches the judge, and only the judge', async () => {
    const data = write('secret2.jsonl', jsonl(DATASET.slice(0, 1)))
    judge.reset()
    const r = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(), '--api-key-env', 'MY_JUDGE_KEY', '--out', p('secret2.out.jsonl')], {
      env: { MY_JUDGE_KEY: 'mjk-secret-777' },
    })
    expect(r.code, r.stderr).toBe(0)
    expect(String(judge.requests[0].headers.authorization)).toContain('mjk-secret-777')
    expect(readFileSync(p('secret2.out.jsonl'), 'utf8')).not.toContain('mjk-secret-777')
  })
})

describe('cache, Ctrl-C, progress (slow judge)', () => {
  let slow: JudgeServer
  beforeAll(async () => {
    slow = await startJudgeServer({ handler: heuristicJudge, latencyMs: 150 })
  })
  afterAll(async () => {
    await slow?.close()
  })
  const many = () => jsonl(Array.from({ length: 40 }, (_, i) => ({ id: `q${i}`, ...DATASET[i % DATASET.length] })))

  it('rerunning with the same --cache sends 0 requests and gives the same scores', async () => {
    const data = write('cache.jsonl', jsonl(DATASET))
    const cache = p('cache-dir')
    const args = ['run', '--data', data, '--scorer', 'answer-relevancy', '--scorer', 'factual-correctness', ...judgeArgs(), '--cache', cache]
    judge.reset()
    const first = await cli([...args, '--out', p('cache-1.jsonl')])
    expect(first.code, first.stderr).toBe(0)
    expect(judge.requests.length).toBeGreaterThan(DATASET.length)
    judge.reset()
    const second = await cli([...args, '--out', p('cache-2.jsonl')])
    expect(second.code, second.stderr).toBe(0)
    expect(judge.requests).toHaveLength(0)
    expect(readOut(p('cache-2.jsonl')).summary.scores).toEqual(readOut(p('cache-1.jsonl')).summary.scores)
    // --cache-mode replay reads the same cache
    const replay = await cli([...args, '--cache-mode', 'replay', '--out', p('cache-3.jsonl')])
    expect(replay.code, replay.stderr).toBe(0)
    expect(judge.requests).toHaveLength(0)
  })

  it('SIGINT mid-run: finished items are written (out, html, junit), the summary printed, exit 130; a rerun with --cache pays only for the rest', async () => {
    const data = write('sigint.jsonl', many())
    const out = p('sigint.out.jsonl')
    const cache = p('sigint-cache')
    const args = ['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(slow), '--concurrency', '2', '--cache', cache]
    slow.reset()
    const r = await cli([...args, '--out', out, '--html', p('sigint.html'), '--junit', p('sigint.xml')], {
      onSpawn: (child) => {
        const poll = setInterval(() => {
          const lines = existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter((l) => l.includes('"type":"item"')) : []
          if (lines.length >= 3) {
            clearInterval(poll)
            child.kill('SIGINT')
          }
        }, 50)
        child.on('close', () => clearInterval(poll))
      },
    })
    expect(r.code, r.stderr).toBe(130)
    expect(r.stderr).toMatch(/SIGINT: stopping/)
    expect(r.stdout).toMatch(/INTERRUPTED/)
    const res = readOut(out)
    const done = res.items.length
    expect(done).toBeGreaterThanOrEqual(3)
    expect(done).toBeLessThan(40)
    expect(res.summary.aborted).toBe(true)
    expect(res.summary.coverage['answer-relevancy-scorer'].scored).toBe(done)
    for (const it of res.items) expect(it.results['answer-relevancy-scorer'].score).toBeTypeOf('number')
    expect(readFileSync(p('sigint.html'), 'utf8')).toContain('interrupted')
    // one testcase per finished item, and the run's outcome (interrupted: a failure)
    const xml = readFileSync(p('sigint.xml'), 'utf8')
    expect((xml.match(/<testcase /g) || []).length).toBe(done + 1)
    expect(xml).toMatch(/<testcase name="outcome" classname="oxeval.run"><failure type="failed"/)
    // resume: the finished items' judge calls (3 per answer-relevancy item) come from the cache
    slow.reset()
    const again = await cli([...args, '--out', p('sigint-2.jsonl'), '--no-progress'])
    expect(again.code, again.stderr).toBe(0)
    expect(readOut(p('sigint-2.jsonl')).items).toHaveLength(40)
    expect(slow.requests.length).toBeGreaterThan(0)
    expect(slow.requests.length).toBeLessThanOrEqual((40 - done) * 3)
  }, 60000)

  it('SIGTERM mid-run: finished items are written and the exit status is 143', async () => {
    const data = write('sigterm.jsonl', many())
    const out = p('sigterm.out.jsonl')
    slow.reset()
    const r = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(slow), '--concurrency', '2', '--out', out], {
      onSpawn: (child) => {
        const poll = setInterval(() => {
          const lines = existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter((l) => l.includes('"type":"item"')) : []
          if (lines.length >= 2) {
            clearInterval(poll)
            child.kill('SIGTERM')
          }
        }, 50)
        child.on('close', () => clearInterval(poll))
      },
    })
    expect(r.code, r.stderr).toBe(143)
    expect(r.stderr).toMatch(/SIGTERM: stopping/)
    const res = readOut(out)
    expect(res.items.length).toBeGreaterThanOrEqual(2)
    expect(res.items.length).toBeLessThan(40)
    expect(res.summary.aborted).toBe(true)
  }, 60000)

  it.skipIf(!existsSync('/usr/bin/script'))('a TTY: the live bar (cli-progress) with count, rate and ETA', async () => {
    const data = write('tty.jsonl', jsonl(DATASET.slice(0, 6)))
    const cmd = [process.execPath, CLI, 'run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(slow), '--concurrency', '1']
      .map((a) => `'${String(a).replace(/'/g, `'\\''`)}'`)
      .join(' ')
    // util-linux script(1) runs the command on a pseudo-terminal (stdout and stderr are TTYs)
    // (async: the judge server lives in this process)
    const r = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
      const child = spawn('/usr/bin/script', ['-qec', cmd, '/dev/null'], { cwd: dir, env: { ...process.env, OXEVAL_MODEL: undefined } as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] })
      let stdout = ''
      child.stdout.on('data', (d) => (stdout += d))
      const timer = setTimeout(() => child.kill('SIGKILL'), 25000)
      child.on('close', (status) => {
        clearTimeout(timer)
        resolve({ status, stdout })
      })
    })
    expect(r.status, r.stdout).toBe(0)
    const text = r.stdout
    expect(text).toMatch(/oxeval [\u2588\u2591]+ \d\/6 \| [\d.]+\/s \| ETA [^|]+\| errors 0/) // the bar, redrawn in place
    expect(text).toMatch(/6\/6/)
    expect(text).not.toMatch(/^oxeval: \d+\/6 items \(/m) // not the plain non-TTY lines
  }, 30000)

  it('not a TTY: plain progress lines on stderr (periodic and final), no escape codes', async () => {
    const data = write('progress.jsonl', jsonl(DATASET.slice(0, 8)))
    const r = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(slow), '--concurrency', '1'])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stderr.split('\n').filter((l) => /^oxeval: \d+\/8 items \(/.test(l))
    // 8 items x 3 calls x 150 ms in a row: > 3 s, so at least one line every 2 s plus the last
    expect(lines.length).toBeGreaterThanOrEqual(2)
    expect(lines[lines.length - 1]).toMatch(/^oxeval: 8\/8 items \([\d.]+\/s, \d+s elapsed, 0 with errors\)$/)
    expect(lines[0]).toMatch(/ETA/)
    expect(r.stderr).not.toMatch(/\x1b\[/)
    // and the summary is on stdout, not stderr
    expect(r.stdout).toMatch(/answer-relevancy-scorer/)
    expect(r.stderr).not.toMatch(/coverage/)
  }, 30000)

  it('--no-progress: nothing on stderr', async () => {
    const data = write('quiet.jsonl', jsonl(DATASET.slice(0, 2)))
    const r = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(), '--no-progress'])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
  })
})
