// `oxeval init`: a starting point that runs offline — a config (oxeval.config.mjs), a tiny
// dataset and a target stub. With no OPENAI_API_KEY the config judges with the built-in test
// judge (oxeval/testing) and says so when it runs. Never overwrites a file without --force;
// without a terminal it needs --yes.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline/promises'
import { parseArgs } from 'node:util'
import { UsageError } from './errors.mjs'

export const INIT_HELP = `Usage: oxeval init [--yes] [--force] [--dir DIR]

Writes a config (oxeval.config.mjs), a tiny dataset (evals/items.jsonl) and a target stub
(evals/target.mjs) that run offline: with no OPENAI_API_KEY the config uses the built-in test
judge. Then: npx oxeval run; npx oxeval compare BASE.jsonl HEAD.jsonl.

Options
  -y, --yes      do not ask (needed without a terminal)
      --force    overwrite files that exist
      --dir DIR  where to write (default: the working directory)
`

const CONFIG = `// oxeval's config: \`npx oxeval run\` reads it (flags override its fields).
// With no OPENAI_API_KEY it judges with oxeval's built-in test judge (offline, canned
// heuristics: scores are not meaningful) and says so when it starts.
import { createScorer, defineConfig } from 'oxeval'
import { createTestJudge } from 'oxeval/testing'
import { target } from './evals/target.mjs'

export default defineConfig(async () => {
  let model = 'openai/gpt-4o-mini'
  if (!process.env.OPENAI_API_KEY) {
    const judge = await createTestJudge()
    model = judge.model
    console.error('oxeval.config.mjs: no OPENAI_API_KEY: judging with the built-in test judge (offline; scores are not meaningful)')
  }
  // a scorer of your own: Mastra's createScorer API
  const concise = createScorer({ id: 'concise', description: 'Answers in under 200 characters' })
    .generateScore(({ run }) => (String(run.output).length < 200 ? 1 : 0))
  return {
    data: 'evals/items.jsonl',
    model,
    target,
    scorers: [{ scorer: 'answer-relevancy', threshold: 0.5 }, concise],
    out: 'evals/results/latest.jsonl',
    html: 'evals/results/latest.html',
  }
})
`

const ITEMS = [
  { id: 'capital', input: 'What is the capital of France?' },
  { id: 'boiling', input: 'At what temperature does water boil at sea level?' },
  { id: 'planets', input: 'How many planets are in the solar system?' },
]

const TARGET = `// The thing you evaluate: replace the body with a call to your agent or model.
// It gets the item's input and { item, signal } (pass the signal on to what you call).
const ANSWERS = {
  'What is the capital of France?': 'Paris is the capital of France.',
  'At what temperature does water boil at sea level?': 'Water boils at 100 °C (212 °F) at sea level.',
  'How many planets are in the solar system?': 'There are eight planets in the solar system.',
}

export async function target(input, { signal }) {
  signal.throwIfAborted()
  return ANSWERS[input] ?? "I don't know."
}
`

export async function init(argv, io = { stdout: process.stdout, stdin: process.stdin }) {
  const { values } = parseArgs({ args: argv, options: { yes: { type: 'boolean', short: 'y' }, force: { type: 'boolean' }, dir: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: false, strict: true })
  if (values.help) return { help: true }
  const dir = resolve(values.dir ?? '.')
  const files = [
    ['oxeval.config.mjs', CONFIG],
    [join('evals', 'items.jsonl'), ITEMS.map((x) => JSON.stringify(x)).join('\n') + '\n'],
    [join('evals', 'target.mjs'), TARGET],
  ]
  const existing = files.filter(([f]) => existsSync(join(dir, f))).map(([f]) => f)
  if (existing.length && !values.force) throw new UsageError(`init: ${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''} in ${dir}; nothing was written (--force overwrites)`)
  if (!values.yes) {
    if (!io.stdin.isTTY) throw new UsageError('init: no terminal to ask; run oxeval init --yes')
    const rl = createInterface({ input: io.stdin, output: io.stdout })
    const a = (await rl.question(`Write ${files.map(([f]) => f).join(', ')} in ${dir}? [Y/n] `)).trim().toLowerCase()
    rl.close()
    if (a !== '' && a !== 'y' && a !== 'yes') {
      io.stdout.write('init: nothing written\n')
      return { code: 0 }
    }
  }
  for (const [f, text] of files) {
    mkdirSync(join(dir, f, '..'), { recursive: true })
    writeFileSync(join(dir, f), text)
  }
  // the results store (.oxeval/store.db) stays out of the repository
  const ignored = ignoreStore(dir)
  io.stdout.write(`wrote ${files.map(([f]) => f).join(', ')}${ignored ? `; ${ignored}` : ''}\nnext: npx oxeval run (every run is kept in .oxeval/store.db: npx oxeval history)\nthen change your target or prompts and compare with the last run on main: npx oxeval run --base main (or a file: --base evals/results/base.jsonl)\n`)
  return { code: 0 }
}

/** Adds `.oxeval/` to `dir`'s .gitignore (made if missing) → what was done, or null if already there. */
export function ignoreStore(dir) {
  const file = join(dir, '.gitignore')
  const text = existsSync(file) ? readFileSync(file, 'utf8') : ''
  if (text.split(/\r?\n/).some((l) => ['.oxeval', '.oxeval/', '/.oxeval', '/.oxeval/'].includes(l.trim()))) return null
  appendFileSync(file, `${text && !text.endsWith('\n') ? '\n' : ''}# oxeval's results store (oxeval history)\n.oxeval/\n`)
  return text ? 'added .oxeval/ to .gitignore' : 'wrote .gitignore (.oxeval/)'
}
