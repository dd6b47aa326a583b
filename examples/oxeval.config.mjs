// The demo's config (`oxeval run --config examples/oxeval.config.mjs`): a target that makes the
// outputs, a custom scorer (createScorer) next to a built-in one, a gate. The judge comes from
// OXEVAL_MODEL, else the demo's scripted judge (OXEVAL_DEMO_JUDGE_URL); OXEVAL_DEMO_TARGET=v2
// swaps in a worse target so that `oxeval compare` has something to find.
import { createScorer, defineConfig } from 'oxeval'

const ANSWERS = {
  v1: {
    'What is the capital of France?': 'Paris is the capital of France.',
    'How many legs does a spider have?': 'A spider has eight legs.',
    'What gas do plants absorb from the air?': 'Plants absorb carbon dioxide from the air.',
    'Who wrote Hamlet?': 'William Shakespeare wrote Hamlet.',
  },
  v2: {
    'What is the capital of France?': 'France is a country in Europe with many cities.',
    'How many legs does a spider have?': 'Spiders are arachnids.',
    'What gas do plants absorb from the air?': 'Plants absorb carbon dioxide from the air.',
    'Who wrote Hamlet?': 'It is a famous play.',
  },
}

const model = process.env.OXEVAL_MODEL ?? { id: 'openai/scripted-judge', url: process.env.OXEVAL_DEMO_JUDGE_URL, apiKey: 'scripted-judge-needs-no-key' }

// a scorer of your own, with Mastra's builder: a function step and a judged score
const answersTheQuestion = createScorer({ id: 'answers-the-question', description: 'The answer names what was asked', judge: { model, instructions: 'You check whether an answer gives what the question asks for.' } })
  .preprocess(({ run }) => ({ words: String(run.output).split(/\s+/).length }))
  .generateScore(({ run, results }) => (results.preprocessStepResult.words >= 4 && !/famous|country|arachnids/.test(String(run.output)) ? 1 : 0))

export default defineConfig({
  data: Object.keys(ANSWERS.v1).map((input, i) => ({ id: `q${i + 1}`, input })),
  target: async (input) => ANSWERS[process.env.OXEVAL_DEMO_TARGET === 'v2' ? 'v2' : 'v1'][input],
  model,
  scorers: ['answer-relevancy', answersTheQuestion],
  gates: [createScorer({ id: 'non-empty', description: 'The target answered' }).generateScore(({ run }) => (String(run.output ?? '').trim() ? 1 : 0))],
  concurrency: 4,
})
