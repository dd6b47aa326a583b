// Every judge prompt in oxeval's own words (issue 37): no oxeval prompt shares a run of 10 or
// more consecutive words (case- and punctuation-insensitive) with the prompts of the installed
// @mastra/evals (its dist files' string and template literals) or with Ragas 0.4.3's (its
// wheel's string literals, committed as shingle hashes only: scripts/ragas-prompt-shingles.py).
// The texts: helpers/prompt-text.ts.
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { mastraTexts, oxevalPrompts, sharedHashedRuns, sharedRuns, shingleHash, shingles, words } from './helpers/prompt-text'

const root = process.cwd()
const ragas = JSON.parse(readFileSync(`${root}/__test__/fixtures/ragas-prompt-shingles.json`, 'utf8'))
const ragasHashes = new Set<string>(ragas.hashes)

describe('prompt originality', () => {
  it('reads the prompts on both sides (the check is not vacuous)', () => {
    const ours = oxevalPrompts(root)
    expect(ours.size).toBeGreaterThanOrEqual(20)
    const total = [...ours.values()].reduce((n, t) => n + words(t).length, 0)
    expect(total).toBeGreaterThan(5000)
    // Mastra's own prompt sentences are among its texts
    expect(shingles(mastraTexts(root)).has('you are a strict summarization evaluator your job is to')).toBe(true)
  })

  it('finds a copied run (the check can fail)', () => {
    const anchor = shingles(mastraTexts(root))
    const copied = words('Rate it. You are a STRICT summarization-evaluator; your job is to determine it.')
    const runs = Array.from({ length: copied.length - 9 }, (_, i) => copied.slice(i, i + 10).join(' '))
    expect(runs.some((s) => anchor.has(s))).toBe(true)
  })

  it('no oxeval prompt shares 10 consecutive words with a Mastra prompt', () => {
    const hits = Object.fromEntries(sharedRuns(root, 10))
    expect(hits).toEqual({})
  })

  it("Ragas's fixture is the wheel's (and a copied Ragas sentence is found)", () => {
    expect([ragas.source, ragas.n]).toEqual(['ragas-0.4.3-py3-none-any.whl', 10])
    expect(ragasHashes.size).toBeGreaterThan(5000)
    const copied = words('Your task is to judge the faithfulness of a series of statements based on a given context.')
    expect(ragasHashes.has(shingleHash(copied.slice(0, 10).join(' ')))).toBe(true)
  })

  it('no oxeval prompt shares 10 consecutive words with a Ragas prompt', () => {
    expect(Object.fromEntries(sharedHashedRuns(root, ragasHashes, 10))).toEqual({})
  })
})
