// `oxeval.config.(ts|mjs)` in child processes: a TypeScript config (loaded through jiti) with a
// custom scorer, a gate and a target function, run end to end against the scripted judge; flags
// override its fields; errors name the file and the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { readOut, runCli, tempDir } from './helpers/cli'
import { startJudgeServer, type Any, type JudgeServer } from './helpers/setup'
import { heuristicJudge } from '../testing/judge-server.mjs'

const t = tempDir('oxeval-config-')
let judge: JudgeServer
beforeAll(async () => {
  judge = await startJudgeServer({ handler: heuristicJudge })
})
afterAll(async () => {
  await judge.close()
  t.remove()
})
const index = JSON.stringify(join(process.cwd(), 'index.js'))

describe('oxeval.config', () => {
  it('a TypeScript config with a custom scorer, a built-in scorer by name, a gate and a target: `oxeval run` with no flags', async () => {
    const dir = t.p('ts-project')
    const { mkdirSync, writeFileSync } = await import('node:fs')
    mkdirSync(join(dir, 'data'), { recursive: true })
    writeFileSync(join(dir, 'data', 'items.jsonl'), [{ id: 'a', input: 'What is the capital of France?' }, { id: 'b', input: 'What is 2 + 2?' }].map((x) => JSON.stringify(x)).join('\n') + '\n')
    writeFileSync(
      join(dir, 'oxeval.config.ts'),
      `import { createRequire } from 'node:module'
const ox = createRequire(import.meta.url)(${index}) as typeof import('oxeval')
const answers: Record<string, string> = { 'What is the capital of France?': 'Paris is the capital of France.', 'What is 2 + 2?': 'It is 4.' }
const short = ox.createScorer({ id: 'short', description: 'short answers' }).generateScore(({ run }) => (String(run.output).length < 40 ? 1 : 0))
export default ox.defineConfig({
  data: 'data/items.jsonl',
  model: { id: 'openai/scripted', url: ${JSON.stringify(judge.url)} },
  scorers: [{ scorer: short, threshold: 0.5 }, 'answer-relevancy'],
  gates: [ox.createScorer({ id: 'answered', description: 'has an answer' }).generateScore(({ run }) => (String(run.output).trim() ? 1 : 0)), ox.checks.excludes("I don't know")],
  target: async (input: string, { signal }: { signal: AbortSignal }) => (signal.aborted ? '' : answers[input]),
  out: 'out/results.jsonl',
})
`,
    )
    const r = await runCli(['run', '--no-progress'], { cwd: dir })
    expect(r.code, r.stderr + r.stdout).toBe(0)
    const o = readOut(join(dir, 'out', 'results.jsonl'))
    expect(o.header.scorers.map((s: Any) => s.id)).toEqual(['answer-relevancy-scorer', 'short'])
    // a custom gate and a check as gates
    expect(o.header.gates).toEqual(['answered', 'check-excludes'])
    expect(o.summary.gateResults.map((g: Any) => [g.id, g.passed])).toEqual([['answered', true], ['check-excludes', true]])
    const items = [...o.items].sort((a: Any, b: Any) => a.index - b.index)
    expect(items.map((i: Any) => i.output)).toEqual(['Paris is the capital of France.', 'It is 4.'])
    expect(items[0].results.short.score).toBe(1)
    expect(typeof items[0].results['answer-relevancy-scorer'].score).toBe('number')
    // --cache-targets: a rescoring run reads the kept outputs, the target is not called again
    const calls = join(dir, 'calls.txt')
    writeFileSync(join(dir, 'counted.mjs'), `import { appendFileSync } from 'node:fs'\nimport ox from ${index}\nexport default ox.defineConfig({ data: 'data/items.jsonl', scorers: [ox.createScorer({ id: 'one', description: 'd' }).generateScore(() => 1)], target: (input) => { appendFileSync(${JSON.stringify(calls)}, 'x'); return 'out:' + input }, cacheTargets: '.targets' })\n`)
    for (let i = 0; i < 2; i++) {
      const rc = await runCli(['run', '--config', 'counted.mjs', '--out', `counted-${i}.jsonl`, '--no-progress'], { cwd: dir })
      expect(rc.code, rc.stderr).toBe(0)
      expect(readOut(join(dir, `counted-${i}.jsonl`)).items.map((x: Any) => x.output).sort()).toEqual(['out:What is 2 + 2?', 'out:What is the capital of France?'])
    }
    const { readFileSync: read } = await import('node:fs')
    expect(read(calls, 'utf8')).toBe('xx')
    // a flag overrides the config: another --out
    const r2 = await runCli(['run', '--config', 'oxeval.config.ts', '--out', 'other.jsonl', '--no-progress'], { cwd: dir })
    expect(r2.code, r2.stderr).toBe(0)
    expect(readOut(join(dir, 'other.jsonl')).items).toHaveLength(2)
  })

  it('inline data in an .mjs config; errors name the file and the field (exit 2, no stack trace)', async () => {
    const ok = t.write('inline.mjs', `import ox from ${index}\nexport default ox.defineConfig({ data: [{ input: 'q', output: 'a' }], scorers: [ox.createScorer({ id: 'one', description: 'd' }).generateScore(() => 1)] })\n`)
    const r = await runCli(['run', '--config', ok, '--no-progress'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/one/)
    for (const [name, body, message] of [
      ['typo.mjs', `export default { data: 'x.jsonl', scorerz: [] }`, /typo\.mjs: unknown field "scorerz"/],
      ['bad-scorer.mjs', `export default { data: [{ input: 'q', output: 'a' }], scorers: [42] }`, /bad-scorer\.mjs: scorers\[0\] must be a scorer object/],
      ['bad-target.mjs', `export default { data: [{ input: 'q' }], scorers: ['answer-relevancy'], target: 'agent' }`, /bad-target\.mjs: target must be a function/],
      ['throws.mjs', `throw new Error('config broke')`, /throws\.mjs: the config could not be loaded: config broke/],
    ] as const) {
      const p = t.write(name, `${body}\n`)
      const bad = await runCli(['run', '--config', p, '--no-progress'])
      expect(bad.code, name).toBe(2)
      expect(bad.stderr).toMatch(message)
      expect(bad.stderr).not.toMatch(/\n\s+at /)
    }
    // an unknown scorer name: ONE line naming the file, the field and the name (not the whole list)
    for (const [name, body, line] of [
      ['unknown.mjs', `export default { data: [{ input: 'q', output: 'a' }], scorers: ['answer-relevancy', 'answer-relevance'] }`, 'scorers[1]: unknown scorer "answer-relevance"'],
      ['unknown-threshold.mjs', `export default { data: [{ input: 'q', output: 'a' }], scorers: [{ scorer: 'faithfulnes', threshold: 0.5 }] }`, 'scorers[0].scorer: unknown scorer "faithfulnes"'],
      ['unknown-gate.mjs', `export default { data: [{ input: 'q', output: 'a' }], gates: ['no-such-gate'] }`, 'gates[0]: unknown scorer "no-such-gate"'],
    ] as const) {
      const p = t.write(name, `${body}\n`)
      const bad = await runCli(['run', '--config', p, '--no-progress'])
      expect(bad.code, name).toBe(2)
      expect(bad.stderr).toBe(`oxeval: ${p}: ${line} (\`oxeval help run\` lists the built-in names)\n`)
    }
    const missing = await runCli(['run', '--config', t.p('nope.mjs')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/--config .*nope\.mjs: no such file/)
  })

  it('a config that throws while evaluated, or never settles: one line naming the config, exit 2 (issue 34)', async () => {
    for (const [name, body, message] of [
      ['fn-throws.mjs', `export default async () => { throw new RangeError('no key\\nsecond line') }`, /fn-throws\.mjs: the config failed while evaluated: no key$/],
      ['fn-hangs.mjs', `export default () => new Promise(() => {})`, /fn-hangs\.mjs: the config did not settle within 300 ms \(set OXEVAL_CONFIG_TIMEOUT_MS/],
      ['top-hangs.mjs', `await new Promise(() => {})\nexport default {}`, /top-hangs\.mjs: the config did not settle within 300 ms/],
    ] as const) {
      const p = t.write(name, `${body}\n`)
      const bad = await runCli(['run', '--config', p, '--no-progress'], { env: { OXEVAL_CONFIG_TIMEOUT_MS: '300' } })
      expect(bad.code, `${name}: ${bad.stderr}`).toBe(2)
      expect(bad.stderr.trim().split('\n'), name).toHaveLength(1)
      expect(bad.stderr.trim(), name).toMatch(message)
    }
  })

  it("a config's inline data leaves no temp copy, after a run that passed and one that failed (issue 34)", async () => {
    const { mkdirSync, readdirSync } = await import('node:fs')
    const tmp = t.p('private-tmp')
    mkdirSync(tmp)
    const ok = t.write('inline-ok.mjs', `import ox from ${index}\nexport default ox.defineConfig({ data: [{ input: 'q', output: 'a' }], scorers: [ox.createScorer({ id: 'one', description: 'd' }).generateScore(() => 1)] })\n`)
    const bad = t.write('inline-bad.mjs', `import ox from ${index}\nexport default ox.defineConfig({ data: [42, 'x'], scorers: [ox.createScorer({ id: 'one', description: 'd' }).generateScore(() => 1)] })\n`)
    const env = { TMPDIR: tmp }
    const r = await runCli(['run', '--config', ok, '--no-progress'], { env })
    expect(r.code, r.stderr).toBe(0)
    const f = await runCli(['run', '--config', bad, '--no-progress'], { env })
    expect(f.code, f.stderr).toBe(2)
    expect(readdirSync(tmp)).toEqual([])
  })
})

describe('oxeval init', () => {
  it('writes a config, data and a target that run offline with the test judge; never overwrites without --force; needs --yes without a terminal', async () => {
    const { mkdirSync, symlinkSync, readFileSync, existsSync } = await import('node:fs')
    const dir = t.p('init-project')
    mkdirSync(join(dir, 'node_modules'), { recursive: true })
    // the project's `oxeval` dependency is this checkout
    symlinkSync(process.cwd(), join(dir, 'node_modules', 'oxeval'), 'dir')
    const ask = await runCli(['init'], { cwd: dir })
    expect(ask.code).toBe(2)
    expect(ask.stderr).toMatch(/no terminal to ask; run oxeval init --yes/)
    const r = await runCli(['init', '--yes'], { cwd: dir })
    expect(r.code, r.stderr).toBe(0)
    for (const f of ['oxeval.config.mjs', 'evals/items.jsonl', 'evals/target.mjs']) expect(existsSync(join(dir, f)), f).toBe(true)
    const again = await runCli(['init', '--yes'], { cwd: dir })
    expect(again.code).toBe(2)
    expect(again.stderr).toMatch(/already exist.*nothing was written \(--force overwrites\)/)
    expect((await runCli(['init', '--yes', '--force'], { cwd: dir })).code).toBe(0)
    const run = await runCli(['run', '--no-progress'], { cwd: dir, env: { OPENAI_API_KEY: undefined } })
    expect(run.code, run.stderr + run.stdout).toBe(0)
    expect(run.stderr).toMatch(/no OPENAI_API_KEY: judging with the built-in test judge/)
    const o = readOut(join(dir, 'evals', 'results', 'latest.jsonl'))
    expect(o.items).toHaveLength(3)
    expect(readFileSync(join(dir, 'evals', 'results', 'latest.html'), 'utf8')).toContain('<html')
  })
})

describe('oxeval watch', () => {
  it('runs once, runs again when a watched file changes (with the change since the last run), ignores results; Ctrl-C exits 0', async () => {
    const { spawn } = await import('node:child_process')
    const { mkdirSync, writeFileSync } = await import('node:fs')
    const { CLI } = await import('./helpers/cli')
    const dir = t.p('watch-project')
    mkdirSync(join(dir, 'results'), { recursive: true })
    const mod = join(dir, 'scorers.mjs')
    const write = (out: string) => writeFileSync(join(dir, 'items.jsonl'), JSON.stringify({ id: 'a', input: 'q', output: out }) + '\n')
    writeFileSync(mod, `import ox from ${index}\nexport default ox.createScorer({ id: 'len', description: 'l' }).generateScore(({ run }) => Math.min(1, String(run.output).length / 10))\n`)
    write('12345')
    const child = spawn(process.execPath, [CLI, 'watch', '--data', 'items.jsonl', '--scorers', 'scorers.mjs'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    const until = async (re: RegExp) => {
      for (let i = 0; i < 200 && !re.test(out); i++) await new Promise((r) => setTimeout(r, 50))
      expect(out).toMatch(re)
    }
    try {
      await until(/run 1: len 0\.500 · passed/)
      // a results file is not a change
      writeFileSync(join(dir, 'results', 'x.jsonl'), '{}\n')
      await new Promise((r) => setTimeout(r, 400))
      expect(out).not.toMatch(/run 2/)
      write('1234567890')
      await until(/run 2: len 1\.000 \(\+0\.500\) · passed/)
    } finally {
      child.kill('SIGINT')
    }
    const code = await new Promise((r) => child.on('close', r))
    expect(code).toBe(0)
  })

  it("does not rerun on the run's own writes: a judge cache and a target cache in folders not named *cache*, reports (issue 34)", async () => {
    const { spawn } = await import('node:child_process')
    const { mkdirSync, writeFileSync } = await import('node:fs')
    const { CLI } = await import('./helpers/cli')
    const dir = t.p('watch-own-writes')
    mkdirSync(join(dir, 'evals'), { recursive: true })
    const write = (out: string) => writeFileSync(join(dir, 'evals', 'items.jsonl'), JSON.stringify({ id: 'a', input: 'What is the capital of France?', ref: out }) + '\n')
    write('a')
    writeFileSync(
      join(dir, 'oxeval.config.mjs'),
      `import ox from ${index}
export default ox.defineConfig({
  data: 'evals/items.jsonl',
  model: { id: 'openai/scripted', url: ${JSON.stringify(judge.url)} },
  scorers: ['answer-relevancy'],
  target: async (input) => 'Paris is the capital of France.',
  cache: 'evals/judged',
  cacheTargets: 'evals/answers',
  html: 'evals/report.html',
  junit: 'evals/junit.xml',
})
`,
    )
    const child = spawn(process.execPath, [CLI, 'watch'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    const until = async (re: RegExp) => {
      for (let i = 0; i < 300 && !re.test(out); i++) await new Promise((r) => setTimeout(r, 50))
      expect(out).toMatch(re)
    }
    try {
      await until(/run 1: answer-relevancy-scorer/)
      // nothing changed: no second run (the old watch reran on its caches' files, forever)
      await new Promise((r) => setTimeout(r, 2500))
      expect(out).not.toMatch(/run 2/)
      write('b')
      await until(/run 2: /)
      await new Promise((r) => setTimeout(r, 2000))
      expect(out).not.toMatch(/run 3/)
    } finally {
      child.kill('SIGINT')
    }
    const code = await new Promise((r) => child.on('close', r))
    expect(code).toBe(0)
  })
})
