// Reading an eval dataset for `oxeval run`: .jsonl (one item per line), .json (an array),
// .csv (a header row; every column reaches the item). Files are streamed (never read into one
// string), so their size is bounded by the disk, not by V8's string limit. Every row gets an
// index in file order (bad rows included, so shard membership and result indexes stay stable
// when a row is fixed). A bad row is reported and becomes an invalid data item in its place
// (runEvals counts it as an item error), never fatal; a row nested deeper than MAX_DEPTH is a
// bad row. An unreadable file, a file that is not valid JSON / CSV as a whole, or one without a
// single valid item is a data error (exit 2).
//
// `oxeval run` reads the file twice: `scanDataset` (counts, bad rows, the sha-256 fingerprint
// recorded in the --out header for `oxeval merge`) and then `shardItems` (the items fed to
// runEvals as an async iterable, one at a time).
import { createReadStream } from 'node:fs'
import { createHash } from 'node:crypto'
import { basename, extname } from 'node:path'
import { Readable } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import { parse as parseCsv } from 'csv-parse'
import { UsageError } from './errors.mjs'
import { collectTurnNames, turnsError } from './agents.mjs'

export const DATA_FORMATS = ['.jsonl', '.json', '.csv']

/**
 * Rows nested deeper than this (objects and arrays, the row itself is level 1) are bad rows:
 * real datasets use a handful of levels, and deeper structures would overflow recursive
 * writers and readers later (JSON.stringify, the native side's parser).
 */
export const MAX_DEPTH = 64

/**
 * A row (a JSONL line, a JSON array element, a CSV record) larger than this is a bad row, not
 * read: V8 cannot hold a string much past 512 MiB, and no eval item needs a quarter of that.
 */
export const MAX_ROW_BYTES = 256 * 1024 * 1024

const sizeText = (n) => (n >= 1048576 ? `${Math.floor(n / 1048576)} MiB` : `${n} bytes`)
const tooLarge = (n, limit) => `a row of ${sizeText(n)} or more (the limit is ${sizeText(limit)})`

/** The key runEvals reads on an invalid data item: `'<file>:<line>: <message>'`. */
export const INVALID_ITEM = Symbol.for('oxeval.invalidItem')

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)
const typeName = (v) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v)

/** Checks one raw record and picks the item fields; returns `{ item }` or `{ error }`. */
export function toItem(raw) {
  if (!isObject(raw)) return { error: `expected an object, got ${typeName(raw)}` }
  // a multi-turn item (inputs, turns) carries its input per turn; its shape is runEvals' to judge
  const multi = raw.inputs !== undefined || raw.turns !== undefined
  if (!multi && (raw.input === undefined || raw.input === null || raw.input === '')) return { error: 'missing "input"' }
  const turns = turnsError(raw.turns)
  if (turns) return { error: turns }
  const item = {}
  if (raw.id !== undefined && raw.id !== null && raw.id !== '') {
    if (typeof raw.id !== 'string' && typeof raw.id !== 'number') return { error: `"id" must be a string or number, got ${typeName(raw.id)}` }
    item.id = String(raw.id)
  }
  if (raw.input !== undefined) item.input = raw.input
  if (raw.output !== undefined) item.output = raw.output
  if (raw.groundTruth !== undefined) item.groundTruth = raw.groundTruth
  if (raw.context !== undefined && raw.context !== null) {
    const c = typeof raw.context === 'string' ? [raw.context] : raw.context
    if (!Array.isArray(c) || !c.every((s) => typeof s === 'string')) return { error: '"context" must be an array of strings' }
    item.context = c
  }
  // any other field is the scorers' (e.g. summarization's `source`, noise sensitivity's
  // `baselineResponse`): runEvals passes it through to each run
  for (const [k, v] of Object.entries(raw)) {
    if (!(k in item) && k !== 'id' && k !== 'context' && v !== undefined && v !== null && v !== '') item[k] = v
  }
  return { item }
}

/** What of a bad row can still be shown: its id and input, when the row got that far. */
function readable(raw) {
  if (!isObject(raw)) return {}
  const out = {}
  if (typeof raw.id === 'string' || typeof raw.id === 'number') out.id = String(raw.id)
  if (raw.input !== undefined && raw.input !== null && raw.input !== '') out.input = raw.input
  return out
}

/** A row from its record: `{ item }` or `{ error, id?, input? }`. */
function rowOf(raw) {
  const r = toItem(raw)
  return r.item ? r : { ...readable(raw), error: r.error }
}

/** Whether the JSON text nests objects/arrays deeper than `limit` (strings skipped; no parse). */
export function nestedDeeper(text, limit = MAX_DEPTH) {
  let depth = 0
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      // a string: jump to its closing quote
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i)
        if (d === 92) i++
        else if (d === 34) break
      }
    } else if (c === 91 || c === 123) {
      if (++depth > limit) return true
    } else if (c === 93 || c === 125) depth--
  }
  return false
}

const TOO_DEEP = `nested deeper than ${MAX_DEPTH} levels (objects and arrays)`

/** One JSON record's text as a row: the depth is checked before it is parsed. */
function jsonRow(text) {
  if (nestedDeeper(text)) return { error: TOO_DEEP }
  let raw
  try {
    raw = JSON.parse(text)
  } catch (e) {
    return { error: `invalid JSON (${e.message})` }
  }
  return rowOf(raw)
}

/** A fresh fingerprint: updated by `fileChunks` with every byte read. */
export function newFingerprint() {
  return { hash: createHash('sha256'), bytes: 0, done: false, sha256: undefined }
}

/** Ends a fingerprint: `{ sha256, bytes }`. */
function finish(fp) {
  if (!fp.done) {
    fp.sha256 = fp.hash.digest('hex')
    fp.done = true
  }
  return { sha256: fp.sha256, bytes: fp.bytes }
}

/** The file's bytes as a stream of Buffers (1 MiB reads), hashed into `fp` when given. */
export async function* fileChunks(file, fp) {
  const stream = createReadStream(file, { highWaterMark: 1 << 20 })
  try {
    for await (const chunk of stream) {
      if (fp) {
        fp.hash.update(chunk)
        fp.bytes += chunk.length
      }
      yield chunk
    }
  } catch (e) {
    if (e instanceof UsageError) throw e
    throw new UsageError(`cannot read the file (${e.code || e.message})`)
  } finally {
    stream.destroy()
  }
  if (fp) finish(fp)
}

/**
 * The lines of a byte stream: `{ line, text }` (1-based line numbers; `\n` or `\r\n` ends a
 * line; a UTF-8 BOM at the start of the file is dropped). Only one line is held at a time; a
 * line longer than `maxBytes` is not kept: `{ line, text: null, bytes }` (bytes: at least).
 */
export async function* lines(chunks, maxBytes = MAX_ROW_BYTES) {
  let parts = []
  let size = 0
  let dropped = false
  let line = 0
  const text = () => {
    size = 0
    if (dropped) {
      dropped = false
      parts = []
      return null
    }
    const buf = parts.length === 1 ? parts[0] : Buffer.concat(parts)
    parts = []
    let s = buf.toString('utf8')
    if (line === 1 && s.charCodeAt(0) === 0xfeff) s = s.slice(1)
    if (s.charCodeAt(s.length - 1) === 13) s = s.slice(0, -1)
    return s
  }
  const add = (buf) => {
    size += buf.length
    if (dropped) return
    if (size > maxBytes) {
      dropped = true
      parts = []
    } else parts.push(buf)
  }
  for await (const chunk of chunks) {
    let start = 0
    let nl
    while ((nl = chunk.indexOf(10, start)) !== -1) {
      add(chunk.subarray(start, nl))
      line++
      const bytes = size
      const t = text()
      yield t === null ? { line, text: null, bytes } : { line, text: t }
      start = nl + 1
    }
    if (start < chunk.length) add(chunk.subarray(start))
  }
  if (parts.length || dropped) {
    line++
    const bytes = size
    const t = text()
    yield t === null ? { line, text: null, bytes } : { line, text: t }
  }
}

async function* jsonlRows(chunks, maxBytes) {
  for await (const { line, text, bytes } of lines(chunks, maxBytes)) {
    if (text === null) yield { line, error: tooLarge(bytes, maxBytes) }
    else if (text.trim() !== '') yield { line, ...jsonRow(text) }
  }
}

const isWs = (c) => c === 32 || c === 10 || c === 13 || c === 9

/**
 * The top-level elements of a JSON array, streamed: `{ line, text }` (the element's JSON text
 * and the line it starts on), or `{ line, tooDeep: true }` for an element nested deeper than
 * MAX_DEPTH (its text is not kept). Only one element is held at a time. A file that is not one
 * array is a UsageError; each element's own syntax is checked when it is parsed.
 */
async function* jsonArrayElements(chunks, maxChars = MAX_ROW_BYTES) {
  const decoder = new StringDecoder('utf8')
  // 0 before '[', 1 after '[', 2 after ',', 3 in an element, 4 after an element, 5 after ']'
  let state = 0
  let line = 1
  let depth = 0
  let inString = false
  let escape = false
  let parts = []
  let elemLine = 0
  let tooDeep = false
  let tooLong = false
  let held = 0
  let first = true
  const invalid = (what) => new UsageError(`the file is not valid JSON (${what} at line ${line})`)
  const scan = function* (s) {
    let start = state === 3 ? 0 : -1
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i)
      if (c === 10) line++
      if (state === 3) {
        if (inString) {
          if (escape) escape = false
          else if (c === 92) escape = true
          else if (c === 34) inString = false
          continue
        }
        if (c === 34) inString = true
        else if (c === 91 || c === 123) {
          if (++depth > MAX_DEPTH && !tooDeep) {
            tooDeep = true
            parts = []
          }
        } else if (depth > 0) {
          if (c === 93 || c === 125) depth--
        } else if (c === 44 || c === 93 || isWs(c)) {
          // the element ends here (depth 0, outside a string)
          if (tooDeep) yield { line: elemLine, tooDeep: true }
          else if (tooLong || held + (i - start) > maxChars) yield { line: elemLine, tooLong: held + (i - start) }
          else {
            parts.push(s.slice(start, i))
            yield { line: elemLine, text: parts.join('') }
          }
          parts = []
          held = 0
          tooDeep = false
          tooLong = false
          state = c === 44 ? 2 : c === 93 ? 5 : 4
        }
        continue
      }
      if (isWs(c)) continue
      if (state === 0) {
        if (c !== 91) throw new UsageError(`a .json dataset must be an array of items, got ${c === 123 ? 'an object' : 'something else'} (line ${line})`)
        state = 1
      } else if (state === 1 || state === 2) {
        if (c === 93) {
          if (state === 2) throw invalid('a trailing comma')
          state = 5
          continue
        }
        if (c === 44) throw invalid('a missing element')
        state = 3
        elemLine = line
        start = i
        depth = 0
        inString = false
        escape = false
        i-- // read this character again as the element's first
      } else if (state === 4) {
        if (c === 44) state = 2
        else if (c === 93) state = 5
        else throw invalid(`"${String.fromCharCode(c)}" where "," or "]" was expected`)
      } else throw invalid('text after the array')
    }
    if (state === 3) {
      held += s.length - start
      if (held > maxChars) tooLong = true
      if (!tooDeep && !tooLong) parts.push(s.slice(start))
      else parts = []
    }
  }
  for await (const chunk of chunks) {
    let s = decoder.write(chunk)
    if (first && s.length > 0) {
      first = false
      if (s.charCodeAt(0) === 0xfeff) s = s.slice(1)
    }
    yield* scan(s)
  }
  yield* scan(decoder.end())
  if (state === 0) throw invalid('an empty file')
  if (state !== 5) throw invalid('the array is not closed')
}

async function* jsonRows(chunks, maxChars) {
  for await (const el of jsonArrayElements(chunks, maxChars)) {
    if (el.tooDeep) {
      yield { line: el.line, error: TOO_DEEP }
      continue
    }
    if (el.tooLong) {
      yield { line: el.line, error: tooLarge(el.tooLong, maxChars) }
      continue
    }
    let raw
    try {
      raw = JSON.parse(el.text)
    } catch (e) {
      throw new UsageError(`the file is not valid JSON (the element at line ${el.line}: ${e.message})`)
    }
    yield { line: el.line, ...rowOf(raw) }
  }
}

/** A CSV `context` cell: a JSON array of strings, or `|`-separated passages. */
function csvContext(cell) {
  const s = cell.trim()
  if (s === '') return undefined
  if (s.startsWith('[')) {
    if (nestedDeeper(s)) return { bad: `"context" is ${TOO_DEEP}` }
    try {
      return JSON.parse(s)
    } catch (e) {
      return { bad: `"context" is not a valid JSON array (${e.message})` }
    }
  }
  return s
    .split('|')
    .map((p) => p.trim())
    .filter(Boolean)
}

/**
 * CSV rows: the header names the fields (trimmed; an empty name drops its column). Every cell
 * reaches the item as text, as it is, except `context` (a JSON array of strings or
 * `a|b|c`); empty cells are left out.
 */
async function* csvRows(chunks) {
  const skipped = []
  let headerError = null
  const parser = parseCsv({
    bom: true,
    columns: (header) => {
      const names = header.map((h) => String(h).trim())
      const seen = new Set()
      for (const n of names) {
        if (n !== '' && seen.has(n)) headerError = new UsageError(`the CSV header names the column "${n}" twice`)
        seen.add(n)
      }
      if (!seen.has('input')) headerError = headerError || new UsageError(`a .csv dataset needs an "input" column (header: ${names.join(', ')})`)
      if (headerError) throw headerError
      return names
    },
    info: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (err) => skipped.push({ line: err.lines, error: `malformed CSV row (${err.message})` }),
  })
  const source = Readable.from(chunks, { objectMode: false })
  source.on('error', (e) => parser.destroy(e))
  source.pipe(parser)
  const toRow = ({ info, record }) => {
    const raw = {}
    for (const [k, v] of Object.entries(record)) if (k !== '' && v !== undefined && v !== '') raw[k] = v
    if (raw.context !== undefined) {
      const c = csvContext(raw.context)
      if (c && c.bad) return { line: info.lines, ...readable(raw), error: c.bad }
      if (c === undefined) delete raw.context
      else raw.context = c
    }
    return { line: info.lines, ...rowOf(raw) }
  }
  try {
    for await (const rec of parser) {
      // rows the parser skipped come before this record in the file
      while (skipped.length && skipped[0].line < rec.info.lines) yield skipped.shift()
      yield toRow(rec)
    }
  } catch (e) {
    if (headerError) throw headerError
    if (e instanceof UsageError) throw e
    // the parser's own errors are CSV_*; anything else (a cell past V8's string limit) is not the syntax
    if (typeof e.code === 'string' && e.code.startsWith('CSV_')) throw new UsageError(`the file is not valid CSV (${e.message})`)
    throw new UsageError(`cannot read the file as CSV (${e.code ? `${e.code}: ` : ''}${e.message})`)
  } finally {
    source.destroy()
    parser.destroy()
  }
  while (skipped.length) yield skipped.shift()
}

/** Throws a UsageError for an extension that is not a dataset format. */
export function checkFormat(file) {
  const ext = extname(file).toLowerCase()
  if (!DATA_FORMATS.includes(ext)) {
    throw new UsageError(`--data ${file}: unknown format "${ext || '(no extension)'}"; expected ${DATA_FORMATS.join(', ')}`)
  }
  return ext
}

/**
 * Streams a dataset file's rows `{ index, line, item }` or `{ index, line, error, id?, input? }`
 * (file order). `fp` (newFingerprint) receives every byte; a .jsonl line or .json element
 * past `maxRowBytes` is a bad row (a .csv cell past V8's string limit: a data error). Throws a UsageError naming the file
 * when it cannot be read or is not a dataset.
 */
export async function* readRows(file, fp, { maxRowBytes = MAX_ROW_BYTES } = {}) {
  const ext = checkFormat(file)
  const chunks = fileChunks(file, fp)
  const rows = ext === '.jsonl' ? jsonlRows(chunks, maxRowBytes) : ext === '.json' ? jsonRows(chunks, maxRowBytes) : csvRows(chunks)
  let index = 0
  try {
    for await (const row of rows) yield { index: index++, ...row }
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(`--data ${file}: ${e.message}`)
    throw e
  }
}

/** The data item runEvals gets for a bad row: what is readable, and why it is invalid. */
export function invalidItem(row, file) {
  const it = {}
  if (row.id !== undefined) it.id = row.id
  if (row.input !== undefined) it.input = row.input
  it[INVALID_ITEM] = `${basename(file)}:${row.line ?? '?'}: ${row.error}`
  return it
}

/**
 * The first pass over a dataset: `{ rows, valid, shardRows, bad, dataset }`. `bad`: the
 * shard's bad rows `{ index, line, message }`; `dataset`: `{ sha256, bytes, rows }`, the
 * fingerprint `oxeval merge` compares across shards.
 */
export async function scanDataset(file, shard = null) {
  const fp = newFingerprint()
  let rows = 0
  let valid = 0
  let shardRows = 0
  const bad = []
  // the names of the shard's per-turn assertions (built once before the run)
  const turnNames = new Set()
  for await (const r of readRows(file, fp)) {
    rows++
    if (r.item) valid++
    if (!inShard(r.index, shard)) continue
    shardRows++
    if (r.error) bad.push({ index: r.index, line: r.line, message: r.error })
    if (r.item) collectTurnNames(r.item, turnNames)
  }
  return { rows, valid, shardRows, bad, turnNames, dataset: { ...finish(fp), rows } }
}

/**
 * The shard's data items in file order, one at a time (an async iterable for runEvals): a
 * valid row's item, or `invalidItem` for a bad row. `onItem(item, row)` sees each item before
 * runEvals does (the CLI keeps the row index of each item object). `fp` is hashed along.
 */
export async function* shardItems(file, shard, { onItem, fp } = {}) {
  for await (const r of readRows(file, fp)) {
    if (!inShard(r.index, shard)) continue
    const item = r.item ?? invalidItem(r, file)
    if (onItem) onItem(item, r)
    yield item
  }
}

/** Parses `--shard k/n` into `{ index: k, count: n }` (1-based k). */
export function parseShard(text) {
  const m = /^(\d+)\/(\d+)$/.exec(String(text).trim())
  const index = m ? Number(m[1]) : NaN
  const count = m ? Number(m[2]) : NaN
  if (!m || count < 1 || index < 1 || index > count) throw new UsageError(`--shard must be k/n with 1 <= k <= n (e.g. 3/8); got "${text}"`)
  return { index, count }
}

/** Whether row `index` (0-based, in file order) belongs to `shard` (`null`: every row). */
export const inShard = (index, shard) => !shard || index % shard.count === shard.index - 1
