// Every judge prompt in oxeval's own words (issue 37): no oxeval prompt shares a run of 10 or
// more consecutive words (case- and punctuation-insensitive) with the prompts of the installed
// @mastra/evals (its dist files' string and template literals). The texts: helpers/prompt-text.ts.
// Ragas's prompts are not checked here (no local ragas wheel; see docs/development.md).
import { describe, expect, it } from 'vitest'
import { mastraTexts, oxevalPrompts, sharedRuns, shingles, words } from './helpers/prompt-text'

const root = process.cwd()

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
})
