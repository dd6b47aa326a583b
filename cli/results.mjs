// The results file (`--out results.jsonl`): line 1 `{ type: 'run', … }` (the run's header),
// then one `{ type: 'item', …EvalItemResult }` per item in completion order, then
// `{ type: 'summary', …EvalRunResult without items }`. Written as a stream (flat memory);
// `oxeval merge` reads shard files back. Nothing secret is ever written: the model is its id
// and a URL without userinfo, query or fragment; API keys and headers are never part of it.
import { accessSync, constants, createWriteStream, openSync, readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { once } from 'node:events'
import { UsageError } from './errors.mjs'

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
  if (typeof model === 'string') return model
  return { id: model.id, url: publicUrl(model.url) }
}

/** A line-per-record JSONL writer that honours backpressure. */
export class JsonlWriter {
  /** Opens (truncates) `file` at once: a path that cannot be written is a usage error before any work. */
  constructor(file, flag = '--out') {
    this.file = file
    let fd
    try {
      fd = openSync(file, 'w')
    } catch (e) {
      throw new UsageError(`${flag} ${file}: cannot write the file (${e.code || e.message})`)
    }
    this.stream = createWriteStream('', { fd })
    this.error = null
    this.stream.on('error', (e) => {
      this.error = e
    })
  }
  async write(record) {
    if (this.error) throw this.error
    if (!this.stream.write(`${JSON.stringify(record)}\n`)) await once(this.stream, 'drain')
  }
  async close() {
    if (this.error) throw this.error
    this.stream.end()
    await once(this.stream, 'finish')
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
    if (type === 'item') items.push(rest)
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
