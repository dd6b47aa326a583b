// The parity cases of Ragas's no-judge metrics: a seeded generator (the same cases on every
// machine), 240 per metric configuration. `node scripts/ragas-nonllm-cases.mjs` prints JSONL
// `{ metric, options, reference, response }`; scripts/ragas-nonllm-fixture.mjs writes them, with
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
]

export const PER_CONFIG = 240

/** The cases, the same on every run (seed 38). */
export function cases() {
  const out = []
  CONFIGS.forEach((cfg, ci) => {
    const r = rng(38_000 + ci)
    for (let i = 0; i < PER_CONFIG; i++) out.push({ ...cfg, ...pair(r) })
  })
  return out
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const c of cases()) process.stdout.write(`${JSON.stringify(c)}\n`)
}
