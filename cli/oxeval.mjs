#!/usr/bin/env node
// The `oxeval` command (package.json `bin`): `oxeval run …`, `oxeval merge …`.
import { UsageError } from './errors.mjs'
import { RUN_HELP, VERSION, run } from './run.mjs'
import { MERGE_HELP, merge } from './merge.mjs'
import { COMPARE_HELP, compare } from './compare.mjs'
import { INIT_HELP, init } from './init.mjs'
import { VIEW_HELP, view } from './view.mjs'
import { WATCH_HELP, watch } from './watch.mjs'
import { BATCH_HELP, batch } from './batch.mjs'
import { HISTORY_HELP, history, runs, storeCommand } from './history.mjs'
import { scorerNamesHelp } from './scorers.mjs'
import { addonInfo, addonLine } from './addon.mjs'
import { ignoreClosedPipe, safeText } from './terminal.mjs'

// a reader that goes away (`oxeval run … | head -1`) must not cost the run: EPIPE is ignored
ignoreClosedPipe(process.stdout)
ignoreClosedPipe(process.stderr)

const HELP = `oxeval ${VERSION}: LLM-as-a-judge evals from the command line

Usage:
  oxeval run --data items.jsonl --scorer answer-relevancy --model openai/gpt-4o-mini [options]
  oxeval merge out-*.jsonl [--out merged.jsonl] [--html report.html] [--junit report.xml]
  oxeval compare base.jsonl head.jsonl [--fail-on-regression] [--format text|json|markdown]
  oxeval init [--yes] [--force]
  oxeval view [DIR] [--port N]
  oxeval watch [run options]
  oxeval batch status|cancel --cache DIR [--model …]
  oxeval history [--scorer ID] [--branch B] [--tag T] [--last N] [--item ID | --flaky]
  oxeval runs show RUN | oxeval runs export RUN --out FILE.jsonl
  oxeval store import FILE.jsonl… | oxeval store prune --keep N | --older-than 30d
  oxeval <command> --help
  oxeval --version

Commands:
  run     score a dataset (.jsonl, .json, .csv) with one or more scorers; summary on stdout,
          progress on stderr; --out JSONL, --html report, --junit XML; --shard K/N, --cache DIR
  merge   combine the --out files of sharded runs into one result
  init    write a config, a tiny dataset and a target stub that run offline
  watch   run again whenever the config, a dataset or a scorer module changes
  view    a local web viewer over a folder of --out files (runs, reports, comparisons)
  compare what changed between two runs (--out files): per scorer a paired test, the items
          that got worse; --fail-on-regression exits 1 on a significant regression
  history the runs kept in the results store (.oxeval/store.db): per-scorer means, intervals and
          trend lines; one item's history (--item); flaky items (--flaky)
  runs    one stored run: show, or export it as an --out file
  store   import --out files into the results store; prune old runs
  batch   the provider batches of oxeval run --batch recorded in a --cache directory: status,
          cancel

Scorers:
${scorerNamesHelp()}

Exit status: 0 passed, 1 a threshold or gate failed, 2 usage or data error or an output that
could not be written, 130 interrupted.
`

async function main(argv) {
  const [cmd, ...rest] = argv
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    const topic = cmd === 'help' ? rest[0] : undefined
    if (topic === 'run') process.stdout.write(`${RUN_HELP}${scorerNamesHelp()}\n`)
    else if (topic === 'merge') process.stdout.write(MERGE_HELP)
    else if (topic === 'compare') process.stdout.write(COMPARE_HELP)
    else if (topic === 'init') process.stdout.write(INIT_HELP)
    else if (topic === 'view') process.stdout.write(VIEW_HELP)
    else if (topic === 'watch') process.stdout.write(WATCH_HELP)
    else if (topic === 'batch') process.stdout.write(BATCH_HELP)
    else if (['history', 'runs', 'store'].includes(topic)) process.stdout.write(HISTORY_HELP)
    else process.stdout.write(HELP)
    return cmd === undefined ? 2 : 0
  }
  if (cmd === '--version' || cmd === '-v' || cmd === '-V') {
    // the version alone on stdout (for scripts); which addon loads, on stderr
    process.stdout.write(`${VERSION}\n`)
    let line
    try {
      line = addonLine(addonInfo())
    } catch (e) {
      line = `the native addon did not load: ${String((e && e.message) || e).split('\n')[0]}`
    }
    process.stderr.write(`oxeval: ${safeText(line)}\n`)
    return 0
  }
  const commands = { run, merge, compare, init, view, watch, batch, history, runs, store: storeCommand }
  if (!Object.hasOwn(commands, cmd)) throw new UsageError(`unknown command "${cmd}" (commands: run, merge, compare, init, view, watch, batch, history, runs, store; see oxeval --help)`)
  const r = await commands[cmd](rest)
  if (r.help) {
    process.stdout.write(cmd === 'run' ? `${RUN_HELP}${scorerNamesHelp()}\n` : cmd === 'compare' ? COMPARE_HELP : cmd === 'init' ? INIT_HELP : cmd === 'view' ? VIEW_HELP : cmd === 'watch' ? WATCH_HELP : cmd === 'batch' ? BATCH_HELP : ['history', 'runs', 'store'].includes(cmd) ? HISTORY_HELP : MERGE_HELP)
    return 0
  }
  return r.code
}

let code
try {
  code = await main(process.argv.slice(2))
} catch (e) {
  // usage errors, node:util parseArgs errors and oxeval's own option errors (a TypeError with a code): the message only
  if (e instanceof UsageError || (e && typeof e.code === 'string' && (e.code.startsWith('ERR_PARSE_ARGS') || e.code.startsWith('OXEVAL_')))) {
    process.stderr.write(`oxeval: ${safeText(e.message, { newlines: true })}\n`)
    code = 2
  } else {
    process.stderr.write(`oxeval: error: ${safeText(e && e.stack ? e.stack : String(e), { newlines: true })}\n`)
    code = 2
  }
}
process.exit(code)
