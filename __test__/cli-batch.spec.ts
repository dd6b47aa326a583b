// `oxeval run --batch` (with --detach, --batch-poll-ms) and `oxeval batch status|cancel` in
// child processes against the judge server's batch protocol: --detach then a second process
// collects the same results as a direct run; a run SIGKILLed after it submitted resumes
// without submitting anything new; a run interrupted (SIGINT) or killed (SIGKILL) while its
// create call is held open by the provider (the batch created, the answer not yet sent)
// finds that batch on the rerun (by its intent, in the provider's list) instead of creating
// it again, for each provider's protocol; status and cancel; usage errors.
import { afterAll, describe, expect, it } from 'vitest'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { heuristicJudge } from '../testing/judge-server.mjs'
import { type Any, useJudgeServer } from './helpers/setup'
import { judgeArgs, jsonl, readOut, runCli, tempDir } from './helpers/cli'

const server = useJudgeServer({ handler: heuristicJudge })
const tmp = tempDir('oxeval-cli-batch-')
afterAll(() => tmp.remove())

const ID = 'answer-relevancy-scorer'
const rows = Array.from({ length: 5 }, (_, i) => ({ id: `r${i}`, input: `What is the capital of country ${i}?`, output: `The capital of country ${i} is City ${i}. It has a port.` }))
const data = tmp.write('items.jsonl', jsonl(rows))
let runs = 0
const cli = (args: string[], opts: Any = {}) => runCli(args, { cwd: tmp.dir, env: { OXEVAL_TEST_KEY: 'sk-cli-SECRET-1' }, ...opts })
const runArgs = (cache: string, out: string, extra: string[] = []) => ['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(server), '--api-key-env', 'OXEVAL_TEST_KEY', '--cache', cache, '--out', out, '--no-progress', ...extra]
const scores = (file: string) => readOut(file).items.sort((a: Any, b: Any) => a.index - b.index).map((it: Any) => it.results[ID]?.score ?? it.errors[ID]?.code)
const creates = () => server.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/batches'))
const submissions = () => {
  const m = new Map<string, number>()
  for (const b of server.batches.values() as Iterable<Any>) for (const l of b.lines) m.set(l.id, (m.get(l.id) ?? 0) + 1)
  return m
}
const records = (cache: string) => (existsSync(join(cache, 'batches')) ? readdirSync(join(cache, 'batches')).filter((f) => f.endsWith('.json')) : [])

async function directScores() {
  const out = tmp.p(`direct-${++runs}.jsonl`)
  const r = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(server), '--out', out, '--no-progress'])
  expect(r.code).toBe(0)
  server.reset()
  return scores(out)
}

const PROVIDERS = {
  openai: () => ['--model', 'openai/scripted-judge', '--model-url', `${server.origin}/v1`],
  azure: () => ['--model', 'azure/judge-deployment', '--model-url', `${server.origin}/openai`],
  anthropic: () => ['--model', 'anthropic/claude-judge', '--model-url', `${server.origin}/v1`],
  google: () => ['--model', 'google/gemini-2.5-flash', '--model-url', `${server.origin}/v1beta`],
} as const

describe.each(Object.keys(PROVIDERS) as (keyof typeof PROVIDERS)[])('%s: a run stopped while its create call is held open', (p) => {
  const args = (cache: string, out: string, extra: string[] = []) => ['run', '--data', data, '--scorer', 'answer-relevancy', ...PROVIDERS[p](), '--api-key-env', 'OXEVAL_TEST_KEY', '--cache', cache, '--out', out, '--no-progress', ...extra]
  it.each(['SIGINT', 'SIGKILL'] as const)('%s: the rerun finds the batch at the provider and creates nothing again', async (sig) => {
    const dout = tmp.p(`direct-${p}-${++runs}.jsonl`)
    expect((await cli(args(tmp.p(`dc-${runs}`), dout))).code).toBe(0)
    const direct = scores(dout)
    server.reset()
    const cache = tmp.p(`cache-${++runs}`)
    // the provider accepts the batch and holds the answer: the create is in flight
    server.scriptBatch({ createFault: 'hold' })
    const stopped = await cli(args(cache, tmp.p(`s1-${runs}.jsonl`), ['--batch', '--batch-poll-ms', '50']), {
      onSpawn: (child: Any) => {
        const t = setInterval(() => {
          if (server.batches.size > 0) {
            clearInterval(t)
            child.kill(sig)
          }
        }, 10)
      },
    })
    expect(stopped.code === 0).toBe(false)
    expect(server.batches.size).toBe(1)
    const first = [...server.batches.values()][0] as Any
    // the intent of the batch in flight is on disk, no record (the answer never came)
    expect(existsSync(join(cache, 'batches')) ? readdirSync(join(cache, 'batches')).filter((f) => f.startsWith('intent-')) : []).toHaveLength(1)
    const again = await cli(args(cache, tmp.p(`s2-${runs}.jsonl`), ['--batch', '--batch-poll-ms', '50']))
    expect(again.code, again.stderr).toBe(0)
    expect(scores(tmp.p(`s2-${runs}.jsonl`))).toEqual(direct)
    // stage 1 is the first batch (polled, its answers delivered); no line went twice
    expect(server.batches.size).toBe(3)
    expect([...server.batches.values()][0]).toBe(first)
    expect(first.results?.length).toBe(5)
    expect([...submissions().values()].every((n) => n === 1)).toBe(true)
    expect(records(cache)).toEqual([])
  })
})

describe('oxeval run --batch', () => {
  it('--detach submits and exits 0 with the batch ids; a second process collects the same results', async () => {
    const direct = await directScores()
    const cache = tmp.p(`cache-${++runs}`)
    server.scriptBatch({ delayMs: 800 })
    const first = await cli(runArgs(cache, tmp.p('d1.jsonl'), ['--batch', '--batch-poll-ms', '50', '--detach']))
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(/detached: 1 batch still running/)
    const id = [...server.batches.keys()][0]
    expect(first.stdout).toContain(id)
    expect(records(cache)).toHaveLength(1)
    expect(readOut(tmp.p('d1.jsonl')).summary).toMatchObject({ aborted: true, detached: { pending: [expect.objectContaining({ id })] } })
    const status = await cli(['batch', 'status', '--cache', cache, ...judgeArgs(server), '--api-key-env', 'OXEVAL_TEST_KEY'])
    expect(status.code).toBe(0)
    expect(status.stdout).toContain(`openai ${id}  stage 1, 5 requests (0 answered in the cache)`)
    // the collecting process: another run of the same command, without --detach
    const second = await cli(runArgs(cache, tmp.p('d2.jsonl'), ['--batch', '--batch-poll-ms', '50']))
    expect(second.code).toBe(0)
    expect(scores(tmp.p('d2.jsonl'))).toEqual(direct)
    expect(second.stdout).toMatch(/batch: \d+ of \d+ judge calls \(100%\)/)
    expect(creates()).toHaveLength(3)
    expect([...submissions().values()].every((n) => n === 1)).toBe(true)
    expect(records(cache)).toEqual([])
  })

  it('a run killed (SIGKILL) after it submitted resumes by polling: nothing is submitted again', async () => {
    const direct = await directScores()
    const cache = tmp.p(`cache-${++runs}`)
    server.scriptBatch({ delayMs: 1500 })
    const killed = await cli(runArgs(cache, tmp.p('k1.jsonl'), ['--batch', '--batch-poll-ms', '50']), {
      onSpawn: (child: Any) => {
        const t = setInterval(() => {
          if (server.batches.size > 0 && records(cache).length > 0) {
            clearInterval(t)
            child.kill('SIGKILL')
          }
        }, 10)
      },
    })
    expect(killed.signal).toBe('SIGKILL')
    expect(creates()).toHaveLength(1)
    const resumed = await cli(runArgs(cache, tmp.p('k2.jsonl'), ['--batch', '--batch-poll-ms', '50']))
    expect(resumed.code).toBe(0)
    expect(scores(tmp.p('k2.jsonl'))).toEqual(direct)
    expect(creates()).toHaveLength(3)
    expect([...submissions().values()].every((n) => n === 1)).toBe(true)
  })

  it('oxeval batch cancel cancels at the provider and removes the record', async () => {
    const cache = tmp.p(`cache-${++runs}`)
    server.scriptBatch({ neverEnds: true })
    const r = await cli(runArgs(cache, tmp.p('c1.jsonl'), ['--batch', '--batch-poll-ms', '50', '--detach']))
    expect(r.code).toBe(0)
    expect(records(cache)).toHaveLength(1)
    const other = await cli(['batch', 'status', '--cache', cache, '--model', 'openai/another-model', '--model-url', server.url])
    expect(other.stdout).toContain('not polled (recorded for another judge model or endpoint)')
    const c = await cli(['batch', 'cancel', '--cache', cache, ...judgeArgs(server), '--api-key-env', 'OXEVAL_TEST_KEY', '--json'])
    expect(c.code).toBe(0)
    const v = JSON.parse(c.stdout)
    expect(v.batches[0]).toMatchObject({ cancelled: true, removed: true })
    expect(([...server.batches.values()][0] as Any).cancelled).toBe(true)
    expect(records(cache)).toEqual([])
    expect(c.stdout).not.toContain('SECRET')
  })

  it('oxeval batch status lists an unreadable record (and exits 2); the run refuses to submit, naming it', async () => {
    const cache = tmp.p(`cache-${++runs}`)
    server.scriptBatch({ neverEnds: true })
    expect((await cli(runArgs(cache, tmp.p('u1.jsonl'), ['--batch', '--batch-poll-ms', '50', '--detach']))).code).toBe(0)
    const [file] = records(cache)
    const path = join(cache, 'batches', file)
    writeFileSync(path, readFileSync(path, 'utf8').slice(0, 40))
    const status = await cli(['batch', 'status', '--cache', cache])
    expect(status.code).toBe(2)
    expect(status.stdout).toContain(`UNREADABLE ${path} is cut short`)
    expect(status.stderr).toContain('1 batch record')
    const run = await cli(runArgs(cache, tmp.p('u2.jsonl'), ['--batch', '--batch-poll-ms', '50']))
    expect(run.code).not.toBe(0)
    expect(readOut(tmp.p('u2.jsonl')).items[0].errors[ID].message).toContain(file)
    expect(run.stderr).toContain('OXEVAL_BATCH_RECORD_UNREADABLE')
    expect(creates()).toHaveLength(1)
  })

  it('--batch-max-items and the config field batch.maxItems bound the items in flight: waves of batches, the same scores', async () => {
    const direct = await directScores()
    const r = await cli(runArgs(tmp.p(`cache-${++runs}`), tmp.p('w1.jsonl'), ['--batch', '--batch-poll-ms', '20', '--batch-max-items', '2']))
    expect(r.code, r.stderr).toBe(0)
    expect(scores(tmp.p('w1.jsonl'))).toEqual(direct)
    const sizes = [...server.batches.values()].map((b: Any) => b.lines.length)
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2)
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(15)
    server.reset()
    const out = tmp.p('w2.jsonl')
    const cfg = tmp.write('waves.config.mjs', `export default { data: ${JSON.stringify(data)}, scorers: ['answer-relevancy'], cache: ${JSON.stringify(tmp.p(`cache-${++runs}`))}, out: ${JSON.stringify(out)}, batch: { pollMs: 20, maxItems: 3, maxRequests: 2 } }\n`)
    const c = await cli(['run', '--config', cfg, ...judgeArgs(server), '--api-key-env', 'OXEVAL_TEST_KEY', '--no-progress'])
    expect(c.code, c.stderr).toBe(0)
    expect(scores(out)).toEqual(direct)
    expect(Math.max(...[...server.batches.values()].map((b: Any) => b.lines.length))).toBeLessThanOrEqual(2)
    const bad = await cli(runArgs(tmp.p('x'), tmp.p('w3.jsonl'), ['--batch', '--batch-max-items', '0']))
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--batch-max-items must be an integer from 1')
    const noBatch = await cli(runArgs(tmp.p('x'), tmp.p('w4.jsonl'), ['--batch-max-items', '5']))
    expect(noBatch.stderr).toContain('--batch-max-items needs --batch')
  })

  it('usage errors: --batch needs --cache, --detach needs --batch, cancel needs --model', async () => {
    const a = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(server), '--batch'])
    expect(a.code).toBe(2)
    expect(a.stderr).toContain('--batch needs --cache DIR')
    const b = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(server), '--cache', tmp.p('x'), '--detach'])
    expect(b.code).toBe(2)
    expect(b.stderr).toContain('--detach needs --batch')
    const c = await cli(['run', '--data', data, '--scorer', 'answer-relevancy', ...judgeArgs(server), '--cache', tmp.p('x'), '--batch', '--batch-poll-ms', '0'])
    expect(c.code).toBe(2)
    expect(c.stderr).toContain('--batch-poll-ms must be an integer from 1')
    const d = await cli(['batch', 'cancel', '--cache', tmp.dir])
    expect(d.code).toBe(2)
    expect(d.stderr).toContain('needs --model')
  })

  it('a config with `batch` runs in batch mode (the same scores as a direct run); a bad `batch` field is a usage error naming it', async () => {
    const direct = await directScores()
    const cache = tmp.p(`cache-${++runs}`)
    const out = tmp.p('config-batch.jsonl')
    const cfg = tmp.write('batch.config.mjs', `export default { data: ${JSON.stringify(data)}, scorers: ['answer-relevancy'], cache: ${JSON.stringify(cache)}, out: ${JSON.stringify(out)}, batch: { pollMs: 50 } }\n`)
    const r = await cli(['run', '--config', cfg, ...judgeArgs(server), '--api-key-env', 'OXEVAL_TEST_KEY', '--no-progress'])
    expect(r.code, r.stderr).toBe(0)
    expect(scores(out)).toEqual(direct)
    expect(creates()).toHaveLength(3)
    expect(r.stdout).toMatch(/batch: \d+ of \d+ judge calls \(100%\)/)
    for (const [name, batch, message] of [
      ['bad-batch.mjs', '"yes"', /bad-batch\.mjs: batch must be true or \{ pollMs\?, maxItems\?, maxRequests\?, detach\? \}/],
      ['bad-items.mjs', '{ maxItems: 0 }', /bad-items\.mjs: batch\.maxItems must be a positive integer/],
      ['bad-poll.mjs', '{ pollMs: -1 }', /bad-poll\.mjs: batch\.pollMs must be a positive integer/],
    ] as const) {
      const p = tmp.write(name, `export default { data: ${JSON.stringify(data)}, scorers: ['answer-relevancy'], cache: ${JSON.stringify(cache)}, batch: ${batch} }\n`)
      const bad = await cli(['run', '--config', p, ...judgeArgs(server), '--no-progress'])
      expect(bad.code, name).toBe(2)
      expect(bad.stderr).toMatch(message)
    }
  })
})

