// createTrajectoryScorerCode with Infinity / NaN options, side by side with @mastra/evals
// 1.10.2 (issue 37): both take them at the factory; where the value is not in force (the
// retry allowance, a nested expectation that matches no step, a per-item override) both
// score the same, and where a budget in force is not finite both fail the run at preprocess
// with Mastra's message. The two departures (a NaN score in Mastra) are asserted as such.
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import * as mastraScorers from '@mastra/evals/scorers/prebuilt'
import type { Any } from './helpers/setup'

const require = createRequire(import.meta.url)
const ox = require('../index.js') as Any
const mp = mastraScorers as Any

const retried = { stepType: 'tool_call', name: 's', success: false }
const trajectory = {
  steps: [retried, retried, retried, { stepType: 'tool_call', name: 's', durationMs: 3, children: [{ stepType: 'tool_call', name: 'c' }] }],
}

async function outcome(make: () => Any, run: Any) {
  const scorer = make()
  try {
    return { ok: true as const, r: await scorer.run(run) }
  } catch (e) {
    return { ok: false as const, e: e as Any }
  }
}

const same: [string, Any, Any][] = [
  ['maxSteps: Infinity (in force)', { defaults: { maxSteps: Infinity } }, {}],
  ['maxSteps: NaN (in force)', { defaults: { maxSteps: NaN } }, {}],
  ['maxTotalDurationMs: NaN (in force)', { defaults: { maxTotalDurationMs: NaN } }, {}],
  ['maxTotalTokens: -Infinity (in force)', { defaults: { maxTotalTokens: -Infinity } }, {}],
  ['maxSteps: Infinity overridden per item', { defaults: { maxSteps: Infinity } }, { expectedTrajectory: { maxSteps: 3 } }],
  ['maxSteps: Infinity per item', {}, { expectedTrajectory: { maxSteps: Infinity } }],
  ['maxRetriesPerTool: Infinity', { defaults: { maxRetriesPerTool: Infinity } }, {}],
  ['maxRetriesPerTool: -Infinity', { defaults: { maxRetriesPerTool: -Infinity } }, {}],
  ['maxRetriesPerTool: Infinity per item', {}, { expectedTrajectory: { maxRetriesPerTool: Infinity } }],
  ['maxRetriesPerTool: NaN, no retry', { defaults: { maxRetriesPerTool: NaN } }, { output: { steps: [{ stepType: 'tool_call', name: 'a' }] } }],
  ['nested maxSteps: Infinity, no matching step', { defaults: { steps: [{ name: 'zz', children: { maxSteps: Infinity } }] } }, {}],
  ['nested maxSteps: Infinity, matching step', { defaults: { steps: [{ name: 's', children: { maxSteps: Infinity } }] } }, {}],
  ['nested maxRetriesPerTool: NaN, no retry below', { defaults: { steps: [{ name: 's', children: { maxRetriesPerTool: NaN } }] } }, {}],
]

describe('createTrajectoryScorerCode: non-finite options as Mastra', () => {
  it.each(same)('%s', async (_label, options, extra) => {
    const run = { output: trajectory, ...extra }
    expect(() => ox.createTrajectoryScorerCode(options)).not.toThrow()
    const [m, o] = await Promise.all([outcome(() => mp.createTrajectoryScorerCode(options), run), outcome(() => ox.createTrajectoryScorerCode(options), run)])
    if (!m.ok) {
      expect(o.ok).toBe(false)
      if (o.ok) return
      expect(m.e.failedStep ?? m.e.step).toBeDefined()
      expect(o.e.name).toBe('ScorerRunError')
      expect(o.e.failedStep).toBe('preprocess')
      expect(o.e.message).toContain(m.e.message.replace(/^Scorer Run Failed: /, ''))
      return
    }
    expect(o.ok).toBe(true)
    if (!o.ok) return
    expect(o.r.score).toBe(m.r.score)
    expect(o.r.reason).toBe(m.r.reason)
    expect(JSON.stringify(o.r.preprocessStepResult)).toBe(JSON.stringify(m.r.preprocessStepResult))
    // the config echoes the numbers themselves, not JSON's null
    expect(o.r.preprocessStepResult.config).toEqual(m.r.preprocessStepResult.config)
  })

  it('departure: a NaN retry allowance in force fails the run (Mastra scores NaN)', async () => {
    const options = { defaults: { maxRetriesPerTool: NaN } }
    const m = await mp.createTrajectoryScorerCode(options).run({ output: trajectory })
    expect(m.score).toBeNaN()
    const o = await outcome(() => ox.createTrajectoryScorerCode(options), { output: trajectory })
    expect(o.ok).toBe(false)
    if (o.ok) return
    expect(o.e.failedStep).toBe('preprocess')
    expect(o.e.message).toContain('maxRetriesPerTool: expected a number, got NaN')
  })

  it('departure: a non-finite weight is a TypeError at the factory (Mastra scores NaN or ignores the level)', async () => {
    const steps = [{ name: 's' }]
    expect((await mp.createTrajectoryScorerCode({ weights: { accuracy: Infinity }, defaults: { steps } }).run({ output: trajectory })).score).toBeNaN()
    for (const w of [Infinity, NaN]) {
      expect(() => ox.createTrajectoryScorerCode({ weights: { accuracy: w }, defaults: { steps } })).toThrow(TypeError)
      expect(() => ox.createTrajectoryScorerCode({ weights: { accuracy: w } })).toThrow(`options.weights.accuracy must be a finite number; got ${w}`)
    }
  })

  it('every other scorer still names a non-finite option at the factory', () => {
    expect(() => ox.createToolCallAccuracyScorerCode({ expectedTool: 'a', strictMode: true, x: Infinity })).toThrow(/'x' is Infinity; numbers must be finite/)
  })
})
