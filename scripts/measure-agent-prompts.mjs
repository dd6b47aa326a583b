// The lengths the "no longer than Mastra's prompt" tests of the seven agent scorers pin
// (crates/oxeval-core/src/scorers/llm/<scorer>/prompts.rs `no_longer_than_mastra`): each
// library's scorer runs the same small run against one recording judge, and for every judge
// call the characters sent (system message + user message) are printed per step, Mastra's
// (@mastra/evals 1.10.2) beside oxeval's. The judge answers with the smallest valid reply of
// each step (empty lists), so the next step's prompt carries no judge text either.
//   node scripts/measure-agent-prompts.mjs
import { createRequire } from 'node:module'
import { startJudgeServer } from '../testing/judge-server.mjs'

const require = createRequire(import.meta.url)
const ox = require('../index.js')
const mastra = await import('@mastra/evals/scorers/prebuilt')

const ANALYSIS = {
  intentAlignment: { score: 1, primaryIntent: 'i', isAddressed: true, reasoning: 'r' },
  requirementsFulfillment: { requirements: [], overallScore: 1 },
  completeness: { score: 1, missingElements: [], reasoning: 'r' },
  responseAppropriateness: { score: 1, formatAlignment: true, toneAlignment: true, reasoning: 'r' },
  overallAssessment: 'o',
}

function reply(req) {
  const props = Object.keys(req.body?.response_format?.json_schema?.schema?.properties ?? {})
  if (props.includes('opinions')) return { json: { opinions: [] } }
  if (props.includes('results')) return { json: { results: [] } }
  if (props.includes('verdicts')) return { json: { verdicts: [] } }
  if (props.includes('intentAlignment')) return { json: ANALYSIS }
  if (props.includes('criteria')) return { json: { criteria: [], overallAssessment: 'o' } }
  if (props.includes('satisfied')) return { json: { satisfied: true, reasoning: 'r' } }
  if (props.includes('evaluations')) return { json: { evaluations: [], missingTools: [] } }
  if (props.includes('stepEvaluations')) return { json: { stepEvaluations: [], missingSteps: [], extraSteps: [], overallAssessment: 'o' } }
  return { content: 'r' }
}

const at = '2025-01-01T00:00:00.000Z'
const user = { inputMessages: [{ id: 'u', role: 'user', createdAt: at, content: { format: 2, parts: [{ type: 'text', text: 'q' }], content: 'q' } }], rememberedMessages: [], systemMessages: [], taggedSystemMessages: {} }
const answer = [{ id: 'a', role: 'assistant', createdAt: at, content: { format: 2, parts: [{ type: 'text', text: 'a' }], content: 'a' } }]
const withSystem = { ...user, systemMessages: [{ role: 'system', content: 's' }] }
const called = [{ id: 'a', role: 'assistant', createdAt: at, content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { toolCallId: 'c', toolName: 't', state: 'result', args: {}, result: {} } }] } }]

/** factory, options (beside model), run. */
const CASES = [
  ['bias', 'createBiasScorer', {}, { input: user, output: answer }],
  ['toxicity', 'createToxicityScorer', {}, { input: user, output: answer }],
  ['prompt_alignment', 'createPromptAlignmentScorerLLM', { options: { evaluationMode: 'user' } }, { input: user, output: answer }],
  ['prompt_alignment (system)', 'createPromptAlignmentScorerLLM', { options: { evaluationMode: 'system' } }, { input: withSystem, output: answer }],
  ['prompt_alignment (both)', 'createPromptAlignmentScorerLLM', {}, { input: withSystem, output: answer }],
  ['rubric', 'createRubricScorer', { criteria: '- c' }, { input: user, output: answer }],
  ['rubric (no criteria)', 'createRubricScorer', {}, { input: user, output: answer }],
  ['multi_turn_judge', 'createMultiTurnJudgeScorer', { criterion: 'c' }, { input: user, output: answer }],
  ['tool_call_accuracy_llm', 'createToolCallAccuracyScorerLLM', { availableTools: [{ id: 't', description: 'd' }] }, { input: user, output: called }],
  ['trajectory_accuracy_llm', 'createTrajectoryAccuracyScorerLLM', {}, { input: user, output: { steps: [{ stepType: 'tool_call', name: 't' }] } }],
  ['trajectory_accuracy_llm (expected)', 'createTrajectoryAccuracyScorerLLM', { expectedTrajectory: [{ stepType: 'tool_call', name: 't' }] }, { input: user, output: { steps: [{ stepType: 'tool_call', name: 't' }] } }],
]

const server = await startJudgeServer({ handler: reply })
const model = { id: 'openai/gpt-4o-mini', url: server.url, apiKey: 'measure' }
const chars = (s) => [...String(s ?? '')].length
for (const [name, factory, options, run] of CASES) {
  const sent = {}
  for (const [lib, make] of [
    ['mastra', () => mastra[factory]({ model, ...options })],
    ['oxeval', () => ox[factory]({ model, modelSettings: { maxRetries: 0 }, ...options })],
  ]) {
    const start = server.requests.length
    await make().run(structuredClone(run))
    sent[lib] = server.requests.slice(start).map((q) => chars(q.system) + chars(q.user))
  }
  console.log(`${name}: Mastra ${sent.mastra.join(', ')}; oxeval ${sent.oxeval.join(', ')}`)
}
await server.close()
