// Running the real `oxeval` bin (cli/oxeval.mjs) in a child process, for CLI specs: a temp
// folder per spec, the scripted judge, JSONL helpers and a reader for --out files.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { JudgeServer } from '../../testing/judge-server.mjs'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any

export const root = fileURLToPath(new URL('../..', import.meta.url))
export const CLI = join(root, 'cli', 'oxeval.mjs')

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface CliOptions {
  env?: Record<string, string | undefined>
  cwd?: string
  onSpawn?: (child: ReturnType<typeof spawn>) => void
  timeoutMs?: number
}

/** Runs the CLI in `opts.cwd` (async: a judge server in this process answers meanwhile). */
export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // the CI's run variables would join every test's shards into one stored run (docs/store.md
    // "Shards"); a test that wants them sets them
    const ciRun = { OXEVAL_RUN_ID: undefined, GITHUB_RUN_ID: undefined, CI_PIPELINE_ID: undefined, BUILDKITE_BUILD_ID: undefined, CIRCLE_WORKFLOW_ID: undefined }
    const env = { ...process.env, OXEVAL_MODEL: undefined, OXEVAL_CACHE_DIR: undefined, ...ciRun, ...opts.env }
    const child = spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`oxeval ${args.join(' ')} did not finish in time\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, opts.timeoutMs ?? 30000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
    opts.onSpawn?.(child)
  })
}

/** A temp folder with helpers to write files into it; `remove()` in afterAll. */
export function tempDir(prefix = 'oxeval-cli-') {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const p = (name: string) => join(dir, name)
  return {
    dir,
    p,
    write(name: string, text: string | Buffer) {
      writeFileSync(p(name), text)
      return p(name)
    },
    remove() {
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Rows as JSONL text (strings are written as they are). */
export const jsonl = (rows: unknown[]) => rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n'

/** Flags for the scripted judge at `server`. */
export const judgeArgs = (server: JudgeServer) => ['--model', 'openai/scripted-judge', '--model-url', server.url]

export interface ResultsFile {
  header: Any
  items: Any[]
  summary: Any
}

/** Reads an `--out` file: header, item records, summary (null when the run did not finish writing). */
export function readOut(file: string): ResultsFile {
  const recs = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l))
  const last = recs[recs.length - 1]
  return { header: recs[0], items: recs.filter((r) => r.type === 'item'), summary: last && last.type === 'summary' ? last : null }
}
