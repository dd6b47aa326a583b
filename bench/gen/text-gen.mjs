// Seeded generator of varied texts and runs for the text code scorers (the differential spec
// __test__/code-text-parity.spec.ts and the bench bench/code-text.mjs): words of every kind
// those scorers look at (AFINN words, negators, stop words, verbs in every tense, names,
// digits, URLs, HTML, emoji, non-ASCII, Object.prototype names), punctuation, case and every
// kind of JS whitespace, in Mastra's message shapes.

/** mulberry32: a small seeded PRNG in [0, 1). */
export function prng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = {
  sentiment: ['good', 'bad', 'love', 'hate', 'excellent', 'terrible', 'happy', 'sad', 'great', 'awful', 'nice', 'wrong', 'best', 'worst', 'amazing', 'poor', 'fun', 'kill', 'win', 'lose', 'thanks', 'sorry', 'cool', 'ugly', 'no fun'],
  negators: ['not', "don't", "can't", 'cant', 'dont', "isn't", 'isnt', "won't", 'wont', "doesn't", 'non', 'never'],
  stop: ['the', 'a', 'an', 'and', 'of', 'to', 'in', 'is', 'it', "it's", 'was', 'were', 'be', 'has', 'have', 'had', 'will', 'would', 'I', 'you', 'he', 'she', 'they', 'we', 'this', 'that', 'with', 'for', 'on', 'at', 'by', 'from', 'zero'],
  verbs: ['walks', 'walked', 'walking', 'runs', 'ran', 'running', 'eats', 'ate', 'eaten', 'writes', 'wrote', 'written', 'goes', 'went', 'gone', 'going', 'thinks', 'thought', 'buys', 'bought', 'studies', 'studied', 'flies', 'flew', 'sings', 'sang', 'is walking', 'has eaten', 'will go', 'had been running', 'should have called', 'can swim', "doesn't know", 'jumps', 'jumped', 'leaps'],
  nouns: ['fox', 'dog', 'dogs', 'museum', 'museums', 'report', 'reports', 'river', 'bank', 'apple', 'apples', 'engineer', 'engineers', 'weather', 'city', 'cities', 'children', 'child', 'data', 'model', 'answer', 'question', 'quick-brown', "rock'n'roll", 'e-mail', 'state-of-the-art'],
  adjectives: ['quick', 'brown', 'lazy', 'old', 'new', 'big', 'small', 'quickly', 'slowly', 'very', 'really'],
  names: ['Paris', 'London', 'Dr. Smith', 'Barack Obama', 'Berlin', 'Apple', 'iPhone', 'NASA', "Paris'", "John's", 'U.S.', 'Mr. Brown'],
  digits: ['42', '3.14', '2023', '1a', '007', '20%', '$5', '1,000', '10x', '٣'],
  urls: ['https://Example.com/Page?q=1', 'http://x.y/z', 'see:https://a.b', 'HTTPS://UPPER.COM', 'www.site.org', 'mailto:john@example.com'],
  html: ['<b>', '</b>', '<p>', '</p>', "<a href='x'>", '</a>', '<br/>', 'a<>b', '<', '>', '< b >', '<<x>>'],
  emoji: ['😀', '😂', '❤', '👍', '😭', '😍', '🙏', '😩', '👌', '🎉', '💩', '😂😂', '👍🏽', '🇫🇷'],
  unicode: ['café', 'naïve', 'Crème brûlée', 'Σίσυφος', 'ΟΔΟΣ', 'İstanbul', 'straße', '日本語', 'ＡＢＣ', 'résumé', 'Ωmega', 'ǅemal', 'ﬁle', 'Ⅻ'],
  proto: ['constructor', 'Constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'],
  punct: ['.', '!', '?', ',', ';', ':', '...', '?!', "'", '"', '“', '”', '‘', '’', '(', ')', '-', '—', '_', '@', '&', '#', '$', '%', '*', '/', '{', '}', '=', '~', '`', '^'],
}
const KINDS = Object.keys(WORDS)
const WEIGHTS = { sentiment: 4, negators: 2, stop: 5, verbs: 4, nouns: 4, adjectives: 2, names: 1, digits: 1, urls: 0.4, html: 0.6, emoji: 1, unicode: 1, proto: 0.4, punct: 2 }
const TOTAL = KINDS.reduce((a, k) => a + WEIGHTS[k], 0)
const SPACES = [' ', ' ', ' ', ' ', ' ', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\u2028', '\ufeff', ' \t ', '\u2003', '\u0085']
const ENDS = ['.', '!', '?', '', '', '...', '!?', '.\n', '. ']

export function textGen(seed, { sentences = 4, words = 9 } = {}) {
  const r = prng(seed)
  const pick = (a) => a[Math.floor(r() * a.length)]
  const kind = () => {
    let x = r() * TOTAL
    for (const k of KINDS) if ((x -= WEIGHTS[k]) < 0) return k
    return 'stop'
  }
  const cased = (w) => {
    const x = r()
    if (x < 0.1) return w.toUpperCase()
    if (x < 0.25) return w.charAt(0).toUpperCase() + w.slice(1)
    return w
  }
  const sentence = () => {
    const n = 1 + Math.floor(r() * words)
    let s = ''
    for (let i = 0; i < n; i++) {
      const k = kind()
      const w = cased(pick(WORDS[k]))
      // punctuation mostly glued to the word before it
      if (k === 'punct' && r() < 0.7) s += w
      else s += (s ? pick(SPACES) : '') + w
    }
    return s + pick(ENDS)
  }
  /** A text of 1–`sentences` sentences (sometimes empty or only whitespace). */
  const text = () => {
    const x = r()
    if (x < 0.04) return ''
    if (x < 0.06) return pick(SPACES) + pick(SPACES)
    const n = 1 + Math.floor(r() * sentences)
    let t = ''
    for (let i = 0; i < n; i++) t += (t ? pick([' ', ' ', '\n', '', '  ']) : '') + sentence()
    return r() < 0.1 ? pick(SPACES) + t + pick(SPACES) : t
  }
  /** A text close to `t`: words dropped, swapped, recased or added (output vs input). */
  const variant = (t) => {
    const words = t.split(' ')
    const out = []
    for (const w of words) {
      const x = r()
      if (x < 0.15) continue
      if (x < 0.25) out.push(w.toUpperCase())
      else if (x < 0.35) out.push(sentence())
      else out.push(w)
    }
    return out.join(pick([' ', ' ', '  ', '\t']))
  }
  /** One Mastra DB message of `role` with text `t`, in one of its content shapes. */
  const message = (role, t) => {
    const x = r()
    const other = { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'c1', toolName: 'search', args: {}, result: 'x' } }
    if (x < 0.35) return { role, content: t }
    if (x < 0.5) return { role, content: [{ type: 'text', text: sentence() }, { type: 'text', text: t }] }
    if (x < 0.75) return { id: `m${Math.floor(r() * 1e6)}`, role, createdAt: new Date(0), content: { format: 2, parts: r() < 0.5 ? [{ type: 'text', text: t }] : [{ type: 'text', text: sentence() }, other, { type: 'text', text: t }] } }
    if (x < 0.85) return { role, content: { format: 2, parts: [{ type: 'text', text: sentence() }], content: t } }
    if (x < 0.92) return { role, content: { format: 2, parts: [other], text: t } }
    return { role, content: { format: 2, parts: [other] } }
  }
  return { r, pick, sentence, text, variant, message }
}

/**
 * `n` runs in Mastra's agent shape (`input.inputMessages`, `output` messages), the output
 * often a variant of the input. Each also carries `widened`: the same texts in a shape
 * oxeval reads and Mastra throws on or misreads (a string, `{ messages }`, a bare array, a UI
 * message), or `undefined` when the run has none of those texts' equivalents. `size`:
 * `{ sentences, words }`, the most sentences per text and words per sentence (4 and 9).
 */
export function textRuns(seed, n, size) {
  const g = textGen(seed, size)
  const runs = []
  for (let i = 0; i < n; i++) {
    const inputs = Array.from({ length: 1 + Math.floor(g.r() * 2) }, () => g.text())
    const base = inputs.join(' ')
    const outputs = Array.from({ length: 1 + Math.floor(g.r() * 2) }, () => (g.r() < 0.7 ? g.variant(base) : g.text()))
    const inRoles = ['user', 'system', 'user']
    const outRoles = ['assistant', 'assistant', 'user', 'tool']
    const mastra = {
      input: { inputMessages: inputs.map((t, k) => g.message(inRoles[k % 3], t)), rememberedMessages: [], systemMessages: [], taggedSystemMessages: {} },
      output: outputs.map((t) => g.message(g.pick(outRoles), t)),
    }
    // the widened shapes carry one text per side (a string is one message)
    const x = g.r()
    let widened
    if (x < 0.12) widened = { mastra: { input: { inputMessages: [{ role: 'user', content: inputs[0] }] }, output: [{ role: 'assistant', content: outputs[0] }] }, oxeval: { input: inputs[0], output: outputs[0] } }
    else if (x < 0.2) widened = { mastra: { input: { inputMessages: [{ role: 'user', content: inputs[0] }] }, output: [{ role: 'assistant', content: outputs[0] }] }, oxeval: { input: { messages: [{ role: 'user', content: inputs[0] }] }, output: { messages: [{ role: 'assistant', content: outputs[0] }] } } }
    else if (x < 0.26) widened = { mastra: { input: { inputMessages: [{ role: 'user', content: inputs[0] }] }, output: [{ role: 'assistant', content: { format: 2, parts: [{ type: 'text', text: outputs[0] }] } }] }, oxeval: { input: [{ role: 'user', content: inputs[0] }], output: [{ role: 'assistant', parts: [{ type: 'text', text: outputs[0] }] }] } }
    runs.push({ ...mastra, widened })
  }
  return runs
}

/** Reference tones for the tone scorer (empty: none). */
export function references(seed, n) {
  const g = textGen(seed)
  return Array.from({ length: n }, () => (g.r() < 0.4 ? undefined : g.r() < 0.05 ? '' : g.sentence()))
}
