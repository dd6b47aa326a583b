// The results file (`--out results.jsonl`): line 1 `{ type: 'run', … }` (the run's header),
// then one `{ type: 'item', …EvalItemResult }` per item in completion order, then
// `{ type: 'summary', …EvalRunResult without items }`. Written as a stream (flat memory);
// `oxeval merge` reads shard files back. Nothing secret is ever written: the model is its id
// and a URL without userinfo, query or fragment; API keys and headers are never part of it.
//
// Prompts (header `prompts`, from `--out-prompts`):
//   "once" (default)  each prompt is stored once per item and scorer: in the Mastra step key
//                     (`results[S].preprocessPrompt`, `analyzePrompt`, `generateReasonPrompt`, …).
//                     A judge execution whose prompt equals one of those keys stores
//                     `"promptRef": "<key>"` instead of `"prompt"`
//                     (`results[S].judge.analyze.executions[0] = { "promptRef": "analyzePrompt", … }`);
//                     an execution whose prompt differs (a retry with another prompt) keeps it.
//                     `readResults` (merge) puts `prompt` back, so readers see runEvals' records.
//   "none"            no prompt at all: no `*Prompt` keys in results, no `prompt`/`promptRef` in
//                     executions (scores, reasons, step results, usage and errors are kept).
//   A file without `prompts` (older versions) stores every prompt in full; it reads the same.
//
// Records that cannot be serialized (JSON.stringify throws: a structure nested too deep, a
// BigInt, a cycle, a string past V8's limit) never stop the run: the item is written as
// `{ type: 'item', index, id?, unserializable: "<why>", results: { S: { score, reason? } },
// errors?, trials? }` with what of it can be written, and a warning goes to stderr.
//
// One run at a time per --out file: the writer holds `<out>.lock` (created exclusively, it holds
// the pid) while it writes; a second run refuses to start (exit 2) unless the lock's process is
// gone (a stale lock is taken over). `--out`, `--html`, `--junit` and `--data` must name
// different files (compared by real path).
import { accessSync, closeSync, constants, createWriteStream, openSync, readFileSync, realpathSync, statSync, unlinkSync, writeSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { once } from 'node:events'
import { UsageError } from './errors.mjs'
import { writeHtmlReport } from '../report/html.mjs'
import { writeJunitReport } from '../report/junit.mjs'

/** A URL as safe to write down: no userinfo, no query string, no fragment. */
export function publicUrl(url) {
  try {
    const u = new URL(url)
    u.username = ''
    u.password = ''
    u.search = ''
    u.hash = ''
    return u.toString()
  } catch {
    return '[invalid URL]'
  }
}

/** The model as the header records it: `'provider/model'` or `{ id, url }` (public URL). */
export function publicModel(model) {
  // a run of checks and code scorers only has no judge model
  if (model === undefined || model === null) return null
  if (typeof model === 'string') return model
  return { id: model.id, url: publicUrl(model.url) }
}

/** The `--out-prompts` modes. */
export const PROMPT_MODES = ['once', 'none']

/** Validates an `--out-prompts` value (default "once"). */
export function promptMode(text, flag = '--out-prompts') {
  if (text === undefined) return 'once'
  if (!PROMPT_MODES.includes(text)) throw new UsageError(`${flag} must be ${PROMPT_MODES.join(' or ')}; got "${text}"`)
  return text
}

const isPromptKey = (k, v) => k.endsWith('Prompt') && typeof v === 'string'

/** One scorer result as written: prompts once (`promptRef`) or none. Never mutates `r`. */
function encodeResult(r, mode) {
  if (!r || typeof r !== 'object' || Array.isArray(r)) return r
  const out = {}
  const byText = new Map()
  for (const [k, v] of Object.entries(r)) {
    if (isPromptKey(k, v)) {
      if (mode === 'none') continue
      if (!byText.has(v)) byText.set(v, k)
    }
    out[k] = v
  }
  const judge = r.judge
  if (judge && typeof judge === 'object' && !Array.isArray(judge)) {
    const j = {}
    for (const [step, rec] of Object.entries(judge)) {
      if (!rec || typeof rec !== 'object' || !Array.isArray(rec.executions)) {
        j[step] = rec
        continue
      }
      const executions = rec.executions.map((e) => {
        if (!e || typeof e !== 'object' || typeof e.prompt !== 'string') return e
        const { prompt, ...rest } = e
        if (mode === 'none') return rest
        // the step's own key first (`analyze` → `analyzePrompt`), else any equal *Prompt key
        const own = `${step}Prompt`
        const ref = r[own] === prompt ? own : byText.get(prompt)
        return ref !== undefined ? { promptRef: ref, ...rest } : e
      })
      j[step] = { ...rec, executions }
    }
    out.judge = j
  }
  return out
}

/** An item record as written to --out (see the header comment): prompts stored once, or none. */
export function encodeItem(item, mode = 'once') {
  if (!item || typeof item !== 'object' || !item.results || typeof item.results !== 'object') return item
  const results = {}
  for (const [id, r] of Object.entries(item.results)) results[id] = encodeResult(r, mode)
  // a turns item: each turn's results alike
  if (Array.isArray(item.turns)) return { ...item, results, turns: item.turns.map((t) => encodeItem(t, mode)) }
  return { ...item, results }
}

/** The inverse of encodeItem for "once": every `promptRef` replaced by the prompt it names (in place). */
export function restoreItem(item) {
  if (!item || typeof item !== 'object' || !item.results || typeof item.results !== 'object') return item
  for (const r of Object.values(item.results)) {
    if (!r || typeof r !== 'object' || !r.judge || typeof r.judge !== 'object') continue
    for (const rec of Object.values(r.judge)) {
      if (!rec || !Array.isArray(rec.executions)) continue
      rec.executions = rec.executions.map((e) => {
        if (!e || typeof e !== 'object' || typeof e.promptRef !== 'string') return e
        const { promptRef, ...rest } = e
        return typeof r[promptRef] === 'string' ? { ...rest, prompt: r[promptRef] } : e
      })
    }
  }
  if (Array.isArray(item.turns)) item.turns.forEach(restoreItem)
  return item
}

function describeError(e) {
  if (e instanceof RangeError && /call stack/i.test(e.message)) return 'nested too deep to serialize'
  if (e instanceof RangeError && /string length/i.test(e.message)) return 'too large to serialize'
  if (e instanceof TypeError && /BigInt/i.test(e.message)) return 'contains a BigInt'
  if (e instanceof TypeError && /circular/i.test(e.message)) return 'contains a cycle'
  return `cannot be serialized (${e && e.name ? e.name : 'Error'}: ${String(e && e.message).split('\n')[0].slice(0, 200)})`
}

/** JSON text of `v`, or undefined when it cannot be serialized. */
function tryJson(v) {
  try {
    return JSON.stringify(v)
  } catch {
    return undefined
  }
}

/**
 * What can be kept of a record that JSON.stringify refused: its type, index and id, per scorer
 * the score and reason, the errors and trial stats (each only if it serializes), and why.
 */
export function replacementRecord(record, why) {
  const out = { type: record && typeof record.type === 'string' ? record.type : 'item' }
  const keep = (k, v) => {
    if (v !== undefined && tryJson(v) !== undefined) out[k] = v
  }
  if (record && typeof record === 'object') {
    keep('index', record.index)
    if (typeof record.id === 'string' || typeof record.id === 'number') keep('id', record.id)
    out.unserializable = why
    if (record.results && typeof record.results === 'object') {
      const results = {}
      for (const [id, r] of Object.entries(record.results)) {
        if (!r || typeof r !== 'object') continue
        const x = {}
        if (typeof r.score === 'number' || r.score === null) x.score = r.score
        if (typeof r.reason === 'string') x.reason = r.reason
        results[id] = x
      }
      out.results = results
    }
    for (const k of ['targetError', 'errors', 'trials', 'usage', 'durationMs']) {
      if (record[k] && typeof record[k] === 'object' && !Array.isArray(record[k]) && k !== 'targetError') {
        const o = {}
        for (const [id, v] of Object.entries(record[k])) if (tryJson(v) !== undefined) o[id] = v
        out[k] = o
      } else keep(k, record[k])
    }
  } else out.unserializable = why
  return out
}

/** `record` as one JSONL line; a record that cannot be serialized becomes its replacementRecord. */
export function recordLine(record, onReplace) {
  try {
    return `${JSON.stringify(record)}\n`
  } catch (e) {
    const why = describeError(e)
    if (onReplace) onReplace(why, record)
    return `${JSON.stringify(replacementRecord(record, why))}\n`
  }
}

const pidAlive = (pid) => {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return e.code === 'EPERM'
  }
}

const held = new Set()
process.once('exit', () => {
  for (const f of held) {
    try {
      unlinkSync(f)
    } catch {}
  }
})

/**
 * Takes `<file>.lock` (created exclusively, holding this pid): a UsageError when another live
 * process holds it; a lock whose pid is gone is taken over. Returns a release function.
 */
export function lockFile(file, flag = '--out') {
  const lock = `${resolve(file)}.lock`
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd
    try {
      fd = openSync(lock, 'wx')
    } catch (e) {
      if (e.code !== 'EEXIST') throw new UsageError(`${flag} ${file}: cannot write the file (${e.code || e.message}; creating its lock ${lock})`)
      let pid = NaN
      try {
        pid = Number(readFileSync(lock, 'utf8').trim())
      } catch {}
      if (pidAlive(pid) && pid !== process.pid) {
        throw new UsageError(`${flag} ${file}: another oxeval (pid ${pid}) is writing it (lock ${lock}); wait for it, or delete the lock if that process is not oxeval`)
      }
      // a stale lock (its process is gone, or unreadable): take it over
      try {
        unlinkSync(lock)
      } catch {}
      continue
    }
    try {
      writeSync(fd, `${process.pid}\n`)
    } finally {
      closeSync(fd)
    }
    held.add(lock)
    return () => {
      if (!held.delete(lock)) return
      try {
        unlinkSync(lock)
      } catch {}
    }
  }
  throw new UsageError(`${flag} ${file}: cannot take the lock ${lock} (it keeps reappearing)`)
}

/**
 * A line-per-record JSONL writer that honours backpressure. A write error (a full disk, EFBIG
 * under `ulimit -f`, EIO) never throws from write() or close(): the writer stops writing, keeps
 * the first error in `error` and the caller reports it after the run. A record that cannot be
 * serialized is written as its replacementRecord (`onReplace(why, record)` is told).
 */
export class JsonlWriter {
  /**
   * Opens (truncates) `file` at once, after taking `<file>.lock` (`lock: false` to skip): a path
   * that cannot be written, or a file another run is writing, is a usage error before any work.
   */
  constructor(file, flag = '--out', { lock = true, onReplace } = {}) {
    this.file = file
    this.flag = flag
    this.onReplace = onReplace
    // a device or a FIFO (/dev/stdout, /dev/null, a named pipe) has no lock
    this.release = lock && isRegularOrAbsent(file) ? lockFile(file, flag) : () => {}
    let fd
    try {
      fd = openSync(file, 'w')
    } catch (e) {
      this.release()
      throw new UsageError(`${flag} ${file}: cannot write the file (${e.code || e.message})`)
    }
    this.stream = createWriteStream('', { fd })
    this.error = null
    this.stream.on('error', (e) => {
      if (!this.error) this.error = e
    })
  }
  /** Writes one record (never throws; after an error, records are dropped). */
  async write(record) {
    if (this.error) return false
    const line = recordLine(record, this.onReplace)
    if (this.stream.write(line)) return true
    // a failed stream never emits 'drain': wait for whichever comes first
    await new Promise((done) => {
      const finish = () => {
        this.stream.off('drain', finish)
        this.stream.off('error', finish)
        this.stream.off('close', finish)
        done()
      }
      this.stream.on('drain', finish)
      this.stream.on('error', finish)
      this.stream.on('close', finish)
    })
    return !this.error
  }
  /** Flushes and closes (never throws): `error` is the first write error, or null. */
  async close() {
    if (!this.stream.destroyed && !this.stream.writableFinished) {
      const done = new Promise((ok) => {
        this.stream.once('close', ok)
        this.stream.once('error', ok)
      })
      this.stream.end()
      await done
    }
    this.release()
    return this.error
  }
}

function isRegularOrAbsent(file) {
  try {
    return statSync(file).isFile()
  } catch {
    return true
  }
}

/** A message for a write error: `--out FILE: write failed (EFBIG: file too large)`. */
export function writeErrorText(flag, file, e) {
  const code = e && e.code ? `${e.code}: ` : ''
  const msg = e && e.message ? e.message.replace(/^[A-Z]+: /, '').split(',')[0] : String(e)
  return `${flag} ${file}: write failed (${code}${msg}); this file is incomplete`
}

/** The real path `file` names (its folder resolved through symlinks when the file does not exist yet). */
function realTarget(file) {
  const abs = resolve(file)
  try {
    return realpathSync(abs)
  } catch {
    try {
      return resolve(realpathSync(dirname(abs)), basename(abs))
    } catch {
      return abs
    }
  }
}

/**
 * Refuses (UsageError) two of `pairs` (`[flag, file]`, undefined files skipped) naming the same
 * file: compared by real path, and by device + inode when both exist (hard links). Two inputs
 * (flag `input`, `--data`) may be the same file: only a clash involving an output is refused.
 */
export function checkDistinct(pairs) {
  const seen = []
  for (const [flag, file] of pairs) {
    if (file === undefined || file === null) continue
    const real = realTarget(file)
    if (real === '/dev/null') continue
    let id = null
    try {
      const st = statSync(real)
      id = `${st.dev}:${st.ino}`
    } catch {}
    const isInput = (f) => f === 'input' || f === '--data'
    const clash = seen.find((s) => (s.real === real || (id !== null && s.id === id)) && !(isInput(s.flag) && isInput(flag)))
    if (clash) {
      throw new UsageError(`${flag} ${file} and ${clash.flag} ${clash.file} name the same file; ${isInput(flag) || isInput(clash.flag) ? 'an output would overwrite an input' : 'give each output its own file'}`)
    }
    seen.push({ flag, file, real, id })
  }
}

/** Reads a results file: `{ header, items, summary }` (summary null when the run did not finish writing). */
export function readResults(file) {
  let text
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    throw new UsageError(`${file}: cannot read the file (${e.code || e.message})`)
  }
  let header = null
  let summary = null
  const items = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === '') continue
    let rec
    try {
      rec = JSON.parse(lines[i])
    } catch (e) {
      throw new UsageError(`${file}:${i + 1}: invalid JSON (${e.message})`)
    }
    if (rec === null || typeof rec !== 'object') throw new UsageError(`${file}:${i + 1}: not a results record`)
    if (i === 0 || header === null) {
      if (rec.type !== 'run') throw new UsageError(`${file}: line 1 is not an oxeval results header ({ "type": "run" }); is this an \`oxeval run --out\` file?`)
      header = rec
      continue
    }
    const { type, ...rest } = rec
    if (type === 'item') items.push(restoreItem(rest))
    else if (type === 'summary') summary = rest
    else throw new UsageError(`${file}:${i + 1}: unknown record type ${JSON.stringify(type)}`)
  }
  if (!header) throw new UsageError(`${file}: empty results file`)
  return { header, items, summary }
}

/** Fails early (a UsageError) when `file` could not be created later: its folder is missing or read-only. */
export function checkWritable(flag, file) {
  if (file === undefined) return
  const dir = dirname(resolve(file))
  try {
    accessSync(dir, constants.W_OK)
  } catch (e) {
    throw new UsageError(`${flag} ${file}: cannot write into ${dir} (${e.code || e.message})`)
  }
}

/**
 * Writes the --html and --junit reports of `report` (each that was asked for). A report that
 * cannot be written costs neither the other one nor the summary: its error is said on stderr
 * (`say`) and the result is `true` (some write failed).
 */
export async function writeReports({ html, junit }, report, say) {
  let failed = false
  for (const [flag, file, write] of [['--html', html, writeHtmlReport], ['--junit', junit, writeJunitReport]]) {
    if (!file) continue
    try {
      await write(file, report)
    } catch (e) {
      failed = true
      say(`oxeval: ${writeErrorText(flag, file, e)}`)
    }
  }
  return failed
}
