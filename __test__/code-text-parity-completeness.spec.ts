// createCompletenessScorer against @mastra/evals 1.10.2 on 2 000 generated runs (seeded): the
// same elements (compromise's, run in JS for oxeval through the host channel; cleaned, deduped
// and scored in the core), missing elements and score, exactly. In a file of its own: compromise
// tags every text in both libraries, most of the time of both. The widened run shapes are
// checked on every tenth run (the other text scorers check them on every run).
import { describe, expect, it } from 'vitest'
import * as mastra from '@mastra/evals/scorers/prebuilt'
import { oxeval, type Any } from './helpers/setup'
import { N, differential } from './helpers/code-text'

describe('createCompletenessScorer: oxeval vs @mastra/evals 1.10.2 on generated runs', () => {
  it(`${N} runs (compromise's elements, oxeval's cleaning and score)`, async () => {
    const a = (oxeval as Any).createCompletenessScorer()
    const b = (mastra as Any).createCompletenessScorer()
    await differential(() => a, () => b, 6, undefined, { sentences: 1, words: 6 }, 10)
    // alone ~40 s on this shared machine; the bound leaves room for the full suite's load
  }, 180_000)

  it('its elements: verbs in the infinitive, auxiliaries gone, contractions expanded (as Mastra)', async () => {
    const run = { input: "I don't think he's going to Paris' museums; she was running quickly.", output: 'He walked.' }
    const r = await (oxeval as Any).createCompletenessScorer().run(run)
    expect(r.preprocessStepResult.inputElements).toEqual(['i', 'he', 's', 'paris', 'museums', 'she', 'do', 'not', 'think', 'go', 'run', 'quickly', 'to'])
    expect(r.preprocessStepResult.outputElements).toEqual(['he', 'walk'])
  })
})
