// The measurement behind completeness's design (docs/scorers-code.md, "Mastra's text code scorers"): how close
// a tagger-free reading of a text (what a Rust port without compromise's lexicon, tagger and
// conjugations would see: every word, lowercased, deduped) comes to compromise's elements, on
// 400 varied sentences (20 hand-written, 380 from templates of subjects, verbs in every tense
// and objects; seeded), and what compromise costs per text against Mastra's whole scorer run.
//   node bench/completeness-agreement.mjs
// Measured 2026-12-02: 1/400 equal element lists, 10/400 equal element sets (2.5 %); compromise
// 1.44 ms per text, Mastra's completeness run 3.55 ms (two texts: ~80 % is compromise).
import nlp from 'compromise'
import { createCompletenessScorer } from '@mastra/evals/scorers/prebuilt'
let seed = 7; const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32)
const pick = (a) => a[Math.floor(rnd() * a.length)]
const subj = ['I', 'She', 'The engineers', 'My brother', 'Dr. Smith', 'They', "We", 'The old dog', 'Paris', 'A child', 'You', 'He']
const verbs = ['walks', 'walked', 'is walking', 'has walked', 'will walk', 'had been walking', "doesn't walk", 'ran', 'is running', 'eats', 'ate', 'has eaten', 'was writing', 'wrote', 'writes', 'goes', 'went', 'is going', "won't go", 'can swim', 'should have called', 'thinks', 'thought', 'bought', 'is buying', 'studies', 'studied', 'were singing', "isn't sleeping", 'flies']
const objs = ['to the museum', 'the quick brown fox', 'quickly', 'every morning', 'in London', 'with great care', 'three apples', 'the reports on Monday', '', 'because it was raining', 'and laughed loudly', 'near the river bank']
const extra = ["I don't think he's going to Paris' museums; she was running quickly.", 'The quick brown fox jumps over the lazy dog', 'He had been walking and talked to Dr. Smith', 'What time does the train leave?', "Can't stop, won't stop!", 'The U.S. economy grew 3.2% in 2023.', 'Email me at john@example.com or visit https://example.com/page', 'Barack Obama visited Berlin in July.', 'Running is fun.', 'The children were playing games while their parents watched.', 'Is this the real life? Is this just fantasy?', "They'd've finished if they'd started earlier.", 'Apple released the new iPhone 15 Pro yesterday.', 'Please close the door and turn off the lights.', 'The café served crème brûlée.', 'She sells seashells by the seashore.', 'Our team is winning, losing, then winning again.', "I'm gonna grab some food.", 'Photosynthesis converts light energy into chemical energy.', 'Our revenue increased by 20 percent.']
const corpus = [...extra]
while (corpus.length < 400) corpus.push(`${pick(subj)} ${pick(verbs)} ${pick(objs)}${pick(['.', '!', '?', '', '...'])}`.replace(/\s+/g, ' ').trim())
const norm = (s) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
const clean = (t) => norm(t).replace(/[^a-z0-9]+/g, ' ').trim().split(/\s+/).filter(Boolean)
function elems(text) { const d = nlp(text.trim()); const n = d.nouns().out('array'); const v = d.verbs().toInfinitive().out('array'); const t = d.topics().out('array'); const te = d.terms().out('array'); return [...new Set([...n, ...v, ...t, ...te].flatMap(clean))] }
const naive = (text) => [...new Set(clean(text))]
let same = 0, sameSet = 0; const diffs = {}
for (const s of corpus) { const a = elems(s), b = naive(s); if (JSON.stringify(a) === JSON.stringify(b)) same++; const A = new Set(a), B = new Set(b); if (A.size === B.size && [...A].every((x) => B.has(x))) sameSet++; else { for (const x of b) if (!A.has(x)) diffs['naive-only:' + x] = (diffs['naive-only:' + x] || 0) + 1; for (const x of a) if (!B.has(x)) diffs['compromise-only:' + x] = (diffs['compromise-only:' + x] || 0) + 1 } }
console.log('corpus', corpus.length, 'exact order', same, 'same set', sameSet)
console.log(Object.entries(diffs).sort((a, b) => b[1] - a[1]).slice(0, 25))
// speed
let t0 = performance.now(); let k = 0
for (let r = 0; r < 3; r++) for (const s of corpus) k += elems(s).length
const tE = (performance.now() - t0) / (3 * corpus.length)
const sc = createCompletenessScorer()
t0 = performance.now()
for (let i = 0; i < 300; i++) { const s = corpus[i]; await sc.run({ input: { inputMessages: [{ role: 'user', content: s }] }, output: [{ role: 'assistant', content: corpus[i + 1] }] }) }
const tM = (performance.now() - t0) / 300
t0 = performance.now(); for (let r = 0; r < 3; r++) for (const s of corpus) k += naive(s).length
const tN = (performance.now() - t0) / (3 * corpus.length)
console.log({ extractMsPerText: tE, mastraRunMs: tM, naiveMsPerText: tN })
