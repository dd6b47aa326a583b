// `oxeval batch status|cancel --cache DIR`: the batches recorded in DIR/batches/ by
// `oxeval run --batch` (or runEvals' batch mode), polled at the provider with the judge of
// --model (same --model, --model-url, --api-key-env and key variables as `run`); `cancel`
// cancels them at the provider and removes their records (their lines already answered stay
// in the cache).
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { existsSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { UsageError } from './errors.mjs'
import { safeText } from './terminal.mjs'

const require = createRequire(import.meta.url)

export const BATCH_HELP = `Usage: oxeval batch status --cache DIR [--model ID] [--model-url URL] [--api-key-env VAR] [--json]
       oxeval batch cancel --cache DIR --model ID [--model-url URL] [--api-key-env VAR] [--json]

The batches that oxeval run --batch recorded in DIR/batches/ (one file per submitted batch:
its provider, its id, the cache keys of its requests; no key, no prompt).

  status   lists them; with --model (the judge that submitted them), asks the provider for
           each one's status and counts
  cancel   cancels them at the provider and removes their records (answers already in the
           cache stay; a rerun of the run submits what never came back)

      --cache DIR            the --cache directory of the run
  -m, --model ID             the judge: 'provider/model' (default: $OXEVAL_MODEL)
      --model-url URL        an OpenAI-compatible endpoint for --model
      --api-key-env VAR      read the judge's API key from $VAR
      --json                 print the result as JSON

It also lists the intents of creates whose answer never came (a run killed in the call: the
next run looks the batch up at the provider before creating anything) and the files that
cannot be read (conflict markers, a truncated copy): a run submits no batch with this cache
until such a file is repaired or moved away, since its requests may already be paid for.

Exit status: 0 done, 2 usage error, a batch that could not be read or cancelled, or an
unreadable record.
`

const OPTIONS = {
  cache: { type: 'string' },
  model: { type: 'string', short: 'm' },
  'model-url': { type: 'string' },
  'api-key-env': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
}

function modelOf(values, env) {
  const id = values.model || env.OXEVAL_MODEL
  if (!id) return undefined
  if (!id.includes('/')) throw new UsageError(`--model must be 'provider/model' (e.g. openai/gpt-4o-mini); got "${id}"`)
  if (values['model-url'] === undefined && values['api-key-env'] === undefined) return id
  const model = { id }
  if (values['model-url'] !== undefined) model.url = values['model-url']
  if (values['api-key-env'] !== undefined) {
    const key = env[values['api-key-env']]
    if (!key) throw new UsageError(`--api-key-env ${values['api-key-env']}: that environment variable is not set`)
    model.apiKey = key
  }
  return model
}

/** The intents (creates whose answer never came) and unreadable files, as lines. */
function problems(value) {
  const out = []
  for (const i of value.intents ?? []) out.push(`  intent ${i.provider} ${i.tag}  stage ${i.stage}, ${i.requests} requests: a create whose answer never came (the next run looks it up at the provider before creating anything) — ${i.file}`)
  for (const u of value.unreadable ?? []) out.push(`  UNREADABLE ${u.file} ${u.why}: its requests may be in a paid batch; no batch is submitted with this cache until it is repaired or moved away`)
  return out.length ? `${out.map((r) => safeText(r)).join('\n')}\n` : ''
}

function table(value) {
  if (value.batches.length === 0) return `oxeval: no batch recorded in ${value.dir}\n${problems(value)}`
  const rows = value.batches.map((b) => {
    const counts = b.completed !== undefined ? ` ${b.completed} completed, ${b.failed} failed;` : ''
    const extra = [b.cancelled ? 'cancelled' : '', b.removed ? 'record removed' : '', b.error ? `error: ${b.error}` : ''].filter(Boolean).join('; ')
    return `  ${b.provider} ${b.id}  stage ${b.stage}, ${b.requests} requests (${b.answeredInCache} answered in the cache): ${b.status};${counts}${extra ? ` ${extra}` : ''}`
  })
  return `oxeval: ${value.batches.length} batch${value.batches.length === 1 ? '' : 'es'} recorded in ${value.dir}\n${rows.map((r) => safeText(r)).join('\n')}\n${problems(value)}`
}

export async function batch(argv, io = { stdout: process.stdout, stderr: process.stderr }, env = process.env) {
  const [sub, ...rest] = argv
  if (sub === undefined || sub === '--help' || sub === '-h') return { help: true }
  if (sub !== 'status' && sub !== 'cancel') throw new UsageError(`unknown batch command "${sub}" (status, cancel; see oxeval batch --help)`)
  const { values } = parseArgs({ args: rest, options: OPTIONS, allowPositionals: false, strict: true })
  if (values.help) return { help: true }
  if (!values.cache) throw new UsageError('--cache DIR is required (the --cache directory of the run)')
  const dir = resolve(values.cache)
  if (!existsSync(dir)) throw new UsageError(`--cache ${values.cache}: no such directory`)
  const model = modelOf(values, env)
  if (sub === 'cancel' && !model) throw new UsageError('oxeval batch cancel needs --model (the judge that submitted the batches)')
  const native = require('../load-binding.js')
  const r = await native.batchInspect(dir, model === undefined ? null : JSON.stringify(model), sub === 'cancel')
  if (!r.ok) throw new UsageError(`--model: ${r.message}`)
  io.stdout.write(values.json ? `${JSON.stringify(r.value, null, 2)}\n` : table(r.value))
  if (r.value.unreadable?.length) io.stderr.write(`oxeval: ${r.value.unreadable.length} batch record${r.value.unreadable.length === 1 ? '' : 's'} in ${r.value.dir} cannot be read (listed above)\n`)
  return { code: r.value.batches.some((b) => b.error) || r.value.unreadable?.length ? 2 : 0 }
}
