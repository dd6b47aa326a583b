// The writing side of `oxeval run` / `oxeval merge` (issue 18 §3, §4): a failed write (EFBIG
// under `ulimit -f`) costs neither the summary nor the other reports; a record JSON cannot
// encode becomes a replacement record; outputs that name the same file (or the data) are
// refused; one run at a time per --out (its .lock); a closed stderr pipe is ignored; control
// characters never reach the terminal raw. The real bin in a child process throughout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { heuristicJudge, startJudgeServer, type JudgeServer } from '../testing/judge-server.mjs'
import { CLI, judgeArgs, jsonl, readOut, runCli, tempDir, type CliResult } from './helpers/cli'
// @ts-expect-error: an ES module without types
import { JsonlWriter, readResults, recordLine } from '../cli/results.mjs'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any

const t = tempDir('oxeval-cli-write-')
let judge: JudgeServer
let slow: JudgeServer
let evil: JudgeServer
beforeAll(async () => {
  judge = await startJudgeServer({ handler: heuristicJudge })
  slow = await startJudgeServer({ handler: heuristicJudge, latencyMs: 150 })
  // a judge whose reasons carry terminal escapes, CR, BEL and a bidi override
  evil = await startJudgeServer({
    handler: (req: Any) => {
      if (/Task: explain/.test(req.text ?? '')) return { content: 'The score is 0.5 because \u001b[2J\u001b]0;pwned\u0007 it \r\u202egnirts\u202c was \u009b31m red.' }
      return heuristicJudge(req)
    },
  })
})
afterAll(async () => {
  await judge?.close()
  await slow?.close()
  await evil?.close()
  t.remove()
})

const rows = (n: number, tag = 'q') =>
  Array.from({ length: n }, (_, i) => ({ id: `${tag}${i}`, input: `What is the capital of France? (${i})`, output: 'Paris is the capital of France. It is a large city.', context: ['Paris is the capital of France.'] }))

/** Runs `bash -c script` with the bin's path in $CLI (for `ulimit -f` and pipes). */
function shell(script: string, opts: { cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, OXEVAL_MODEL: undefined, OXEVAL_CACHE_DIR: undefined, CLI, NODE: process.execPath } as Any
    const child = spawn('bash', ['-c', script], { cwd: opts.cwd ?? t.dir, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`bash -c ${script} did not finish\n${stdout}\n${stderr}`))
    }, opts.timeoutMs ?? 30000)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
}
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

describe('a write that fails does not lose the run', () => {
  it('run: --out hits EFBIG (ulimit -f): the summary is printed, --junit is written, the error is reported, exit 2', async () => {
    const data = t.write('efbig.jsonl', jsonl(rows(40)))
    const out = t.p('efbig.out.jsonl')
    const junit = t.p('efbig.xml')
    const args = ['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--out', out, '--junit', junit, '--no-progress']
    const r = await shell(`ulimit -f 64; exec "$NODE" "$CLI" ${args.map(q).join(' ')}`)
    expect(r.stderr).toMatch(/--out .*efbig\.out\.jsonl: write failed \(EFBIG/)
    expect(r.stderr).not.toMatch(/at .*\.mjs:\d+/) // no stack trace
    expect(r.stdout).toMatch(/oxeval: 40 items/)
    expect(r.stdout).toMatch(/answer-relevancy-scorer/)
    expect(r.code).toBe(2)
    const xml = readFileSync(junit, 'utf8')
    expect(xml).toMatch(/<\/testsuites>\s*$/)
    expect((xml.match(/<testcase /g) || []).length).toBeGreaterThanOrEqual(40)
    expect(existsSync(`${out}.lock`)).toBe(false)
  })

  it('merge: one output that cannot be written costs neither the others nor the summary (exit 2)', async () => {
    const data = t.write('mefbig.jsonl', jsonl(rows(40, 'm')))
    for (const k of [1, 2]) {
      const r = await runCli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--shard', `${k}/2`, '--out', t.p(`mefbig-${k}.jsonl`), '--no-progress'], { cwd: t.dir })
      expect(r.code, r.stderr).toBe(0)
    }
    const args = ['merge', t.p('mefbig-1.jsonl'), t.p('mefbig-2.jsonl'), '--out', t.p('mefbig-merged.jsonl'), '--junit', t.p('mefbig.xml')]
    const r = await shell(`ulimit -f 64; exec "$NODE" "$CLI" ${args.map(q).join(' ')}`)
    expect(r.stderr).toMatch(/--out .*mefbig-merged\.jsonl: write failed \(EFBIG/)
    expect(r.stdout).toMatch(/oxeval merge \(2 files\)/)
    expect(r.code).toBe(2)
    expect(readFileSync(t.p('mefbig.xml'), 'utf8')).toMatch(/<\/testsuites>\s*$/)
  })
})

describe('records JSON cannot encode', () => {
  it('JsonlWriter writes a replacement record (index, id, scores, why) and goes on', async () => {
    const file = t.p('unser.jsonl')
    const replaced: string[] = []
    const w = new JsonlWriter(file, '--out', { onReplace: (why: string) => replaced.push(why) })
    let deep: Any = { leaf: 1 }
    for (let i = 0; i < 200_000; i++) deep = [deep]
    const cyclic: Any = { a: 1 }
    cyclic.self = cyclic
    await w.write({ type: 'run', scorers: [{ id: 's' }] })
    await w.write({ type: 'item', index: 0, id: 'deep', input: deep, results: { s: { score: 0.5, reason: 'ok' } } })
    await w.write({ type: 'item', index: 1, id: 'big', input: 'x', output: 10n, results: { s: { score: 1 } } })
    await w.write({ type: 'item', index: 2, id: 'cyc', input: cyclic, results: { s: { score: 0 } }, errors: { t: { name: 'E', message: 'm' } } })
    await w.write({ type: 'item', index: 3, id: 'fine', input: 'q', results: { s: { score: 0.25 } } })
    await w.write({ type: 'summary', done: true })
    expect(await w.close()).toBe(null)
    expect(replaced).toEqual(['nested too deep to serialize', 'contains a BigInt', 'contains a cycle'])
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(lines.map((l) => l.type)).toEqual(['run', 'item', 'item', 'item', 'item', 'summary'])
    expect(lines[1]).toMatchObject({ index: 0, id: 'deep', unserializable: 'nested too deep to serialize', results: { s: { score: 0.5, reason: 'ok' } } })
    expect(lines[1].input).toBeUndefined()
    expect(lines[2]).toMatchObject({ index: 1, id: 'big', unserializable: 'contains a BigInt', results: { s: { score: 1 } } })
    expect(lines[3]).toMatchObject({ index: 2, id: 'cyc', unserializable: 'contains a cycle', errors: { t: { message: 'm' } } })
    expect(lines[4]).toEqual({ type: 'item', index: 3, id: 'fine', input: 'q', results: { s: { score: 0.25 } } })
    // the file still reads as a results file
    const back = readResults(file)
    expect(back.items.map((i: Any) => i.index)).toEqual([0, 1, 2, 3])
    expect(recordLine({ a: 1 })).toBe('{"a":1}\n')
  })

  it('run: a row nested 5 000 deep among good rows costs only that row: every other item and the summary are written', async () => {
    const deepRow = `{"id":"deep","input":${'['.repeat(5000)}"What is the capital of France?"${']'.repeat(5000)},"output":"Paris."}`
    const data = t.write('deep.jsonl', jsonl([...rows(3, 'a'), deepRow, ...rows(2, 'b')]))
    const out = t.p('deep.out.jsonl')
    const r = await runCli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--out', out, '--no-progress'], { cwd: t.dir })
    expect(r.stderr).not.toMatch(/Maximum call stack|RangeError/)
    expect([0, 1]).toContain(r.code)
    const res = readOut(out)
    expect(res.summary).not.toBe(null)
    const ids = res.items.map((i: Any) => i.id)
    for (const id of ['a0', 'a1', 'a2', 'b0', 'b1']) expect(ids).toContain(id)
    // the deep row is either reported as a bad row or written as a replacement record
    const deep = res.items.find((i: Any) => i.id === 'deep')
    if (deep) expect(deep.unserializable ?? deep.results).toBeTruthy()
    else expect(r.stderr).toMatch(/deep\.jsonl:4/)
  })
})

describe('outputs that would overwrite each other or the data', () => {
  it('refuses --out naming --data (also through another spelling of the path), before any judge call', async () => {
    const text = jsonl(rows(2))
    const data = t.write('self.jsonl', text)
    const before = judge.requests.length
    for (const out of [data, './self.jsonl', `${t.dir}/../${t.dir.split('/').pop()}/self.jsonl`]) {
      const r = await runCli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--out', out, '--no-progress'], { cwd: t.dir })
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(/--out .* and --data .* name the same file/)
    }
    expect(readFileSync(data, 'utf8')).toBe(text)
    expect(judge.requests.length).toBe(before)
  })

  it('refuses two of --out/--html/--junit naming one file (a symlink included)', async () => {
    const data = t.write('two.jsonl', jsonl(rows(2)))
    const same = t.p('same.out')
    let r = await runCli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--out', same, '--html', same, '--no-progress'], { cwd: t.dir })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--html .* and --out .* name the same file/)
    writeFileSync(t.p('target.xml'), '')
    symlinkSync(t.p('target.xml'), t.p('link.xml'))
    r = await runCli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--junit', t.p('link.xml'), '--html', t.p('target.xml'), '--no-progress'], { cwd: t.dir })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/name the same file/)
    // merge: an output naming an input file
    r = await runCli(['merge', t.p('whatever-1.jsonl'), '--out', t.p('whatever-1.jsonl')], { cwd: t.dir })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/name the same file/)
  })
})

describe('one run at a time per --out (<out>.lock)', () => {
  it('a second run with the same --out is refused (exit 2, naming the lock) while the first goes on; the first file has no torn lines', async () => {
    const data = t.write('lock.jsonl', jsonl(rows(8, 'L')))
    const out = t.p('lock.out.jsonl')
    const args = ['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(slow), '--out', out, '--no-progress', '--concurrency', '1']
    const first = runCli(args, { cwd: t.dir })
    const t0 = Date.now()
    while (!existsSync(`${out}.lock`) && Date.now() - t0 < 10000) await new Promise((ok) => setTimeout(ok, 20))
    expect(existsSync(`${out}.lock`)).toBe(true)
    const second = await runCli(args, { cwd: t.dir })
    expect(second.code).toBe(2)
    expect(second.stderr).toContain(`${out}.lock`)
    expect(second.stderr).toMatch(/another oxeval \(pid \d+\) is writing it/)
    const r = await first
    expect(r.code, r.stderr).toBe(0)
    const text = readFileSync(out, 'utf8')
    for (const line of text.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow()
    expect(readOut(out).items).toHaveLength(8)
    expect(existsSync(`${out}.lock`)).toBe(false)
  })

  it('a lock held by a live process refuses the run and leaves the file untouched; a stale lock (dead pid) is taken over', async () => {
    const data = t.write('stale.jsonl', jsonl(rows(2, 'S')))
    const out = t.p('stale.out.jsonl')
    writeFileSync(out, 'precious\n')
    writeFileSync(`${out}.lock`, `${process.pid}\n`)
    const args = ['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--out', out, '--no-progress']
    const r1 = await runCli(args, { cwd: t.dir })
    expect(r1.code).toBe(2)
    expect(r1.stderr).toContain(`pid ${process.pid}`)
    expect(readFileSync(out, 'utf8')).toBe('precious\n')
    const dead = spawnSync(process.execPath, ['-e', '0']).pid
    writeFileSync(`${out}.lock`, `${dead}\n`)
    const r2 = await runCli(args, { cwd: t.dir })
    expect(r2.code, r2.stderr).toBe(0)
    expect(readOut(out).items).toHaveLength(2)
    expect(existsSync(`${out}.lock`)).toBe(false)
  })
})

describe('terminals', () => {
  it('a closed stderr pipe (2>&1 | head -1) is ignored: the run, its files and its exit status are the same', async () => {
    // a bad first row: its message is the first line, head exits, every later write meets EPIPE
    const data = t.write('pipe.jsonl', jsonl(['{not json', ...rows(6, 'P')]))
    const out = t.p('pipe.out.jsonl')
    const junit = t.p('pipe.xml')
    const args = ['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(slow), '--out', out, '--junit', junit]
    const r = await shell(`"$NODE" "$CLI" ${args.map(q).join(' ')} 2>&1 | head -1; echo "exit=\${PIPESTATUS[0]}"`)
    const direct = await runCli([...args.slice(0, -4), '--out', t.p('pipe2.out.jsonl'), '--no-progress'], { cwd: t.dir })
    expect(r.stdout).toMatch(/pipe\.jsonl:1/)
    expect(r.stdout).toContain(`exit=${direct.code}`)
    expect(readOut(out).summary).not.toBe(null)
    expect(readOut(out).items.filter((i: Any) => /^P\d$/.test(i.id))).toHaveLength(6)
    expect(readFileSync(junit, 'utf8')).toMatch(/<\/testsuites>\s*$/)
  })

  it('control characters from reasons, inputs, ids, file names and errors are printed as visible escapes', async () => {
    const name = 'evil\u001b[2J\u202e.jsonl'
    const data = t.write(name, jsonl(['{"id": 1, "input": ', { id: 'x\u001b]0;title\u0007', input: 'What is the capital of France?\u001b[31m\u2066', output: 'Paris is the capital of France. It is large.' }]))
    const r = await runCli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(evil), '--no-progress'], { cwd: t.dir })
    expect([0, 1]).toContain(r.code)
    for (const [label, text] of [['stdout', r.stdout], ['stderr', r.stderr]]) {
      // eslint-disable-next-line no-control-regex
      expect(text, label).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
    }
    expect(r.stdout).toContain('\\x1b[2J\\x1b]0;pwned\\x07')
    expect(r.stdout).toContain('\\u202egnirts')
    expect(r.stdout).toContain('\\x9b31m')
    expect(r.stdout).toContain('x\\x1b]0;title\\x07')
    expect(r.stdout).toContain('France?\\x1b[31m\\u2066')
    expect(r.stderr).toContain('evil\\x1b[2J\\u202e.jsonl')
  })
})
