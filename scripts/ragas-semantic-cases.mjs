// The parity cases of Ragas's SemanticSimilarity: a seeded generator (the same cases on every
// machine), 240 cases: Unicode, empty and blank texts, identical texts, near and far texts,
// long texts, and a third of them with a `threshold` (0 included: Ragas then keeps the cosine).
// `node scripts/ragas-semantic-cases.mjs` prints JSONL `{ reference, response, threshold? }`;
// scripts/ragas-semantic-fixture.mjs writes them, with ragas's scores, to
// __test__/fixtures/ragas-semantic-similarity.jsonl.
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

const WORDS = ['the', 'cat', 'sat', 'on', 'mat', 'Paris', 'is', 'capital', 'of', 'France', 'a', 'dog', 'runs', 'fast', 'and', 'slow', 'THE', 'Cat', 'river', 'bank', 'money', 'water']
const UNICODE = ['café', 'naïve', 'Zürich', '東京', 'は', '首都', 'です', 'Москва', 'столица', '😀', '👍🏽', 'e\u0301', 'ﬁ', 'ß', 'İ', 'ǅ', '\u00a0', '\u3000', 'عربى', 'שלום', '\u200b']
const PUNCT = ['.', ',', '!', '?', '...', '"', "'", '(', ')', '-', '&amp;', '/', '%']
const SPACES = [' ', ' ', ' ', '  ', '\t', '\n']
export const THRESHOLDS = [0.5, 0.8, 0.95, 0, 0.3]
export const COUNT = 240

const pick = (r, xs) => xs[Math.floor(r() * xs.length)]

function text(r, kind) {
  const n = kind === 'long' ? 200 + Math.floor(r() * 600) : 1 + Math.floor(r() * 14)
  const pools = { words: [WORDS], unicode: [UNICODE, WORDS], mixed: [WORDS, UNICODE, PUNCT], long: [WORDS, PUNCT, UNICODE], punct: [PUNCT] }[kind]
  let s = ''
  for (let i = 0; i < n; i++) {
    if (i > 0) s += pick(r, SPACES)
    s += pick(r, pick(r, pools))
  }
  return s
}

/** A response near the reference: words dropped, added or swapped. */
function near(r, s) {
  const words = s.split(' ')
  const k = 1 + Math.floor(r() * 3)
  for (let i = 0; i < k; i++) {
    const at = Math.floor(r() * (words.length + 1))
    const op = r()
    if (op < 0.4 && words.length > 1) words.splice(at, 1)
    else if (op < 0.7) words.splice(at, 0, pick(r, WORDS))
    else words[Math.min(at, words.length - 1)] = pick(r, UNICODE)
  }
  return words.join(' ')
}

/** The cases, in order. */
export function cases() {
  const r = rng(0x5e3a)
  const kinds = ['words', 'unicode', 'mixed', 'long', 'punct']
  const out = []
  for (let i = 0; i < COUNT; i++) {
    const kind = kinds[i % kinds.length]
    const reference = i % 24 === 0 ? '' : i % 24 === 1 ? pick(r, SPACES) : text(r, kind)
    const shape = i % 6
    let response
    if (i % 24 === 2) response = ''
    else if (shape === 0) response = reference
    else if (shape === 1 || shape === 2) response = near(r, reference)
    else response = text(r, pick(r, kinds))
    const c = { reference, response }
    if (i % 3 === 2) c.threshold = THRESHOLDS[(i / 3) % THRESHOLDS.length | 0]
    out.push(c)
  }
  return out
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const c of cases()) process.stdout.write(`${JSON.stringify(c)}\n`)
}
