// Typical agent runs for the `code` bench, built with the test-data builders both libraries
// share (oxeval/utils mirrors @mastra/evals/scorers/utils: createTestMessage,
// createAgentTestRun, createTrajectoryTestRun): a user question, one assistant message with
// its answer and the tool invocations that produced it (Mastra's legacy toolInvocations
// array, as its builders write it; a Date createdAt, a RequestContext, a runId), and
// trajectories of two to five steps. English text, a few tool calls: what an agent's eval
// loop scores, beside the stress runs of agent-gen.mjs (mixed parts and legacy invocations
// in every state, Unicode-heavy texts, up to six messages).
import { createRequire } from 'node:module'
import { rng } from './agent-gen.mjs'

const require = createRequire(import.meta.url)
const { createTestMessage, createAgentTestRun, createTrajectoryTestRun } = require('../../utils/index.js')

const CITIES = ['Paris', 'London', 'Tokyo', 'Berlin', 'New York', 'Lisbon']

/** The scenarios: a question, the tool calls answering it (name, args, result), the answer. */
const SCENARIOS = [
  (c, r) => ({
    q: `What's the weather like in ${c} today?`,
    tools: [['get_weather', { city: c, unit: 'F' }, { tempF: 60 + r.int(25), condition: 'sunny', humidity: 40 + r.int(30) }]],
    a: `It is currently sunny in ${c}, with a temperature of about 72°F and moderate humidity. A light jacket should be enough this evening.`,
  }),
  (c) => ({
    q: `Find recent news about electric buses in ${c} and summarize it.`,
    tools: [
      ['search', { query: `electric buses ${c} 2026`, limit: 5 }, { results: [{ title: `${c} expands its electric bus fleet`, url: 'https://news.example.com/a' }, { title: 'Charging depots open downtown', url: 'https://news.example.com/b' }] }],
      ['summarize', { text: `${c} expands its electric bus fleet. Charging depots open downtown.` }, { summary: `${c} is adding electric buses and new charging depots.` }],
    ],
    a: `${c} is expanding its electric bus fleet this year, and two new charging depots opened downtown to support it. Officials expect half of the routes to run on electric buses by 2028.`,
  }),
  (c) => ({
    q: `Email the team that the ${c} offsite moves to Thursday.`,
    tools: [['send_email', { to: 'team@example.com', subject: `${c} offsite moved`, body: `The ${c} offsite moves to Thursday.` }, { ok: true, id: 'msg_123' }]],
    a: `Done: I emailed the team that the ${c} offsite now takes place on Thursday.`,
  }),
  () => ({
    q: 'What is the capital of Australia?',
    tools: [],
    a: 'The capital of Australia is Canberra, not Sydney as many people assume.',
  }),
  (c) => ({
    q: `Convert 250 euros to dollars and tell me the weather in ${c}.`,
    tools: [
      ['calc', { expression: '250 * 1.08' }, { value: 270 }],
      ['get_weather', { city: c }, { error: 'upstream timeout' }],
    ],
    a: `250 euros is about 270 dollars. I could not reach the weather service for ${c} right now; please try again in a minute.`,
  }),
]

/** A typical agent run (seeded): `createAgentTestRun` of a user message and the assistant's. */
export function agentRun(r) {
  const s = SCENARIOS[r.int(SCENARIOS.length)](CITIES[r.int(CITIES.length)], r)
  const toolInvocations = s.tools.map(([toolName, args, result], i) => ({ toolCallId: `call_${i + 1}`, toolName, args, result, state: 'result' }))
  return createAgentTestRun({
    inputMessages: [createTestMessage({ id: 'u1', role: 'user', content: s.q })],
    output: [createTestMessage({ id: 'a1', role: 'assistant', content: s.a, toolInvocations })],
  })
}

/** A typical trajectory run (seeded): the scenario's tool calls and model steps, with an expectation. */
export function trajectoryRun(r) {
  const s = SCENARIOS[r.int(SCENARIOS.length)](CITIES[r.int(CITIES.length)], r)
  const steps = []
  for (const [name, toolArgs, toolResult] of s.tools) {
    steps.push({ stepType: 'model_generation', name: 'plan', modelId: 'gpt-4o-mini', promptTokens: 300 + r.int(200), completionTokens: 20 + r.int(40), durationMs: 400 + r.int(400) })
    steps.push({ stepType: 'tool_call', name, toolArgs, toolResult, success: !('error' in toolResult), durationMs: 100 + r.int(500) })
  }
  steps.push({ stepType: 'model_generation', name: 'answer', modelId: 'gpt-4o-mini', promptTokens: 600 + r.int(300), completionTokens: 40 + r.int(60), durationMs: 600 + r.int(600) })
  const expected = s.tools.map(([name]) => ({ name, stepType: 'tool_call' }))
  return createTrajectoryTestRun({
    inputMessages: [createTestMessage({ id: 'u1', role: 'user', content: s.q })],
    trajectory: { steps },
    expectedTrajectory: { steps: expected.length ? expected : [{ name: 'answer' }], maxSteps: 8, noRedundantCalls: true },
  })
}

/** Question/answer pairs in plain English for the text code scorers. */
const QA = [
  ['How do I reset my password?', 'To reset your password, open Settings, choose Security and click "Reset password". We will email you a link that stays valid for one hour.'],
  ['Can you summarize the quarterly report?', 'Revenue grew 12% over the quarter, driven by strong subscription sales in Europe. Costs rose more slowly, so the operating margin improved to 18%.'],
  ['Why is my order late?', 'I am sorry your order is late. The carrier reported a delay at the regional depot, and the package should arrive within two business days.'],
  ['What are the side effects of ibuprofen?', 'Common side effects of ibuprofen include an upset stomach, heartburn and dizziness. Talk to a doctor if you notice black stools or chest pain.'],
  ['Recommend a good book about habits.', 'Atomic Habits by James Clear is a practical and very readable book about building good habits and breaking bad ones.'],
  ['Is it safe to travel to Lisbon in August?', 'Lisbon is generally safe in August, but it is hot and crowded. Book accommodation early and keep an eye on your belongings in busy trams.'],
  ['Explain what a vector database does.', 'A vector database stores embeddings and finds the items whose vectors are closest to a query vector, which makes semantic search fast at scale.'],
  ['The app keeps crashing when I upload photos.', 'Thanks for reporting this. Please update the app to the latest version; the crash on photo upload was fixed yesterday. If it continues, send us the log file.'],
]

/** A typical text run (seeded): `createAgentTestRun` of a user question and the assistant's answer. */
export function textRun(r) {
  const [q, a] = QA[r.int(QA.length)]
  return createAgentTestRun({
    inputMessages: [createTestMessage({ id: 'u1', role: 'user', content: q })],
    output: [createTestMessage({ id: 'a1', role: 'assistant', content: a })],
  })
}

export { rng }
