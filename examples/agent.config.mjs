// The demo's agent run (`oxeval run --config examples/agent.config.mjs`): a real @mastra/core
// Agent with a weather tool and memory, driven through multi-turn items (examples/
// conversations.json: `inputs` on one thread, `turns` with per-turn gates and scorers),
// categorized scorers (Mastra's `{ agent, trajectory }`: the trajectory scorer receives the
// trajectory extracted from the agent's messages) and a gate. The agent's model is an AI SDK
// mock that answers like a small weather agent (no key, no network); the judge of the
// multi-turn judge scorer comes from OXEVAL_MODEL, else the demo's scripted judge.
import { createMultiTurnJudgeScorer, createTrajectoryAccuracyScorerCode, checks, defineConfig } from 'oxeval'
import { MockLanguageModelV3 } from 'ai/test'
import { Agent } from '@mastra/core/agent'
import { MockMemory } from '@mastra/core/memory'
import { InMemoryStore } from '@mastra/core/storage'
import { createTool } from '@mastra/core/tools'
import { z } from 'zod'

const model = process.env.OXEVAL_MODEL ?? { id: 'openai/scripted-judge', url: process.env.OXEVAL_DEMO_JUDGE_URL, apiKey: 'scripted-judge-needs-no-key' }

const usage = { inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 8, text: 8, reasoning: 0 } }
const textOf = (m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join(''))

// a weather agent's model, scripted: a question about the weather calls get_weather for the city
// it names, else for the favorite city the conversation named earlier (only memory recalls it)
const weatherModel = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    const last = prompt[prompt.length - 1]
    const done = { finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }
    if (last.role === 'tool') {
      const { city, tempC } = last.content[0].output.value
      return { content: [{ type: 'text', text: `It is ${tempC}°C in ${city}, the city you asked about: that is the weather today.` }], ...done }
    }
    const text = textOf(last)
    if (/weather/i.test(text)) {
      const city = /in ([A-Z][a-z]+)/.exec(text)?.[1] ?? prompt.map(textOf).join(' ').match(/favorite city is ([A-Z][a-z]+)/)?.[1]
      if (!city) return { content: [{ type: 'text', text: 'Which city do you mean?' }], ...done }
      return { content: [{ type: 'tool-call', toolCallId: `call-${city}`, toolName: 'get_weather', input: JSON.stringify({ city }) }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] }
    }
    return { content: [{ type: 'text', text: `Noted: ${text}` }], ...done }
  },
})

const getWeather = createTool({
  id: 'get_weather',
  description: 'The current weather of a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, tempC: { Paris: 21, Lyon: 24, Oslo: 9 }[city] ?? 15 }),
})

const agent = new Agent({
  id: 'weather-agent',
  name: 'weather-agent',
  instructions: 'You answer questions about the weather, with the get_weather tool.',
  model: weatherModel,
  tools: { get_weather: getWeather },
  // memory: the turns of a conversation share one thread (runEvals makes one per item)
  memory: new MockMemory({ storage: new InMemoryStore() }),
})

export default defineConfig({
  data: 'conversations.json',
  target: agent,
  targetOptions: { maxSteps: 3 },
  scorers: {
    agent: [createMultiTurnJudgeScorer({ model, criterion: 'The assistant gives the weather in the city asked about.' }), checks.noToolErrors()],
    trajectory: [{ scorer: createTrajectoryAccuracyScorerCode(), threshold: 0.9 }],
  },
  gates: ['calledTool(get_weather)'],
})
