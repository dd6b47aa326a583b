// `node bench/output-size.mjs [ITEMS] [--out-prompts MODE] [--big MB] [--keep]`: what `oxeval run`
// writes and how much memory it takes. Runs the real CLI (cli/oxeval.mjs) under /usr/bin/time -v
// against the heuristic judge (testing/judge-server.mjs) in its own process, with two scorers
// (answer-relevancy + faithfulness) and --out, --html and --junit, then prints the input size,
// each output's bytes (and its multiple of the input) and the CLI's peak RSS ("Maximum resident
// set size").
//   ITEMS             items in the generated dataset (default 5000, about 250 bytes each)
//   --big MB          instead: ITEMS (default 1) items whose outputs total about MB megabytes
//                     (e.g. --big 3.9: "a ~4 MB-input run")
//   --out-prompts M   passed through to oxeval run (once, none)
//   --no-reports      --out only (no --html/--junit)
//   --only html|junit --out and that one report
//   --keep            keep the temp folder (its path is printed)
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2)
const flag = (name) => {
  const i = args.indexOf(name)
  return i >= 0 ? args.splice(i, 2)[1] : undefined
}
const has = (name) => {
  const i = args.indexOf(name)
  return i >= 0 ? (args.splice(i, 1), true) : false
}
const bigMb = flag('--big')
const outPrompts = flag('--out-prompts')
const keepDir = has('--keep')
const reports = !has('--no-reports')
const only = flag('--only') // html or junit
const n = Number(args[0] || (bigMb ? 1 : 5000))

const dir = mkdtempSync(join(tmpdir(), 'oxeval-size-'))
const rows = []
if (bigMb) {
  const sentence = 'Paris is the capital of France and a large city. '
  const per = Math.floor((Number(bigMb) * 1048576) / n / sentence.length)
  for (let i = 0; i < n; i++) rows.push({ id: `big-${i}`, input: 'What is the capital of France?', output: sentence.repeat(per), context: ['Paris is the capital of France.'] })
} else {
  const cities = ['Paris', 'Rome', 'Madrid', 'Berlin', 'Vienna', 'Lisbon', 'Athens', 'Dublin']
  for (let i = 0; i < n; i++) {
    const c = cities[i % cities.length]
    rows.push({
      id: `q${i}`,
      input: `What is the capital of the country whose capital is ${c}? (question ${i})`,
      output: `${c} is the capital. It has many museums and about ${1 + (i % 9)} million people.`,
      context: [`${c} is the capital city of its country.`, `${c} has a large population.`],
    })
  }
}
const data = join(dir, 'data.jsonl')
writeFileSync(data, rows.map((r) => JSON.stringify(r)).join('\n') + '\n')

const judge = spawn(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(join(root, 'testing', 'judge-server.mjs'))}); const s = await m.startJudgeServer({ handler: m.heuristicJudge, maxRecorded: 1 }); console.log(s.url)`], { stdio: ['ignore', 'pipe', 'inherit'] })
process.on('exit', () => judge.kill())
const url = (await createInterface({ input: judge.stdout })[Symbol.asyncIterator]().next()).value

const out = join(dir, 'out.jsonl')
const cliArgs = [join(root, 'cli', 'oxeval.mjs'), 'run', '--data', data, '--scorer', 'answer-relevancy', '--scorer', 'faithfulness', '--model', 'openai/bench', '--model-url', url, '--out', out, '--no-progress', '--concurrency', '16']
if (bigMb) cliArgs.push('--option', '*.modelSettings.maxResponseBytes=1073741824', '--option', '*.modelSettings.timeoutMs=600000')
if (reports && only !== 'junit') cliArgs.push('--html', join(dir, 'report.html'))
if (reports && only !== 'html') cliArgs.push('--junit', join(dir, 'report.xml'))
if (outPrompts) cliArgs.push('--out-prompts', outPrompts)
const t0 = Date.now()
const r = spawnSync('/usr/bin/time', ['-v', process.execPath, ...cliArgs], { encoding: 'utf8', maxBuffer: 1 << 28 })
const secs = (Date.now() - t0) / 1000
const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)
if (r.status !== 0 && r.status !== 1) {
  process.stderr.write(r.stderr.slice(-4000))
  throw new Error(`oxeval run exited ${r.status}`)
}
const size = (f) => {
  try {
    return statSync(f).size
  } catch {
    return null
  }
}
const input = size(data)
const mb = (b) => (b === null ? null : +(b / 1048576).toFixed(2))
const x = (b) => (b === null ? null : +(b / input).toFixed(1))
const result = {
  items: n,
  outPrompts: outPrompts || 'default',
  inputMB: mb(input),
  outMB: mb(size(out)),
  outX: x(size(out)),
  htmlMB: reports ? mb(size(join(dir, 'report.html'))) : undefined,
  htmlX: reports ? x(size(join(dir, 'report.html'))) : undefined,
  junitMB: reports ? mb(size(join(dir, 'report.xml'))) : undefined,
  peakRssMB: rss ? Math.round(Number(rss[1]) / 1024) : null,
  seconds: secs,
  exit: r.status,
}
console.log(JSON.stringify(result))
if (keepDir) console.log(dir)
else rmSync(dir, { recursive: true, force: true })
process.exit(0)
