// `oxeval watch [run options]`: runs once, then again whenever a file of the project changes
// (the config, a dataset, a scorer module: anything under the working directory except
// results, caches, node_modules and dot-folders), each run in a child `oxeval run` with the
// same options. Use a cache (`cache` in the config, or --cache DIR) so a rerun pays only for
// what changed. After each run: one line per scorer with its mean and the change since the
// previous run, and the outcome. Ctrl-C stops (exit 0).
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, watch as fsWatch } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, sep } from 'node:path'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { UsageError } from './errors.mjs'
import { meansById } from '../report/items.mjs'
import { RUN_OPTIONS } from './run.mjs'

export const WATCH_HELP = `Usage: oxeval watch [run options]

Runs \`oxeval run\` with the same options (or the config of the working directory), then again
whenever a source under the working directory changes: .ts/.js/.mjs/.json/.jsonl/.csv files
(not node_modules, dot-folders, folders named results or *cache*, nor what a run writes: its
cache, target cache, --out, --html and --junit files, wherever they are). Give it a cache (--cache DIR, or \`cache\` in the config) so reruns pay
only for what changed. Prints each run's means and their change since the previous run.
Ctrl-C stops (exit 0).
`

const CLI = fileURLToPath(new URL('./oxeval.mjs', import.meta.url))
const IGNORED = /(^|[\\/])(node_modules|\.[^\\/]+|results|[^\\/]*cache[^\\/]*|target)([\\/]|$)/
/** What a project's sources are (a report or JUnit file a run writes is not one). */
const SOURCE = /\.(c|m)?(t|j)sx?$|\.jsonl?$|\.csv$/

/** Whether absolute `file` is `p` or lies under it. */
const within = (file, p) => file === p || file.startsWith(p.endsWith(sep) ? p : p + sep)

/**
 * What a run writes, as absolute paths: the flags' (--cache, --cache-targets, --html, --junit;
 * resolved from `root`), the store (.oxeval/), and what the child run reports in `pathsFile`
 * (OXEVAL_WATCH_PATHS: the config's paths, resolved as the run resolves them).
 */
function ownPaths(argv, root, pathsFile) {
  const out = [resolve(root, '.oxeval')]
  try {
    const { values } = parseArgs({ args: argv, options: RUN_OPTIONS, allowPositionals: false, strict: false })
    for (const k of ['cache', 'cache-targets', 'html', 'junit']) if (typeof values[k] === 'string') out.push(resolve(root, values[k]))
  } catch {
    // the run reports the flags' mistakes itself
  }
  if (process.env.OXEVAL_CACHE_DIR) out.push(resolve(root, process.env.OXEVAL_CACHE_DIR))
  try {
    const reported = JSON.parse(readFileSync(pathsFile, 'utf8'))
    if (Array.isArray(reported)) for (const p of reported) if (typeof p === 'string') out.push(resolve(root, p))
  } catch {
    // not written yet (the run has not resolved its config) or no run yet
  }
  return out
}

/** Whether a changed file is a source (a run's own files, and an --out file by its header, are not). */
function isSource(root, name, own = []) {
  if (IGNORED.test(name) || !SOURCE.test(name)) return false
  const file = resolve(root, name)
  if (own.some((p) => within(file, p))) return false
  if (!name.endsWith('.jsonl')) return true
  try {
    const head = readFileSync(join(root, name), 'utf8').slice(0, 40)
    return !head.startsWith('{"type":"run"')
  } catch {
    return true
  }
}

/** The means and outcome of an --out file (null when it has no summary). */
function readSummary(file) {
  try {
    const lines = readFileSync(file, 'utf8').trim().split('\n')
    const last = JSON.parse(lines[lines.length - 1])
    return last && last.type === 'summary' ? last : null
  } catch {
    return null
  }
}

function line(run, summary, previous) {
  const t = new Date().toTimeString().slice(0, 8)
  if (!summary) return `[${t}] run ${run}: no results (see the messages above)`
  // the categorized form's means by id, as the flat form's
  const before = previous ? meansById(previous.scores) : {}
  const parts = Object.entries(meansById(summary.scores)).map(([id, m]) => {
    const p = before[id]
    const mean = typeof m === 'number' ? m.toFixed(3) : '–'
    const d = typeof m === 'number' && typeof p === 'number' ? m - p : undefined
    return `${id} ${mean}${d === undefined ? '' : ` (${Math.abs(d) < 5e-4 ? '=' : `${d > 0 ? '+' : ''}${d.toFixed(3)}`})`}`
  })
  const status = summary.outcome ? summary.outcome.status : 'unknown'
  return `[${t}] run ${run}: ${parts.join(', ')} · ${status}`
}

export async function watch(argv, io = { stdout: process.stdout, stderr: process.stderr }) {
  if (argv.includes('--help') || argv.includes('-h')) return { help: true }
  for (const f of ['--out', '-o', '--shard']) if (argv.includes(f)) throw new UsageError(`watch: ${f} is not for watch (each run writes its own results; use oxeval run for files)`)
  const root = resolve('.')
  const tmp = mkdtempSync(join(tmpdir(), 'oxeval-watch-'))
  // each child run writes there the paths it writes to (run.mjs, OXEVAL_WATCH_PATHS)
  const pathsFile = join(tmp, 'paths.json')
  let previous = null
  let runs = 0
  let child = null
  let again = false
  let stopping = false
  let timer = null

  const runOnce = () =>
    new Promise((done) => {
      runs++
      const out = join(tmp, `run-${runs}.jsonl`)
      child = spawn(process.execPath, [CLI, 'run', ...argv, '--out', out, '--no-progress'], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OXEVAL_WATCH_PATHS: pathsFile } })
      let err = ''
      child.stderr.on('data', (d) => (err += d))
      child.on('close', (code) => {
        child = null
        if (stopping) return done()
        const summary = readSummary(out)
        if (!summary && err) io.stderr.write(err)
        else if (code === 2) io.stderr.write(err)
        io.stdout.write(`${line(runs, summary, previous)}\n`)
        if (summary) previous = summary
        rmSync(out, { force: true })
        done()
      })
    })

  const loop = async () => {
    do {
      again = false
      await runOnce()
    } while (again && !stopping)
  }
  let running = loop()
  const watcher = fsWatch(root, { recursive: true }, (_event, name) => {
    if (stopping || !name || !isSource(root, String(name), ownPaths(argv, root, pathsFile))) return
    clearTimeout(timer)
    // a burst of writes (an editor's save) is one change
    timer = setTimeout(() => {
      if (child) again = true
      else running = loop()
    }, 150)
  })
  io.stdout.write(`oxeval watch: watching ${root} (Ctrl-C stops)\n`)
  await new Promise((stop) => {
    const end = () => {
      stopping = true
      watcher.close()
      clearTimeout(timer)
      if (child) child.kill('SIGTERM')
      Promise.resolve(running).then(stop)
    }
    process.once('SIGINT', end)
    process.once('SIGTERM', end)
  })
  rmSync(tmp, { recursive: true, force: true })
  return { code: 0 }
}
