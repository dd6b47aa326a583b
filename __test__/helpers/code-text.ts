// The differential harness of the text code scorers' parity specs (code-text-parity*.spec.ts):
// the same generated runs through oxeval and @mastra/evals 1.10.2, results compared exactly.
import { expect } from 'vitest'
import type { Any } from './setup'
import { textRuns } from '../../bench/gen/text-gen.mjs'

export const N = 2000

/** What both libraries' results must share. */
export function shape(r: Any) {
  return { keys: Object.keys(r), score: r.score, pre: r.preprocessStepResult, analyze: r.analyzeStepResult, hasJudge: 'judge' in r }
}

async function outcome(scorer: Any, run: Any) {
  try {
    return { ok: true, r: shape(await scorer.run(run)) }
  } catch (e) {
    return { ok: false, error: String((e as Error).message) }
  }
}

/** Runs `n` generated runs through both; `prep` may rewrite the run Mastra gets. */
export async function differential(oxScorer: (i: number) => Any, msScorer: (i: number) => Any, seed: number, prep: (run: Any) => Any = (r) => r, size?: Any, widenEvery = 1) {
  const runs = textRuns(seed, N, size)
  let widened = 0
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i]
    const pairs: [Any, Any][] = [[{ input: run.input, output: run.output }, prep({ input: run.input, output: run.output })]]
    if (run.widened && i % widenEvery === 0) {
      pairs.push([run.widened.oxeval, prep(run.widened.mastra)])
      widened++
    }
    for (const [o, m] of pairs) {
      const a = await outcome(oxScorer(i), o)
      const b = await outcome(msScorer(i), m)
      if (JSON.stringify(a) !== JSON.stringify(b) || !a.ok) expect({ run: o, oxeval: a }, `run ${i}`).toEqual({ run: o, oxeval: b })
      // Sets compare by content: their order too
      if (a.ok && a.r.pre && typeof a.r.pre === 'object') {
        for (const k of Object.keys(a.r.pre)) if (a.r.pre[k] instanceof Set) expect([...a.r.pre[k]]).toEqual([...b.r!.pre[k]])
      }
    }
  }
  expect(widened).toBeGreaterThan(N / 10 / widenEvery)
}

