// Reading an eval dataset for `oxeval run`: .jsonl (one item per line), .json (an array),
// .csv (columns input, output, groundTruth, id, context). Every row gets an index in file order
// (bad rows included, so shard membership and result indexes stay stable when a row is fixed);
// bad rows are reported and skipped, never fatal. An unreadable file or one without a single
// valid item is a data error (exit 2).
import { readFileSync } from 'node:fs'
import { extname } from 'node:path'
import { parse as parseCsv } from 'csv-parse/sync'
import { UsageError } from './errors.mjs'

export const DATA_FORMATS = ['.jsonl', '.json', '.csv']

/** A row as read: `{ index, line, item }` or `{ index, line, error }`. */

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)
const typeName = (v) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v)

/** Checks one raw record and picks the item fields; returns `{ item }` or `{ error }`. */
export function toItem(raw) {
  if (!isObject(raw)) return { error: `expected an object, got ${typeName(raw)}` }
  if (raw.input === undefined || raw.input === null || raw.input === '') return { error: 'missing "input"' }
  const item = {}
  if (raw.id !== undefined && raw.id !== null && raw.id !== '') {
    if (typeof raw.id !== 'string' && typeof raw.id !== 'number') return { error: `"id" must be a string or number, got ${typeName(raw.id)}` }
    item.id = String(raw.id)
  }
  item.input = raw.input
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

function readJsonl(text) {
  const rows = []
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (line.trim() === '') continue
    const row = { index: rows.length, line: i + 1 }
    let raw
    try {
      raw = JSON.parse(line)
    } catch (e) {
      rows.push({ ...row, error: `invalid JSON (${e.message})` })
      continue
    }
    rows.push({ ...row, ...toItem(raw) })
  }
  return rows
}

/** The 1-based line where each top-level element of a JSON array starts (a small scanner). */
function arrayElementLines(text) {
  const lines = []
  let line = 1
  let depth = 0
  let inString = false
  let expectElement = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (ch === '\n') line++
    if (inString) {
      if (ch === '\\') i++
      else if (ch === '"') inString = false
      continue
    }
    if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n' || ch === '\ufeff') continue
    if (depth === 1 && expectElement && ch !== ']') {
      lines.push(line)
      expectElement = false
    }
    if (ch === '"') inString = true
    else if (ch === '[' || ch === '{') {
      depth++
      if (depth === 1) expectElement = true
    } else if (ch === ']' || ch === '}') depth--
    else if (ch === ',' && depth === 1) expectElement = true
  }
  return lines
}

function readJson(text) {
  let data
  try {
    data = JSON.parse(text.replace(/^\ufeff/, ''))
  } catch (e) {
    throw new UsageError(`the file is not valid JSON (${e.message})`)
  }
  if (!Array.isArray(data)) throw new UsageError(`a .json dataset must be an array of items, got ${typeName(data)}`)
  const lines = arrayElementLines(text)
  return data.map((raw, index) => ({ index, line: lines[index], ...toItem(raw) }))
}

/** A CSV `context` cell: a JSON array of strings, or `|`-separated passages. */
function csvContext(cell) {
  const s = cell.trim()
  if (s === '') return undefined
  if (s.startsWith('[')) {
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

const CSV_COLUMNS = ['input', 'output', 'groundTruth', 'id', 'context']

function readCsv(text) {
  const rows = []
  const skipped = []
  let records
  try {
    records = parseCsv(text, {
      bom: true,
      columns: (header) => header.map((h) => h.trim()),
      info: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      on_skip: (err) => skipped.push({ line: err.lines, error: err.message }),
    })
  } catch (e) {
    throw new UsageError(`the file is not valid CSV (${e.message})`)
  }
  if (records.length > 0 && !Object.hasOwn(records[0].record, 'input')) {
    throw new UsageError(`a .csv dataset needs an "input" column (columns: ${CSV_COLUMNS.join(', ')})`)
  }
  // one list in file order: parsed records and skipped (malformed) ones
  const all = [
    ...records.map(({ info, record }) => ({ line: info.lines, record })),
    ...skipped.map((s) => ({ line: s.line, error: `malformed CSV row (${s.error})` })),
  ].sort((a, b) => a.line - b.line)
  for (const r of all) {
    const row = { index: rows.length, line: r.line }
    if (r.error) {
      rows.push({ ...row, error: r.error })
      continue
    }
    const raw = {}
    for (const k of CSV_COLUMNS) {
      const v = r.record[k]
      if (v !== undefined && v !== '') raw[k] = v
    }
    if (raw.context !== undefined) {
      const c = csvContext(raw.context)
      if (c && c.bad) {
        rows.push({ ...row, error: c.bad })
        continue
      }
      if (c === undefined) delete raw.context
      else raw.context = c
    }
    rows.push({ ...row, ...toItem(raw) })
  }
  return rows
}

/**
 * Reads a dataset file into rows `{ index, line?, item? , error? }` (file order).
 * Throws a UsageError when the file cannot be read or has an unknown extension.
 */
export function readDataset(file) {
  const ext = extname(file).toLowerCase()
  if (!DATA_FORMATS.includes(ext)) {
    throw new UsageError(`--data ${file}: unknown format "${ext || '(no extension)'}"; expected ${DATA_FORMATS.join(', ')}`)
  }
  let text
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    throw new UsageError(`--data ${file}: cannot read the file (${e.code || e.message})`)
  }
  try {
    if (ext === '.jsonl') return readJsonl(text)
    if (ext === '.json') return readJson(text)
    return readCsv(text)
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(`--data ${file}: ${e.message}`)
    throw e
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
