// `oxeval run`: score a dataset with registry scorers through runEvals, stream the results
// (--out), write the reports (--html, --junit), print the summary; exit 0 / 1 (a threshold or
// gate failed) / 2 (usage or data error) / 130 (interrupted: what finished is still written).
import { basename, dirname, join, resolve } from 'node:path'
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { UsageError } from './errors.mjs'
import { configValues, findConfig, loadConfig, mergeValues } from './config.mjs'
import { MAX_DEPTH, newFingerprint, parseShard, scanDataset, shardItems } from './data.mjs'
import { parseOption, parseThreshold, resolveScorer, setPath } from './scorers.mjs'
import { JsonlWriter, checkDistinct, checkWritable, encodeItem, promptMode, publicModel, writeErrorText, writeReports } from './results.mjs'
import { sayer } from './terminal.mjs'
import { checkId, createCheck, isCheckExpression, parseCheckExpression } from './checks.mjs'
import { Progress } from './progress.mjs'
import { addonInfo, addonLine, debugWarning } from './addon.mjs'
import { WorstItems, formatSummary, verdictExitCode } from './summary.mjs'
import { runEstimate } from './estimate.mjs'
import { ItemSpool, reportItem } from '../report/html.mjs'
import { scorerViews } from '../report/items.mjs'
import { applyTurnScorers, conversationCache, scorersOption, turnScorers } from './agents.mjs'
import { STORE_OPTIONS, baseRunsOption, exportRun, poolBaseline, poolFiles, startCliRecording, storeFailureText, storeSpec } from './store.mjs'

const require = createRequire(import.meta.url)
const { judgeModelOf } = require('../lib/store.js')
export const VERSION = require('../package.json').version

export const RUN_OPTIONS = {
  data: { type: 'string', short: 'd' },
  scorer: { type: 'string', short: 's', multiple: true },
  scorers: { type: 'string', multiple: true },
  model: { type: 'string', short: 'm' },
  'model-url': { type: 'string' },
  'api-key-env': { type: 'string' },
  concurrency: { type: 'string', short: 'c' },
  threshold: { type: 'string', short: 't', multiple: true },
  gate: { type: 'string', multiple: true },
  trials: { type: 'string' },
  cache: { type: 'string' },
  'cache-mode': { type: 'string' },
  batch: { type: 'boolean' },
  'batch-poll-ms': { type: 'string' },
  'batch-max-items': { type: 'string' },
  detach: { type: 'boolean' },
  out: { type: 'string', short: 'o' },
  'out-prompts': { type: 'string' },
  junit: { type: 'string' },
  html: { type: 'string' },
  shard: { type: 'string' },
  'run-id': { type: 'string' },
  option: { type: 'string', multiple: true },
  'price-in': { type: 'string' },
  'price-out': { type: 'string' },
  'max-cost': { type: 'string' },
  estimate: { type: 'boolean' },
  worst: { type: 'string' },
  'max-errors': { type: 'string' },
  'min-coverage': { type: 'string' },
  'no-progress': { type: 'boolean' },
  base: { type: 'string' },
  'base-runs': { type: 'string' },
  config: { type: 'string' },
  'cache-targets': { type: 'string' },
  ...STORE_OPTIONS,
  help: { type: 'boolean', short: 'h' },
}

export const RUN_HELP = `Usage: oxeval run --data FILE --scorer NAME [--scorer NAME…] --model PROVIDER/MODEL [options]

Scores every item of FILE with each scorer (LLM-as-a-judge) and prints a summary.

Data
  -d, --data FILE            .jsonl (one item per line), .json (an array) or .csv (a header
                             row; needs an input column). An item: { id?, input, output?,
                             groundTruth?, context?, … }; every other field (source,
                             baselineResponse, noisyQuery, …) reaches the scorers. CSV: every
                             column is a field, its cells text as they are (empty cells left
                             out), except context: a JSON array of strings or "a|b|c". A UTF-8
                             BOM is ignored. The file is streamed (any size) and read twice: a
                             first pass counts the rows and takes its sha-256 (recorded in the
                             --out header for oxeval merge), the second feeds the items.
                             Agent items (JSON/JSONL): { inputs: [...] } (turns sent in order on
                             one thread to the config's Agent target; no target: the recorded
                             output), { turns: [{ input, output?, gates?, scorers? }] } (each
                             turn's assertions judge that turn alone, named as --gate/--scorer
                             name them: "calledTool(weather)", { "scorer": "answer-relevancy",
                             "threshold": 0.7 }), expectedTrajectory (for trajectory scorers).
                             Bad rows (invalid JSON, no input, a bad context, nested deeper
                             than ${MAX_DEPTH} levels) are reported on stderr with their line and
                             stay items of the run, as item errors (OXEVAL_INVALID_INPUT);
                             a file without one valid row is a data error (exit 2)
      --shard K/N            run only rows i (0-based, file order) with i % N == K - 1; combine
                             the shards' --out files with oxeval merge (which applies the
                             thresholds: a shard's exit status reflects its gates only)
      --run-id ID            the stored run's id (also $OXEVAL_RUN_ID): shards given one id
                             (or, in CI, deriving one from the pipeline's run) record into one
                             stored run, finished when every shard has; see docs/store.md

Scorers and judge
  -s, --scorer NAME          repeatable; the registry id (answer-relevancy-scorer), the id without
                             "-scorer" (answer-relevancy) or the factory (createAnswerRelevancyScorer)
      --cache-targets DIR    keep the target's outputs in DIR (one file per item): a rerun rescores
                             without calling the target again (delete DIR to rerun it)
      --config PATH          read the run from a config file (default: oxeval.config.(ts|mts|mjs|js)
                             in the working directory when no --data/--scorer is given); flags
                             override its fields
      --base BASE            after the run, compare it with BASE: an earlier --out FILE, or a run
                             in the results store: main (the newest finished run on branch main
                             with this dataset; any branch name works), branch:B, run:ID, tag:T
      --base-runs K          pool the base's last K finished runs (same dataset; docs/store.md):
                             per item the mean of K, the judge noise measured and reported
      --scorers MODULE       repeatable; a .mjs/.js module (or .ts with a loader: NODE_OPTIONS=
                             '--import tsx') whose exports are scorers (createScorer's, built-in,
                             Mastra's), { scorer, threshold } or arrays of them; mixed with --scorer
  -m, --model ID             the judge: 'provider/model' (key from the provider's env var, e.g.
                             OPENAI_API_KEY); default: $OXEVAL_MODEL
      --model-url URL        an OpenAI-compatible endpoint for --model (→ { id, url })
      --api-key-env VAR      read the judge's API key from $VAR
      --option S.KEY=VALUE   a factory option of scorer S (KEY may be dotted: modelSettings.maxRetries;
                             S may be * for every scorer); VALUE is JSON when it parses, else text
  -t, --threshold S=V        fail (exit 1) when S's mean is below V; also S=<=V (a maximum), S=LO..HI
      --gate NAME            a scorer every item must pass with score 1 (else exit 1); a check
                             is written as a call: --gate 'calledTool(get_weather)',
                             'includes("Paris")', 'matches(/\d+°F/)', 'toolOrder([search, send])',
                             'maxToolCalls(3)', 'noToolErrors()' (also as --scorer, e.g.
                             'similarity("Sunny, 72°F")'); checks and code scorers need no --model.
                             A check's results are keyed by the library's id (check-called-tool);
                             two of one kind need their own: 'calledTool(b, {id: "called-b"})'
      --max-errors N         items that may go unscored (a judge error, no output, a bad row)
                             before the run fails (default 0); a replay-cache miss always fails
      --min-coverage F       fail when a scorer scored under this share (0-1) of the items
      --trials N             runs per item and scorer (default 1); the item score is their mean
  -c, --concurrency N        items in flight (default 8)
      --cache DIR            judge response cache on disk: rerunning resumes without paying again
      --cache-mode MODE      auto (default: read and write), record (write only) or replay (read only)
      --batch                send the judge requests as provider batches (OpenAI, Azure OpenAI,
                             Anthropic, Gemini: half price, minutes to hours of latency): up to
                             --batch-max-items in flight, one batch per pipeline stage; needs --cache DIR,
                             where each batch is recorded (a rerun resumes, never pays twice)
      --batch-poll-ms N      the longest wait between two polls of a batch (default 30000)
      --batch-max-items N    items in flight at once in batch mode (default 5000, about
                             0.3 GB); a larger run goes in waves, the next items' requests
                             joining the next batches
      --detach               with --batch: submit the current stage, print the batch ids and exit
                             0; run the same command again (any machine with the --cache DIR) to
                             take what is ready and go on. See also: oxeval batch status|cancel

Outputs
  -o, --out FILE             results as JSONL: a header, one line per item, a summary. One run
                             at a time per file: FILE.lock (holding the pid) is kept while it
                             writes; a second run refuses (exit 2) until it ends (a lock whose
                             process is gone is taken over). A write error (disk full) does not
                             stop the run: the summary and other reports still come, exit 2
      --out-prompts MODE     once (default): each judge prompt stored once per item and scorer
                             (in the Mastra step key, e.g. analyzePrompt; the judge execution says
                             "promptRef": "analyzePrompt"); none: no prompts at all (a slim file)
      --html FILE            a self-contained HTML report (charts, sortable/filterable items)
      --junit FILE           JUnit XML: one testsuite per scorer, one testcase per item
      --price-in USD         price per 1M input tokens (adds cost to the summary and the report)
      --price-out USD        price per 1M output tokens
      --estimate             print what the run would cost (judge calls, input tokens of the
                             real prompts, an output range, direct and batch prices) WITHOUT
                             calling the judge or the target; items without an output are
                             skipped (docs/cost.md)
      --max-cost USD         a budget for the judge calls: no new item starts once the spend (as
                             billed, at oxeval's dated prices or --price-in/--price-out) would
                             pass it; the rest are OXEVAL_BUDGET_EXHAUSTED items, the run fails
                             (exit 1); a rerun with --cache pays only for them (docs/cost.md)
      --worst N              worst items listed per scorer in the summary (default 5)
      --no-progress          no progress output on stderr

Results store (every run is kept: oxeval history, oxeval runs, --base main; docs/store.md)
      --store PATH           record into PATH (default: .oxeval/store.db under the config's folder,
                             else the working directory; also the config's store, $OXEVAL_STORE),
                             or into a shared PostgreSQL database: --store postgres://USER:PW@HOST/DB
      --no-store             do not record this run (config: store: false)
      --tag T                a label for this run (repeatable): history --tag T, --base tag:T
      --name N               a name for this run
  A store that cannot be written costs nothing else: the reports and --out are written, a
  message names the store and the cause, and the exit status is 2.

--out, --html, --junit and --data must be different files. A closed stdout/stderr pipe
(oxeval run … | head) is ignored: the files are still written.

Outcome: the run passes when every item was scored (or --max-errors allows the rest), every gate
passed and every threshold was met. It fails when a scorer scored nothing, more items went
unscored than allowed, a replay-cache miss happened, or it stopped early: when the first 5 runs
of a scorer all fail the same way that retrying cannot change (no API key, connection refused,
unknown host, HTTP 401/403/404), the rest of the items are recorded as not run
(OXEVAL_RUN_STOPPED) instead of spending minutes on retries. The summary line says it: "verdict:
passed | scored | failed" (Mastra's words, where gates or thresholds were set; "scored" = every
gate passed but a threshold was missed, not a pass), else "outcome: passed | failed", with every
reason. The HTML badge and JUnit say the same.

Exit status: 0 passed, 1 the run did not pass (the outcome above), 2 usage or data error (or an
output could not be written), 130 interrupted
(Ctrl-C: items that finished are written to --out/--html/--junit and summarized).

Scorers:
`

function nonNegativeInt(flag, text) {
  const n = Number(text)
  if (!/^\d+$/.test(String(text).trim()) || !Number.isSafeInteger(n)) throw new UsageError(`--${flag} must be a whole number ≥ 0; got "${text}"`)
  return n
}

function share(flag, text) {
  const n = Number(text)
  if (String(text).trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new UsageError(`--${flag} must be a number from 0 to 1; got "${text}"`)
  return n
}

function positiveInt(flag, text, max = 1_000_000) {
  if (text === undefined) return undefined
  const n = Number(text)
  if (!/^\d+$/.test(String(text).trim()) || !Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new UsageError(`--${flag} must be an integer from 1 to ${max}; got "${text}"`)
  }
  return n
}

function price(flag, text) {
  if (text === undefined) return undefined
  const n = Number(text)
  if (String(text).trim() === '' || !Number.isFinite(n) || n < 0) throw new UsageError(`--${flag} must be a non-negative number (dollars per 1M tokens); got "${text}"`)
  return n
}

function dollarsOver0(flag, text) {
  const n = Number(text)
  if (String(text).trim() === '' || !Number.isFinite(n) || n <= 0) throw new UsageError(`--${flag} must be a number of US dollars > 0; got "${text}"`)
  return n
}

/** Validated run configuration from parsed flags (throws UsageError). */
export function runConfig(values, env = process.env, { preloaded = 0 } = {}) {
  if (!values.data) throw new UsageError('--data FILE is required')
  const names = values.scorer || []
  const gateNames = values.gate || []
  const modules = (values.scorers || []).map((p) => resolve(p))
  if (names.length === 0 && gateNames.length === 0 && modules.length === 0 && preloaded === 0) throw new UsageError('at least one --scorer NAME is required (or --scorers MODULE)')
  const scorers = []
  // results are keyed by id: a check written as a call (`calledTool(get_weather)`) has the
  // library's id (`check-called-tool`) unless its options give one (`calledTool(x, {id: "x"})`)
  const keyOf = (e) => (e.check ? checkId(e.check) : e.spec.id)
  const sameAs = (a, b) => keyOf(a) === keyOf(b)
  const twice = (flag, n, entry) =>
    new UsageError(
      entry.check
        ? `${flag} ${n}: another --scorer or --gate has the id "${keyOf(entry)}" (results are keyed by id): give this check its own, e.g. ${entry.check.text.replace(/\)\s*$/, `${entry.check.args.length ? ', ' : ''}{id: "my-${entry.check.spec.factory}"})`)}`
        : `${flag} ${n}: given twice`,
    )
  for (const n of names) {
    const check = isCheckExpression(n) ? parseCheckExpression(n, '--scorer') : undefined
    const entry = { spec: check ? check.spec : resolveScorer(n), check, threshold: undefined, options: {} }
    if (scorers.some((s) => sameAs(s, entry))) throw twice('--scorer', n, entry)
    scorers.push(entry)
  }
  const gates = []
  for (const n of gateNames) {
    const check = isCheckExpression(n) ? parseCheckExpression(n, '--gate') : undefined
    const entry = { spec: check ? check.spec : resolveScorer(n, '--gate'), check, options: {} }
    if (scorers.some((s) => sameAs(s, entry)) || gates.some((g) => sameAs(g, entry))) {
      if (entry.check) throw twice('--gate', n, entry)
      throw new UsageError(`--gate ${n}: this scorer is already a --scorer or a --gate (results are keyed by scorer id)`)
    }
    gates.push(entry)
  }
  for (const t of values.threshold || []) {
    const byText = scorers.find((x) => x.check && t.startsWith(`${x.check.text}=`))
    const { spec, threshold } = byText ? { spec: byText.spec, threshold: parseThreshold(`${byText.spec.id}${t.slice(byText.check.text.length)}`).threshold } : parseThreshold(t)
    const s = byText ?? scorers.find((x) => x.spec === spec && !x.check) ?? scorers.find((x) => x.check && keyOf(x) === spec.id)
    if (!s) throw new UsageError(`--threshold ${t}: ${spec.id} is not one of the --scorer scorers`)
    s.threshold = threshold
  }
  for (const o of values.option || []) {
    const { target, path, value } = parseOption(o)
    const targets = [...scorers, ...gates].filter((s) => target === '*' || s.spec === target)
    if (!targets.length) throw new UsageError(`--option ${o}: ${target.id} is not a --scorer or --gate of this run`)
    for (const s of targets) setPath(s.options, path, value)
  }
  const modelId = values.model || env.OXEVAL_MODEL
  // code scorers and checks need no judge; a module's or a config's scorers bring their own
  const judged = [...scorers, ...gates].some((s) => s.spec && s.spec.kind !== 'code')
  if (!modelId && judged) throw new UsageError('--model PROVIDER/MODEL is required (or set OXEVAL_MODEL)')
  if (modelId && !modelId.includes('/')) throw new UsageError(`--model must be 'provider/model' (e.g. openai/gpt-4o-mini); got "${modelId}"`)
  let model = modelId
  if (modelId && (values['model-url'] !== undefined || values['api-key-env'] !== undefined)) {
    model = { id: modelId }
    if (values['model-url'] !== undefined) {
      try {
        new URL(values['model-url'])
      } catch {
        // shown without what could be a secret: userinfo, a query, a fragment
        const shown = String(values['model-url']).replace(/\/\/[^/?#]*@/, '//').replace(/[?#].*$/s, '')
        throw new UsageError(`--model-url is not a URL: "${shown}${shown.length < String(values['model-url']).length ? '…' : ''}"`)
      }
      model.url = values['model-url']
    }
    if (values['api-key-env'] !== undefined) {
      const key = env[values['api-key-env']]
      if (!key) throw new UsageError(`--api-key-env ${values['api-key-env']}: that environment variable is not set`)
      model.apiKey = key
    }
  }
  const mode = values['cache-mode']
  if (mode !== undefined && !['auto', 'record', 'replay'].includes(mode)) throw new UsageError(`--cache-mode must be auto, record or replay; got "${mode}"`)
  if (mode !== undefined && values.cache === undefined) throw new UsageError('--cache-mode needs --cache DIR')
  const cache = values.cache !== undefined ? { dir: resolve(values.cache), mode: mode || 'auto' } : undefined
  if (values.detach && !values.batch) throw new UsageError('--detach needs --batch')
  if (values['batch-poll-ms'] !== undefined && !values.batch) throw new UsageError('--batch-poll-ms needs --batch')
  if (values['batch-max-items'] !== undefined && !values.batch) throw new UsageError('--batch-max-items needs --batch')
  if (values.batch && !cache) throw new UsageError('--batch needs --cache DIR: every submitted batch is recorded there (a rerun resumes instead of paying again)')
  const maxItems = values.batch ? positiveInt('batch-max-items', values['batch-max-items'], 10_000_000) : undefined
  const batch = values.batch ? { pollMs: positiveInt('batch-poll-ms', values['batch-poll-ms'], 86_400_000) ?? 30_000, detach: Boolean(values.detach), ...(maxItems !== undefined ? { maxItems } : {}) } : undefined
  const prices = { in: price('price-in', values['price-in']), out: price('price-out', values['price-out']) }
  return {
    data: values.data,
    scorers,
    gates,
    modules,
    model,
    cache,
    batch,
    concurrency: positiveInt('concurrency', values.concurrency, 10_000),
    trials: positiveInt('trials', values.trials, 1000) ?? 1,
    shard: values.shard !== undefined ? parseShard(values.shard) : null,
    out: values.out,
    outPrompts: promptMode(values['out-prompts']),
    html: values.html,
    junit: values.junit,
    prices: prices.in === undefined && prices.out === undefined ? undefined : prices,
    worst: values.worst !== undefined ? Number(values.worst) : 5,
    maxErrors: values['max-errors'] !== undefined ? nonNegativeInt('max-errors', values['max-errors']) : 0,
    maxCost: values['max-cost'] !== undefined ? dollarsOver0('max-cost', values['max-cost']) : undefined,
    minCoverage: values['min-coverage'] !== undefined ? share('min-coverage', values['min-coverage']) : undefined,
    progress: !values['no-progress'],
    baseRuns: values['base-runs'] !== undefined ? (values.base !== undefined ? baseRunsOption(values['base-runs']) : usage('--base-runs needs --base (the baseline whose runs are pooled)')) : 1,
    base: values.base !== undefined ? (values.out !== undefined || !values['no-store'] ? values.base : usage('--base needs --out FILE or the results store (the two runs are compared)')) : undefined,
  }
}

function usage(message) {
  throw new UsageError(message)
}

/** Loads the library (the native addon) only when a command needs it. */
function loadOxeval() {
  const oxeval = require('../index.js')
  if (typeof oxeval.runEvals !== 'function' || typeof oxeval.summarizeItems !== 'function') {
    throw new Error('this build of oxeval has no runEvals/summarizeItems')
  }
  return oxeval
}

const isScorer = (s) => s !== null && typeof s === 'object' && typeof s.id === 'string' && typeof s.run === 'function'

/**
 * The scorers a `--scorers` module exports (default and named): scorer objects (custom
 * scorers, built-in scorers, Mastra scorers), `{ scorer, threshold }`, or arrays of them.
 * TypeScript loads through the loader the user runs node with (e.g. `--import tsx`).
 */
async function loadScorerModules(paths) {
  const entries = []
  for (const path of paths) {
    let mod
    try {
      mod = await import(pathToFileURL(path).href)
    } catch (e) {
      const ts = /\.[cm]?tsx?$/.test(path) && e && (e.code === 'ERR_UNKNOWN_FILE_EXTENSION' || e.code === 'ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING')
      if (ts) throw new UsageError(`--scorers ${path}: node cannot load TypeScript by itself here; run with a loader, e.g. NODE_OPTIONS='--import tsx' npx oxeval run …, or pass the compiled .mjs`)
      throw new UsageError(`--scorers ${path}: the module could not be loaded: ${e && e.message ? e.message.split('\n')[0] : e}`)
    }
    const found = []
    const take = (v, name) => {
      if (Array.isArray(v)) return v.forEach((x, i) => take(x, `${name}[${i}]`))
      if (isScorer(v)) found.push({ scorer: v })
      else if (v !== null && typeof v === 'object' && isScorer(v.scorer) && 'threshold' in v) found.push({ scorer: v.scorer, threshold: v.threshold })
    }
    const keys = Object.keys(mod).sort((a, b) => (a === 'default' ? -1 : b === 'default' ? 1 : 0))
    for (const k of keys) take(mod[k], k)
    const unique = found.filter((e, i) => found.findIndex((x) => x.scorer === e.scorer) === i)
    if (!unique.length) throw new UsageError(`--scorers ${path}: the module exports no scorer (export scorer objects, { scorer, threshold }, or arrays of them)`)
    for (const e of unique) entries.push(e)
  }
  return entries
}

/**
 * A target whose outputs are kept in `dir`, one file per item (named by the sha-256 of the
 * item's id, else of its input or inputs): a rerun reads them instead of calling the target
 * again, so rescoring does not rerun the agent. A multi-turn item is kept and replayed whole
 * (agents.mjs conversationCache). An Agent's output is kept as runEvals reads it (its scorer
 * data's messages: tool calls included). Delete the folder (or an item's file) to run it again.
 */
function cachedTarget(target, dir, targetOptions) {
  mkdirSync(dir, { recursive: true })
  const agentIO = require('../lib/conversation.js')
  const call =
    typeof target === 'function'
      ? target
      : async (input, ctx) => {
          const memory = ctx.turn ? { ...(targetOptions?.memory || {}), thread: ctx.threadId, resource: ctx.resourceId } : undefined
          return agentIO.agentOutput(await target.generate(input, agentIO.agentCallOptions(targetOptions, ctx.item, ctx.signal, memory))).output
        }
  const fileOf = (item, input) => {
    const what = item && item.id !== undefined ? `id:${item.id}` : item && item.turns ? `turns:${JSON.stringify(item.turns.map((t) => t.input))}` : item && item.inputs ? `inputs:${JSON.stringify(item.inputs)}` : `input:${JSON.stringify(input)}`
    return join(dir, `${createHash('sha256').update(what).digest('hex')}.json`)
  }
  const cache = conversationCache({
    read: (item, input) => {
      try {
        return JSON.parse(readFileSync(fileOf(item, input), 'utf8'))
      } catch {
        return null
      }
    },
    write: (item, input, kept) => writeFileSync(fileOf(item, input), JSON.stringify(kept)),
  })
  return (input, ctx) => cache(input, ctx, call)
}

/** Builds a scorer from its registry entry (a factory TypeError is a usage error). */
function createScorer(oxeval, spec, cfg, options) {
  const opts = spec.kind === 'code' ? { ...options } : { ...options, model: options.model ?? cfg.model }
  if (cfg.cache && opts.cache === undefined) opts.cache = cfg.cache
  try {
    return oxeval[spec.factory](opts)
  } catch (e) {
    throw new UsageError(`${spec.id}: ${e.message}`)
  }
}

/** What `--detach` prints when batches are still running. */
function detachText(batch) {
  const lines = batch.pending.map((b) => `  ${b.provider} ${b.id} (${b.status})`)
  return `oxeval: detached: ${batch.pending.length} batch${batch.pending.length === 1 ? '' : 'es'} still running (recorded in the --cache directory's batches/):\n${lines.join('\n')}\nRun the same command again (with the same --cache) to take what is ready and continue; oxeval batch status --cache DIR shows them.\n`
}

/**
 * Under `oxeval watch` (OXEVAL_WATCH_PATHS names a file): the paths this run writes, absolute,
 * so that watch does not take the run's own writes for changes. Best effort: watch also
 * resolves the flags itself.
 */
function watchedPaths(file, cfg, values) {
  const paths = [cfg.cache && cfg.cache.dir, values['cache-targets'], cfg.out, cfg.html, cfg.junit, '.oxeval'].filter((p) => typeof p === 'string').map((p) => resolve(p))
  try {
    writeFileSync(file, JSON.stringify(paths))
  } catch {
    // watch then knows only the flags' paths
  }
}

export async function run(argv, io = { stdout: process.stdout, stderr: process.stderr }) {
  let { values } = parseArgs({ args: argv, options: RUN_OPTIONS, allowPositionals: false, strict: true })
  if (values.help) return { help: true }
  // oxeval.config.*: read when named (--config) or when no flag says what to run
  let extra = { scorers: [], gates: [] }
  const configPath = values.config !== undefined || (!values.data && !values.scorer && !values.scorers && !values.gate) ? findConfig(values.config) : null
  if (configPath) {
    const c = configValues(await loadConfig(configPath), configPath)
    values = mergeValues(c.values, values)
    extra = c.extra
  }
  try {
    return await runResolved(values, extra, io, configPath)
  } finally {
    // a config's inline data: its temp copy goes with the run, whatever the end
    if (extra.tempDir) rmSync(extra.tempDir, { recursive: true, force: true })
  }
}

/** The run once its flags and config are resolved. */
async function runResolved(values, extra, io, configPath) {
  const cfg = runConfig(values, process.env, { preloaded: extra.scorers.length + extra.gates.length })
  if (extra.apiKey !== undefined && cfg.model) cfg.model = typeof cfg.model === 'string' ? { id: cfg.model, apiKey: extra.apiKey } : { ...cfg.model, apiKey: extra.apiKey }
  const say = sayer(io.stderr)
  checkDistinct([['--data', cfg.data], ['--out', cfg.out], ['--html', cfg.html], ['--junit', cfg.junit]])
  checkWritable('--html', cfg.html)
  checkWritable('--junit', cfg.junit)
  if (process.env.OXEVAL_WATCH_PATHS) watchedPaths(process.env.OXEVAL_WATCH_PATHS, cfg, values)

  // data, first pass (streamed): row counts, the shard's bad rows, the file's fingerprint. Every
  // row has its global index; a bad row is reported here and reaches runEvals as an invalid item
  const scan = await scanDataset(cfg.data, cfg.shard)
  if (scan.rows === 0 || scan.valid === 0) throw new UsageError(`--data ${cfg.data}: no valid items${scan.rows ? ` (${scan.rows} bad rows)` : ''}`)
  const skipped = scan.bad
  for (const s of skipped) say(`oxeval: ${basename(cfg.data)}:${s.line ?? '?'}: skipped row ${s.index}: ${s.message}`)
  if (cfg.shard && scan.shardRows === 0) say(`oxeval: shard ${cfg.shard.index}/${cfg.shard.count} has no items`)

  const oxeval = loadOxeval()
  const addon = addonInfo()
  if (cfg.progress) say(`oxeval ${VERSION}: ${addonLine(addon)}`)
  const slow = debugWarning(addon, scan.shardRows)
  if (slow) say(slow)
  const scorerEntries = cfg.scorers.map((s) => {
    const scorer = s.check ? createCheck(oxeval, s.check, '--scorer') : createScorer(oxeval, s.spec, cfg, s.options)
    return s.threshold !== undefined ? { scorer, threshold: s.threshold } : scorer
  })
  // a config's categorized scorers ({ agent, trajectory }) keep their category (flags' are agent's)
  const categories = new Map()
  for (const e of [...extra.scorers, ...(await loadScorerModules(cfg.modules))]) {
    if (scorerEntries.some((x) => (x.scorer || x).id === e.scorer.id)) throw new UsageError(`--scorers: two scorers have the id "${e.scorer.id}" (results are keyed by id)`)
    scorerEntries.push(e.threshold !== undefined ? { scorer: e.scorer, threshold: e.threshold } : e.scorer)
    if (e.category) categories.set(e.scorer.id, e.category)
  }
  const gateScorers = [...cfg.gates.map((g) => (g.check ? createCheck(oxeval, g.check, '--gate') : createScorer(oxeval, g.spec, cfg, g.options))), ...extra.gates.map((g) => g.scorer)]
  const scorerList = scorerEntries.map((e) => {
    const id = (e.scorer || e).id
    const entry = e.scorer && e.threshold !== undefined ? { id, threshold: e.threshold } : { id }
    if (categories.size) entry.category = categories.get(id) ?? 'agent'
    return entry
  })
  // the data's per-turn assertions, by name: built once (as the flags' scorers and checks are)
  const turnScorerByName = turnScorers(scan.turnNames, (name) => {
    const known = [...scorerEntries.map((e) => e.scorer || e), ...gateScorers].find((x) => x.id === name)
    if (known) return known
    if (isCheckExpression(name)) return createCheck(oxeval, parseCheckExpression(name, 'a turn of --data'), 'a turn of --data')
    return createScorer(oxeval, resolveScorer(name, 'a turn of --data'), cfg, {})
  })
  const gateIds = gateScorers.map((g) => g.id)
  if (values.estimate) {
    const feed = shardItems(cfg.data, cfg.shard, { fp: newFingerprint(), onItem: (item) => applyTurnScorers(item, turnScorerByName) })
    const prices = cfg.prices || extra.modelPrices ? { ...extra.modelPrices, ...cfg.prices } : undefined
    const scorers = categories.size ? scorersOption(scorerEntries.map((e) => ({ ...(e.scorer ? e : { scorer: e }), category: categories.get((e.scorer || e).id) ?? 'agent' }))) : scorerEntries
    return runEstimate(oxeval, { data: feed, scorers, gates: gateScorers, trials: cfg.trials, ...(prices ? { prices } : {}), ...(extra.target ? { target: extra.target } : {}) }, io)
  }
  // which way each scorer is better and its range (worst items, intervals, merge)
  const scorerInfo = Object.fromEntries(
    [...scorerEntries.map((e) => e.scorer || e), ...gateScorers].map((sc) => [sc.id, { direction: sc.direction === 'lower' ? 'lower' : 'higher', scale: typeof sc.scale === 'number' ? sc.scale : 1 }]),
  )
  const policy = { maxErrors: cfg.maxErrors, minCoverage: cfg.minCoverage ?? null }

  const header = {
    type: 'run',
    version: VERSION,
    scorers: scorerList,
    gates: gateIds,
    trials: cfg.trials,
    shard: cfg.shard,
    scorerInfo,
    // what merge applies to the whole run
    policy,
    totalItems: scan.shardRows,
    model: publicModel(cfg.model),
    data: basename(cfg.data),
    // what `oxeval merge` compares across shards: the file's sha-256, size and row count
    dataset: scan.dataset,
    startedAt: new Date().toISOString(),
    prompts: cfg.outPrompts,
  }
  // the results store: the run is recorded as its items finish (lib/store.js, the core's store)
  const store = storeSpec(values, { configPath })
  const judgeModels = Object.fromEntries([...scorerEntries.map((e) => e.scorer || e), ...gateScorers].map((sc) => [sc.id, judgeModelOf(sc) ?? (header.model && (header.model.id || header.model)) ?? null]))
  const base = cfg.base ? poolBaseline(cfg.base, store, { dataset: header.dataset && header.dataset.sha256, k: cfg.baseRuns }) : null
  const recorder = store ? startCliRecording(store, header, values, { judgeModels, cwd: configPath ? dirname(configPath) : process.cwd() }) : null
  let storeFailed = false
  if (recorder && recorder.error) {
    storeFailed = true
    say(storeFailureText(store, recorder.error))
  }
  const writer = cfg.out ? new JsonlWriter(cfg.out, '--out', { onReplace: (why, rec) => say(`oxeval: --out: item ${rec && rec.index}: ${why}; written without it (scores and reasons kept)`) }) : null
  if (writer) await writer.write(header)

  // what --html/--junit need of each item, in memory: score, reason, errors (reportItem); the
  // page's full copy (step results, prompts) waits on disk in a spool until the report is written
  const keep = cfg.html || cfg.junit ? [] : null
  const spool = cfg.html ? new ItemSpool() : null
  const worst = new WorstItems(scorerViews(scorerList.map((s) => ({ ...s, ...scorerInfo[s.id] })), gateIds, null), Number.isInteger(cfg.worst) && cfg.worst >= 0 ? cfg.worst : 5)
  const progress = new Progress(scan.shardRows, { stream: io.stderr, enabled: cfg.progress })
  const controller = new AbortController()
  let interrupted = null
  const onSignal = (sig) => {
    if (interrupted) {
      say(`oxeval: ${sig} again: exiting without writing results`)
      process.exit(sig === 'SIGINT' ? 130 : 143)
    }
    interrupted = sig
    say(`oxeval: ${sig}: stopping; finished items are kept (press Ctrl-C again to exit at once)`)
    progress.stop()
    controller.abort(new Error(`interrupted (${sig})`))
  }
  const onInt = () => onSignal('SIGINT')
  const onTerm = () => onSignal('SIGTERM')
  process.on('SIGINT', onInt)
  process.on('SIGTERM', onTerm)

  // data, second pass: the shard's items streamed to runEvals, each object mapped to its row index
  const rowIndex = new WeakMap()
  const again = newFingerprint()
  const feed = shardItems(cfg.data, cfg.shard, { fp: again, onItem: (item, row) => rowIndex.set(applyTurnScorers(item, turnScorerByName), row.index) })
  let result
  try {
    result = await oxeval.runEvals({
      data: feed,
      scorers: categories.size ? scorersOption(scorerEntries.map((e) => ({ ...(e.scorer ? e : { scorer: e }), category: categories.get((e.scorer || e).id) ?? 'agent' }))) : scorerEntries,
      gates: gateScorers,
      // a config's target makes the outputs of items that have none (kept in --cache-targets);
      // an Agent target also runs the multi-turn items (one thread per conversation)
      ...(extra.target
        ? {
            target: values['cache-targets'] ? cachedTarget(extra.target, resolve(values['cache-targets']), extra.targetOptions) : extra.target,
            targetTimeoutMs: extra.targetTimeoutMs,
            ...(extra.targetOptions !== undefined && !values['cache-targets'] ? { targetOptions: extra.targetOptions } : {}),
          }
        : {}),
      concurrency: cfg.concurrency,
      maxErrors: cfg.maxErrors,
      minCoverage: cfg.minCoverage,
      // the budget and the prices it is reckoned at (docs/cost.md)
      ...(cfg.maxCost !== undefined ? { maxCost: cfg.maxCost } : {}),
      ...(cfg.prices || extra.modelPrices ? { prices: { ...extra.modelPrices, ...cfg.prices } } : {}),
      // a shard decides only what a part can; merge decides the rest
      partial: Boolean(cfg.shard),
      trials: cfg.trials,
      keepItems: false,
      signal: controller.signal,
      ...(cfg.batch ? { batch: { ...cfg.batch, ...(extra.batchMaxRequests !== undefined ? { maxRequests: extra.batchMaxRequests } : {}), onProgress: (p) => progress.batch(p) } } : {}),
      // the cache names an item by its id, else by its row index in the file (not the shard's)
      itemId: (item) => (item.id !== undefined ? String(item.id) : `#${rowIndex.get(item)}`),
      onItemComplete: async (r) => {
        // runEvals counts the items it was given; outputs use the row's index in the file.
        // Mastra's onItemComplete extras (item, targetResult, scorerResults) repeat the record.
        const { item: _raw, targetResult: _target, scorerResults: _results, ...rest } = r
        const item = { ...rest, index: rowIndex.get(r.item) }
        // the retrieved passages of the item (the report's item detail shows them)
        if (r.item && Array.isArray(r.item.context) && item.context === undefined) item.context = r.item.context
        const failed = Boolean(item.targetError) || Object.keys(item.errors || {}).length > 0
        progress.tick(failed)
        worst.add(item)
        if (keep) keep.push(reportItem(item))
        if (spool) spool.add(item)
        if (recorder) recorder.item(item)
        if (writer) await writer.write({ type: 'item', ...encodeItem(item, cfg.outPrompts) })
      },
    })
  } finally {
    await feed.return()
    process.off('SIGINT', onInt)
    process.off('SIGTERM', onTerm)
    progress.stop()
  }
  const { items: _items, ...summary } = result
  // --detach with batches still running: the run goes on in a later `oxeval run` (same --cache)
  const detached = cfg.batch && cfg.batch.detach && !interrupted && result.batch && result.batch.pending.length > 0
  if (detached) {
    summary.aborted = true
    summary.detached = { pending: result.batch.pending }
    if (recorder && !recorder.error) recorder.finish(summary)
    if (writer) {
      await writer.write({ type: 'summary', ...summary })
      await writer.close()
    }
    if (spool) spool.close()
    io.stdout.write(detachText(result.batch))
    return { code: 0 }
  }
  if (again.done && again.sha256 !== scan.dataset.sha256) say(`oxeval: warning: --data ${cfg.data} changed during the run (its sha-256 differs from the header's)`)
  if (interrupted) summary.aborted = true
  if (skipped.length) summary.skipped = skipped
  // a file that cannot be written (disk full, EFBIG) costs neither the summary nor the other files
  let writeFailed = false
  if (writer) {
    await writer.write({ type: 'summary', ...summary })
    const e = await writer.close()
    if (e) {
      writeFailed = true
      say(`oxeval: ${writeErrorText('--out', cfg.out, e)}`)
    }
  }
  if (recorder && !recorder.error) {
    const done = recorder.finish(summary)
    if (done.error) {
      storeFailed = true
      say(storeFailureText(store, done.error))
    }
  }
  const report = { header, summary, items: keep || [], prices: cfg.prices, spool }
  if (await writeReports({ html: cfg.html, junit: cfg.junit }, report, say)) writeFailed = true
  if (spool) spool.close()
  io.stdout.write(formatSummary({ run: summary, scorers: scorerList, gates: gateIds, worst, skipped: skipped.length, prices: cfg.prices, shard: cfg.shard }))
  if (interrupted) return { code: interrupted === 'SIGINT' ? 130 : 143 }
  if (writeFailed || storeFailed) return { code: 2 }
  if (cfg.base) {
    // what changed since the base run (oxeval compare BASE OUT); the exit status stays the run's
    const { compareText } = await import('./compare.mjs')
    const head = cfg.out ?? (recorder && recorder.runId ? exportRun(store, recorder.runId) : usage('--base needs --out FILE or the results store'))
    io.stdout.write(`\n${await compareText(poolFiles(base, store), head, base)}`)
  }
  return { code: verdictExitCode(summary, { shard: cfg.shard }) }
}
