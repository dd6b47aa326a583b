// Differential tests of the five text code scorers (createCompletenessScorer,
// createContentSimilarityScorer, createKeywordCoverageScorer, createTextualDifferenceScorer,
// createToneScorer; completeness's 2 000 runs are code-text-parity-completeness.spec.ts, as
// compromise's tagging needs a file's time budget of its own) against @mastra/evals 1.10.2 on
// generated runs (seeded): the same scores
// and step results, exactly (every formula is computed in the same order, so the floats are
// bit-equal). Each deliberate difference is asserted instead:
// - widened run shapes (a string, `{ messages }`, a bare array, a UI message) score as
//   Mastra's equivalent message array;
// - tone: only the 12 negators negate (Mastra's lookup also finds `Object.prototype`'s
//   "constructor"): oxeval equals Mastra on the text with "constructor" renamed;
// - content similarity: options merge with the defaults (Mastra drops both defaults when any
//   object is passed);
// - completeness / content similarity: an input without `inputMessages` reads as no messages
//   (Mastra throws).
import { describe, expect, it } from 'vitest'
import * as mastra from '@mastra/evals/scorers/prebuilt'
import { oxeval, type Any } from './helpers/setup'
import { references } from '../bench/gen/text-gen.mjs'
import { N, differential, shape } from './helpers/code-text'

const ox = oxeval as Any
const ms = mastra as Any

describe('text code scorers: oxeval vs @mastra/evals 1.10.2 on generated runs', () => {
  it(`createTextualDifferenceScorer: ${N} runs`, async () => {
    const a = ox.createTextualDifferenceScorer()
    const b = ms.createTextualDifferenceScorer()
    await differential(() => a, () => b, 1)
  })

  it(`createKeywordCoverageScorer: ${N} runs, keyword Sets in order`, async () => {
    const a = ox.createKeywordCoverageScorer()
    const b = ms.createKeywordCoverageScorer()
    await differential(() => a, () => b, 2)
    const r = await a.run({ input: 'The quick brown fox', output: 'brown fox' })
    expect(r.preprocessStepResult.referenceKeywords).toBeInstanceOf(Set)
    expect([...r.preprocessStepResult.referenceKeywords]).toEqual(['quick', 'brown', 'fox'])
    // both texts empty: Mastra's two empty Sets nested under `result`
    const e = await a.run({ input: '', output: '' })
    expect(e.preprocessStepResult).toEqual({ result: { referenceKeywords: new Set(), responseKeywords: new Set() } })
    expect(e.preprocessStepResult.result.responseKeywords).toBeInstanceOf(Set)
  })

  it(`createContentSimilarityScorer: ${N} runs over every option combination (merged with the defaults)`, async () => {
    const combos = [undefined, { ignoreCase: false }, { ignoreWhitespace: false }, { ignoreCase: false, ignoreWhitespace: false }, { ignoreCase: true, ignoreWhitespace: true }, {}]
    const oxs = combos.map((o) => ox.createContentSimilarityScorer(o))
    // Mastra gets the merged options spelled out (its defaults apply only without an argument)
    const mss = combos.map((o) => ms.createContentSimilarityScorer(o === undefined ? undefined : { ignoreCase: true, ignoreWhitespace: true, ...o }))
    await differential((i) => oxs[i % combos.length], (i) => mss[i % combos.length], 3)
  })

  it('createContentSimilarityScorer: {} keeps the defaults (Mastra: ignoreCase and ignoreWhitespace off)', async () => {
    const run = { input: { inputMessages: [{ role: 'user', content: ' Hello   World ' }] }, output: [{ role: 'assistant', content: 'hello world' }] }
    const a = await ox.createContentSimilarityScorer({}).run(run)
    const b = await ms.createContentSimilarityScorer({}).run(run)
    expect(a.preprocessStepResult).toEqual({ processedInput: 'hello world', processedOutput: 'hello world' })
    expect(b.preprocessStepResult).toEqual({ processedInput: ' Hello   World ', processedOutput: 'hello world' })
    expect([a.score, b.score]).toEqual([1, 2 / 3])
  })

  it(`createToneScorer: ${N} runs, with and without a reference tone ("constructor" is not a negator)`, async () => {
    const refs = references(4, N)
    const oxs = refs.map((t) => (t === undefined ? undefined : t))
    const cacheA = new Map<Any, Any>()
    const cacheB = new Map<Any, Any>()
    const make = (lib: Any, cache: Map<Any, Any>, t: string | undefined) => {
      if (!cache.has(t)) cache.set(t, t === undefined ? lib.createToneScorer() : lib.createToneScorer({ referenceTone: t }))
      return cache.get(t)
    }
    const rename = (v: Any): Any => (typeof v === 'string' ? v.replace(/constructor/gi, 'constructox') : Array.isArray(v) ? v.map(rename) : v && typeof v === 'object' && !(v instanceof Date) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rename(x)])) : v)
    await differential(
      (i) => make(ox, cacheA, oxs[i]),
      (i) => make(ms, cacheB, oxs[i] === undefined ? undefined : rename(oxs[i])),
      5,
      rename,
    )
    // the accident itself: Mastra negates "good" after "constructor", oxeval does not
    const run = { output: [{ role: 'assistant', content: 'constructor good.' }] }
    expect((await ms.createToneScorer({ referenceTone: 'good' }).run(run)).preprocessStepResult.responseSentiment).toBe(-1.5)
    expect((await ox.createToneScorer({ referenceTone: 'good' }).run(run)).preprocessStepResult.responseSentiment).toBe(1.5)
  })

  it('an input without inputMessages: Mastra throws (completeness, content similarity); oxeval reads no input messages', async () => {
    const run = { input: { prompt: 'x' }, output: [{ role: 'assistant', content: 'The quick fox.' }] }
    for (const f of ['createCompletenessScorer', 'createContentSimilarityScorer']) {
      await expect(ms[f]().run(run)).rejects.toThrow()
      const r = await ox[f]().run(run)
      const same = await ms[f]().run({ ...run, input: { inputMessages: [] } })
      expect(shape(r)).toEqual(shape(same))
    }
    // a plain-string output: Mastra throws; oxeval reads one message
    await expect(ms.createToneScorer().run({ output: 'good.' })).rejects.toThrow(/map is not a function/)
    expect((await ox.createToneScorer().run({ output: 'good.' })).score).toBe(1)
  })

  it('the factories: Mastra identity, type agent, function steps, no judge, no options needed', () => {
    for (const f of ['createCompletenessScorer', 'createContentSimilarityScorer', 'createKeywordCoverageScorer', 'createTextualDifferenceScorer', 'createToneScorer']) {
      const a = ox[f]()
      const b = ms[f]()
      expect([a.id, a.name, a.description, a.type], f).toEqual([b.id, b.name, b.description, b.type])
      expect(a.judge).toBeUndefined()
      expect(a.getSteps().map((s: Any) => [s.name, s.type])).toEqual(b.getSteps().map((s: Any) => [s.name, s.type]))
      expect(ox[f]({ id: 'mine' }).id).toBe('mine')
    }
    expect(() => ox.createToneScorer({ referenceTone: 3 })).toThrow(TypeError)
    expect(() => ox.createContentSimilarityScorer({ ignoreCase: 'yes' })).toThrow(/options.ignoreCase must be a boolean/)
  })
})
