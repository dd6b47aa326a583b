// The parity cases of Ragas's no-judge metrics: a seeded generator (the same cases on every
// machine), 240 per metric configuration (texts; quoted spans and contexts; Ragas multi-turn
// messages with tool calls and the reference calls). `node scripts/ragas-nonllm-cases.mjs` prints JSONL
// `{ metric, options, reference, response }` (quoted spans: `{ response, contexts }`; tool
// metrics: `{ messages, referenceToolCalls }`); scripts/ragas-nonllm-fixture.mjs writes them, with
// ragas's scores, to __test__/fixtures/ragas-nonllm.jsonl.
import { fileURLToPath } from 'node:url'

/** mulberry32: a small seeded PRNG. */
function rng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = ['the', 'cat', 'sat', 'on', 'mat', 'Paris', 'is', 'capital', 'of', 'France', 'a', 'dog', 'runs', 'fast', 'and', 'slow', 'THE', 'Cat']
// words every Porter step rewrites (rouge's stemmer), NLTK's irregular forms among them
const STEMS = ['running', 'generalization', 'relational', 'happily', 'skies', 'dying', 'agreed', 'hopping', 'controlling', 'analogies', 'conditional', 'ponies', 'caresses', 'electrical', 'adjustment', 'effective', 'sensibility', 'formalize', 'hopeful', 'goodness', 'feed', 'plastered', 'motoring', 'conflated', 'troubled', 'sized', 'filing', 'failing', 'happy', 'cry', 'rational', 'valency', 'digitizer', 'conformably', 'radically', 'differently', 'vilely', 'analogously', 'predication', 'operator', 'feudalism', 'decisiveness', 'hopefulness', 'callousness', 'formality', 'sensitivity', 'triplicate', 'innings', 'news', 'proceeding', 'exceeded', 'tying', 'lying', 'yelling', 'syzygy', 'queueing', 'fully', 'archaeology', 'ties', 'dies', 'cried', 'spied', 'controll', 'rolling', 'abilities', 'fizzing', 'Running', 'GENERALIZATIONS']
const UNICODE = ['café', 'naïve', 'Zürich', '東京', 'は', '首都', 'です', 'Москва', 'столица', '😀', '👍🏽', 'e\u0301', 'ﬁ', 'ß', 'İ', 'ǅ', '\u00a0', '\u3000', '\u2028', '\u001f', '\u200b', 'عربى', 'שלום']
const PUNCT = ['.', ',', '!', '?', ';', ':', '-', '--', '...', '"', "'", '(', ')', '&amp;', '&lt;', '&quot;', '<skipped>', '/', '$', '%', '@', '#', '[', ']', '{', '}', '`', '~', '^', '_', '|', '\\']
const NUMBERS = ['1', '2.5', '3,000', '42', '-7', '1-2', '0.001', '1e9', '100%', '$5', '12:30', '2024-01-01', '3.14159']
const SPACES = [' ', ' ', ' ', '  ', '\t', '\n', '. ', '. ', '-\n', ' \n ']

const pick = (r, xs) => xs[Math.floor(r() * xs.length)]

/** One text of a kind. */
function text(r, kind) {
  const n = kind === 'long' ? 150 + Math.floor(r() * 300) : Math.floor(r() * 14)
  const pools = {
    words: [WORDS, STEMS],
    unicode: [UNICODE, WORDS],
    punct: [PUNCT],
    numbers: [NUMBERS, WORDS, PUNCT],
    repeated: [['the', 'the the', 'a a a', 'cat cat', 'running runs']],
    mixed: [WORDS, STEMS, UNICODE, PUNCT, NUMBERS],
    long: [WORDS, STEMS, NUMBERS, PUNCT],
  }[kind]
  let s = ''
  for (let i = 0; i < n; i++) {
    if (i > 0) s += pick(r, SPACES)
    s += pick(r, pick(r, pools))
  }
  if (r() < 0.15) s = pick(r, SPACES) + s
  if (r() < 0.15) s += pick(r, SPACES)
  return s
}

/** Mutations of the reference, so that responses are near it as often as far. */
function mutate(r, s) {
  const chars = [...s]
  const k = Math.floor(r() * 6)
  for (let i = 0; i < k && chars.length; i++) {
    const at = Math.floor(r() * chars.length)
    const op = r()
    if (op < 0.33) chars.splice(at, 1)
    else if (op < 0.66) chars.splice(at, 0, pick(r, [...'abcxyz .,é😀']))
    else chars[at] = pick(r, [...'abcxyz .,é😀'])
  }
  return chars.join('')
}

const KINDS = ['words', 'unicode', 'punct', 'numbers', 'repeated', 'mixed', 'long']

/** A (reference, response) pair: equal, mutated, substring, unrelated, or an empty side. */
function pair(r) {
  const kind = pick(r, KINDS)
  const reference = text(r, kind)
  const x = r()
  if (x < 0.06) return { reference: '', response: text(r, kind) }
  if (x < 0.12) return { reference: text(r, kind), response: '' }
  if (x < 0.14) return { reference: '', response: '' }
  if (x < 0.17) return { reference: pick(r, PUNCT) + pick(r, PUNCT), response: pick(r, PUNCT) }
  if (x < 0.27) return { reference, response: reference }
  if (x < 0.37) {
    const pre = text(r, 'words')
    return { reference, response: `${pre} ${reference} ${pick(r, WORDS)}` }
  }
  if (x < 0.75) return { reference, response: mutate(r, reference) }
  return { reference, response: text(r, pick(r, KINDS)) }
}

const QUOTES = ['"', '\u201c', '\u201d', '\u201e', '\u201f', "'", '\u2018', '\u2019', '`', '\u00b4']
const GREEK = ['ΣΟΦΙΑ', 'ΟΔΟΣ', 'σοφός', 'İstanbul', 'STRASSE', 'Straße', 'ǅemal', 'ΑΣ Σ']

/** A text with quoted spans, and contexts that hold some of them (case, spacing, Unicode). */
function quoted(r) {
  const spans = []
  let response = ''
  const n = Math.floor(r() * 5)
  for (let i = 0; i < n; i++) {
    let span = text(r, pick(r, ['words', 'words', 'unicode', 'mixed', 'numbers'])).slice(0, 80) + (r() < 0.3 ? ` ${pick(r, GREEK)}` : '')
    if (r() < 0.85) span = span.replace(/\n/g, ' ') // a newline ends a quote
    spans.push(span)
    const open = pick(r, QUOTES)
    const close = r() < 0.8 ? open : pick(r, QUOTES)
    response += `${text(r, 'words')} ${open}${r() < 0.1 ? ' ' : ''}${span}${close} `
  }
  if (r() < 0.3) response += text(r, pick(r, KINDS))
  if (r() < 0.05) response = ''
  const contexts = []
  const m = r() < 0.08 ? 0 : 1 + Math.floor(r() * 3)
  for (let i = 0; i < m; i++) {
    let c = text(r, pick(r, ['words', 'mixed', 'long']))
    if (spans.length && r() < 0.7) {
      let s = pick(r, spans)
      const t = r()
      if (t < 0.25) s = s.toUpperCase()
      else if (t < 0.45) s = s.replace(/ /g, '  \n')
      else if (t < 0.55) s = mutate(r, s)
      c = `${c} ${s} ${text(r, 'words')}`
    }
    if (r() < 0.05) c = ''
    contexts.push(c)
  }
  return { response, contexts }
}

const TOOLS = ['search', 'weather', 'book_flight', 'get_time', 'calc', 'outil_été', '検索']
const KEYS = ['city', 'q', 'date', 'n', 'opts', 'units', 'ids', 'Ä']
const SCALARS = ['Paris', 'paris', '1', 1, 1.5, 2.5, 0.1, 1e21, 1e-7, -3, 0, true, false, null, 'True', 'None', '', '2024-01-01', 'café', '[1, 2]', "{'a': 1}", 'it\'s', '"q"', '\n', '\u00a0x', '😀']

/** A JSON argument value: scalars, nested dicts and lists. */
function value(r, depth = 0) {
  const x = r()
  if (depth < 2 && x < 0.15) return Array.from({ length: Math.floor(r() * 3) }, () => value(r, depth + 1))
  if (depth < 2 && x < 0.3) return args(r, depth + 1)
  return pick(r, SCALARS)
}

function args(r, depth = 0) {
  const out = {}
  const n = Math.floor(r() * 4)
  for (let i = 0; i < n; i++) out[pick(r, KEYS)] = value(r, depth)
  return out
}

/** The same object with its keys in another order (at every depth). */
function reorder(v) {
  if (Array.isArray(v)) return v.map(reorder)
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reorder(x)]))
  return v
}

/** A prediction near the reference: equal, reordered, argument changes, extra/missing calls. */
function predict(r, ref) {
  let calls = ref.map((c) => ({ name: c.name, args: structuredClone(c.args) }))
  const k = Math.floor(r() * 4)
  for (let i = 0; i < k; i++) {
    const op = r()
    const at = Math.floor(r() * Math.max(calls.length, 1))
    if (op < 0.12 && calls.length > 1) calls.reverse()
    else if (op < 0.24 && calls[at]) calls[at].args = reorder(calls[at].args)
    else if (op < 0.4 && calls[at]) {
      const keys = Object.keys(calls[at].args)
      const key = keys.length ? pick(r, keys) : pick(r, KEYS)
      const old = calls[at].args[key]
      const t = r()
      calls[at].args[key] = t < 0.3 ? String(old) : t < 0.5 && typeof old === 'number' ? old + 0.5 : t < 0.6 ? (old === 1 ? true : 1) : value(r)
    } else if (op < 0.5 && calls[at]) delete calls[at].args[pick(r, Object.keys(calls[at].args).concat(['x']))]
    else if (op < 0.62) calls.splice(at, 0, { name: pick(r, TOOLS), args: args(r) })
    else if (op < 0.74 && calls.length) calls.splice(at, 1)
    else if (op < 0.82 && calls[at]) calls.push({ name: calls[at].name, args: structuredClone(calls[at].args) })
    else if (op < 0.9 && calls[at]) calls[at].name = pick(r, TOOLS)
  }
  if (r() < 0.05) calls = []
  return calls
}

/** Ragas's multi-turn user_input (human, AI with tool_calls, tool messages) and the reference calls. */
function toolCase(r) {
  const n = r() < 0.06 ? 0 : 1 + Math.floor(r() * 4)
  const referenceToolCalls = Array.from({ length: n }, () => ({ name: pick(r, TOOLS), args: args(r) }))
  const pred = predict(r, referenceToolCalls)
  const messages = [{ type: 'human', content: text(r, 'words') }]
  let i = 0
  while (i < pred.length) {
    const take = 1 + Math.floor(r() * 2)
    messages.push({ type: 'ai', content: text(r, 'words'), tool_calls: pred.slice(i, i + take) })
    for (const c of pred.slice(i, i + take)) messages.push({ type: 'tool', content: `${c.name} done` })
    i += take
  }
  messages.push(r() < 0.5 ? { type: 'ai', content: 'Done.' } : { type: 'ai', content: 'Done.', tool_calls: null })
  return { messages, referenceToolCalls }
}

/** The case of a configuration: texts, quoted spans and contexts, or tool calls. */
function caseOf(r, metric) {
  if (metric === 'quoted_spans') return quoted(r)
  if (metric.startsWith('tool_call')) return toolCase(r)
  return pair(r)
}

/** Every metric configuration with its options. */
export const CONFIGS = [
  { metric: 'exact_match', options: {} },
  { metric: 'string_presence', options: {} },
  { metric: 'string_similarity', options: { distanceMeasure: 'levenshtein' } },
  { metric: 'string_similarity', options: { distanceMeasure: 'hamming' } },
  { metric: 'string_similarity', options: { distanceMeasure: 'jaro' } },
  { metric: 'string_similarity', options: { distanceMeasure: 'jaro_winkler' } },
  { metric: 'chrf', options: {} },
  { metric: 'bleu', options: {} },
  { metric: 'rouge', options: { rougeType: 'rougeL', mode: 'fmeasure' } },
  { metric: 'rouge', options: { rougeType: 'rougeL', mode: 'precision' } },
  { metric: 'rouge', options: { rougeType: 'rouge1', mode: 'fmeasure' } },
  { metric: 'rouge', options: { rougeType: 'rouge1', mode: 'recall' } },
  { metric: 'quoted_spans', options: { casefold: true, minSpanWords: 3 } },
  { metric: 'quoted_spans', options: { casefold: false, minSpanWords: 3 } },
  { metric: 'quoted_spans', options: { casefold: true, minSpanWords: 1 } },
  { metric: 'tool_call_accuracy', options: { strictOrder: true } },
  { metric: 'tool_call_accuracy', options: { strictOrder: false } },
  { metric: 'tool_call_f1', options: {} },
]

export const PER_CONFIG = 240

/** The oxeval/ragas factory of each metric. */
export const FACTORY = {
  exact_match: 'createExactMatchScorer',
  string_presence: 'createStringPresenceScorer',
  string_similarity: 'createStringSimilarityScorer',
  chrf: 'createChrfScorer',
  bleu: 'createBleuScorer',
  rouge: 'createRougeScorer',
  quoted_spans: 'createQuotedSpansAlignmentScorer',
  tool_call_accuracy: 'createToolCallAccuracyScorer',
  tool_call_f1: 'createToolCallF1Scorer',
}

/** The cases, the same on every run (seed 38). */
export function cases() {
  const out = []
  CONFIGS.forEach((cfg, ci) => {
    const r = rng(38_000 + ci)
    for (let i = 0; i < PER_CONFIG; i++) out.push({ ...cfg, ...caseOf(r, cfg.metric) })
  })
  return out
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const c of cases()) process.stdout.write(`${JSON.stringify(c)}\n`)
}
