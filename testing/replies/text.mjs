// The heuristic judge's text tools: content words, word overlap, sentences, the prompt's DATA line.

const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it ' +
    'its me my no not of on or our she so such than that the their them then there these they this those to too up us ' +
    'was we were what when where which while who why will with would you your yes also just very some any all about'
  ).split(' '),
)

/** Lowercase content words (not stopwords) of at least `minLen` characters. */
export function contentWords(text, minLen = 3) {
  const words = String(text ?? '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
  return new Set(words.filter((w) => w.length >= minLen && !STOPWORDS.has(w)))
}

/** Share of `a`'s content words found in `b` (1 when `a` has none). */
export function overlap(a, b) {
  const aw = [...contentWords(a, 3)]
  if (!aw.length) return 1
  const bw = b instanceof Set ? b : contentWords(b, 3)
  return aw.filter((w) => bw.has(w)).length / aw.length
}

export const joined = (v) => (Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('\n') : String(v ?? ''))

export function splitSentences(text) {
  return String(text ?? '')
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean)
}

/** First present field among `keys`; arrays of strings are joined with newlines. */
export function pick(data, ...keys) {
  for (const k of keys) {
    const v = data[k]
    if (typeof v === 'string') return v
    if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('\n')
  }
  return undefined
}

/** Parses the last `DATA: {...}` line (user messages first, then the whole prompt). */
export function findData(req) {
  for (const source of [req.user, req.text]) {
    const lines = String(source ?? '').split(/\r?\n/)
    for (let i = lines.length - 1; i >= 0; i--) {
      const m = /^\s*DATA:\s*(.*)$/.exec(lines[i])
      if (!m) continue
      try {
        const data = JSON.parse(m[1])
        if (data && typeof data === 'object' && !Array.isArray(data)) return data
      } catch {
        // keep looking
      }
    }
  }
  return null
}

export const fail = (message) => ({ status: 500, content: `heuristicJudge: ${message}` })
