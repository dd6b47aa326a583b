// The peer range's floor: @mastra/core 1.67.0 (installed as the alias package
// `mastra-core-1-67`; the devDependency is 1.71). oxeval/mastra's scorers built over 1.67's
// classes, as `oxeval/mastra` builds them over whichever @mastra/core the app has, are 1.67
// MastraScorers that score through 1.67's own run and runEvals, beside a 1.67 createScorer
// scorer; oxeval's runEvals takes a 1.67 scorer. Kept small: mastra.spec.ts covers 1.71.
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import type { MastraScorer as MastraScorer167 } from 'mastra-core-1-67/evals'
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test'
import { oxeval, type Any } from './helpers/setup'

const require = createRequire(import.meta.url)
const evals167 = require('mastra-core-1-67/evals')
const errors167 = require('mastra-core-1-67/error')
const { build } = require('../mastra/core.js')
const mastra167 = build({ MastraScorer: evals167.MastraScorer, ScorerRunError: evals167.ScorerRunError, MastraError: errors167.MastraError })

const { Agent } = require('mastra-core-1-67/agent')

/** An AI SDK mock model answering `text` (the agent's target). */
function mockModel(text: string) {
  const usage = { inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } }
  const finish = { unified: 'stop', raw: 'stop' }
  return new MockLanguageModelV3({
    doGenerate: async () => ({ content: [{ type: 'text', text }], finishReason: finish, usage, warnings: [] }) as Any,
    doStream: async () =>
      ({
        stream: simulateReadableStream({
          chunks: [
            { type: 'stream-start', warnings: [] },
            { type: 'text-start', id: 't1' },
            { type: 'text-delta', id: 't1', delta: text },
            { type: 'text-end', id: 't1' },
            { type: 'finish', finishReason: finish, usage },
          ],
        }),
      }) as Any,
  })
}

/** A 1.67 user's own scorer: 1 when the run has an output. */
const lengthScorer = () =>
  evals167
    .createScorer({ id: 'length-167', description: 'length' })
    .generateScore(({ run }: Any) => (run.output ? 1 : 0))

describe('@mastra/core 1.67.0 (the peer floor)', () => {
  it('is the version installed under the alias', () => {
    expect(require('mastra-core-1-67/package.json').version).toBe('1.67.0')
  })

  it("an oxeval/mastra scorer is a 1.67 MastraScorer and scores in 1.67's runEvals beside a 1.67 scorer", async () => {
    const keywords: MastraScorer167<Any, Any, Any, Any> = mastra167.createKeywordCoverageScorer()
    expect(keywords).toBeInstanceOf(evals167.MastraScorer)
    const direct = await keywords.run({ input: 'paris france capital', output: 'Paris is the capital of France.' } as Any)
    expect(direct.score).toBe(1)
    const result = await evals167.runEvals({
      target: new Agent({ id: 'geo', name: 'geo', instructions: 'Answer.', model: mockModel('Paris is the capital of France.') }),
      data: [{ input: 'capital of France' }],
      scorers: [keywords, lengthScorer()],
    })
    expect(result.scores['keyword-coverage-scorer']).toBe(1)
    expect(result.scores['length-167']).toBe(1)
  })

  it("oxeval's runEvals takes a 1.67 createScorer scorer beside oxeval's own", async () => {
    const result = await oxeval.runEvals({
      target: async (input: string) => `${input}!`,
      data: [{ input: 'x'.repeat(49) }],
      scorers: [lengthScorer(), oxeval.createKeywordCoverageScorer()],
    } as Any)
    expect(result.scores['length-167']).toBe(1)
    expect(result.scores['keyword-coverage-scorer']).toBeDefined()
  })
})
