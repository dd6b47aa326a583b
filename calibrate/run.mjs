#!/usr/bin/env node
// `npm run calibrate`: the boundary set (calibrate/cases/*.jsonl) through oxeval's prompts and
// through the anchor itself (@mastra/evals 1.10.2 for Mastra's scorers; ragas 0.4.3 through
// Python for the Ragas metrics, when installed) on ONE pinned model. Per case both verdicts;
// per scorer the agreement rate and Cohen's κ between oxeval and the anchor, and each one's
// accuracy against the labels (the verdict the anchor's own rule gives).
//
// Needs a live key (OPENAI_API_KEY for the default model); without one it says so and exits 0.
// Never part of `npm test` (its offline part is: calibrate/cases.mjs, __test__/judge-rules.spec.ts).
//
//   npm run calibrate [-- --model openai/gpt-4o-mini-2024-07-18] [--only faithfulness] [--no-anchor]
//                     [--concurrency 4] [--out calibrate/last-run.json]
//                     [--base-url http://127.0.0.1:PORT/v1]   (an OpenAI-compatible server for both
//                     sides, e.g. oxeval/testing's scripted judge: checks the plumbing, no figures)
//                     [--python /path/to/venv/bin/python]      (the Python with ragas 0.4.3)
import { spawnSync, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { checkCases, loadCases, verdictOf } from './cases.mjs'

const require = createRequire(import.meta.url)
const oxeval = require('../index.js')

/** The pinned default: a dated snapshot, so a rerun judges with the same weights. */
export const DEFAULT_MODEL = 'openai/gpt-4o-mini-2024-07-18'
const KEY_ENV = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY', google: 'GOOGLE_GENERATIVE_AI_API_KEY' }

function args(argv) {
  const o = { model: DEFAULT_MODEL, only: null, anchor: true, concurrency: 4, out: fileURLToPath(new URL('./last-run.json', import.meta.url)), baseUrl: null, python: 'python3' }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const next = () => {
      if (i + 1 >= argv.length) throw new TypeError(`${a} needs a value`)
      return argv[++i]
    }
    if (a === '--model') o.model = next()
    else if (a === '--only') o.only = next()
    else if (a === '--no-anchor') o.anchor = false
    else if (a === '--concurrency') o.concurrency = Math.max(1, Number.parseInt(next(), 10) || 1)
    else if (a === '--out') o.out = next()
    else if (a === '--base-url') o.baseUrl = next()
    else if (a === '--python') o.python = next()
    else throw new TypeError(`unknown argument ${a} (see the header of calibrate/run.mjs)`)
  }
  return o
}

async function pool(items, n, fn) {
  const out = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++
        out[i] = await fn(items[i], i)
      }
    }),
  )
  return out
}

const errText = (e) => `${e && e.code ? `${e.code}: ` : ''}${e && e.message ? e.message : String(e)}`.slice(0, 300)

async function oxevalScore(c, model) {
  try {
    const r = await oxeval[c.scorer]({ ...(c.options ?? {}), model }).run({ ...c.run })
    return { score: r.score }
  } catch (e) {
    return { error: errText(e) }
  }
}

async function mastraScores(cases, model, concurrency) {
  const mastra = await import('@mastra/evals/scorers/prebuilt')
  return pool(cases, concurrency, async (c) => {
    try {
      const factory = mastra[c.scorer]
      if (typeof factory !== 'function') return { error: `@mastra/evals has no ${c.scorer}` }
      // Mastra reads its options under `options`, but some factories take theirs top-level
      // (tool call accuracy's `availableTools`, the rubric's `criteria`): both are given
      const r = await factory({ model, ...(c.options ?? {}), options: c.options }).run({ ...c.run })
      return { score: r.score }
    } catch (e) {
      return { error: errText(e) }
    }
  })
}

/** ragas through Python (calibrate/ragas_anchor.py), or why not. */
function ragasAvailable(python) {
  const p = spawnSync(python, ['-c', 'import ragas, sys; sys.stdout.write(ragas.__version__)'], { encoding: 'utf8' })
  return p.status === 0 ? { version: p.stdout.trim() } : { why: `${python} cannot import ragas (pip install ragas==0.4.3 langchain-community==0.4.1, or --python PATH)` }
}

function ragasScores(cases, model, o) {
  return new Promise((resolve) => {
    const script = fileURLToPath(new URL('./ragas_anchor.py', import.meta.url))
    // the OpenAI client ragas uses reads its endpoint and key from the environment
    const env = o.baseUrl ? { ...process.env, OPENAI_BASE_URL: o.baseUrl, OPENAI_API_KEY: process.env.OPENAI_API_KEY || 'local' } : process.env
    const child = spawn(o.python, [script, model.replace(/^openai\//, '')], { stdio: ['pipe', 'pipe', 'inherit'], env })
    let text = ''
    child.stdout.on('data', (d) => (text += d))
    child.on('close', () => {
      const byId = new Map()
      for (const line of text.split('\n')) {
        if (!line.trim()) continue
        try {
          const r = JSON.parse(line)
          byId.set(r.id, r)
        } catch {}
      }
      resolve(cases.map((c) => byId.get(c.id) ?? { error: 'no answer from ragas_anchor.py' }))
    })
    child.stdin.end(cases.map((c) => JSON.stringify(c)).join('\n'))
  })
}

/** Cohen's κ and the rate of the same verdict between two verdict lists, through oxeval's core (agreement.rs). */
function kappaOf(a, b) {
  const items = []
  a.forEach((v, i) => {
    if (v === null || b[i] === null) return
    items.push({ index: items.length, input: '', output: '', results: { x: { score: v === 'pass' ? 1 : 0 } }, errors: {}, expected: { x: b[i] } })
  })
  if (items.length === 0) return { n: 0, rate: null, kappa: null, why: 'no case has both verdicts' }
  const s = oxeval.summarizeItems({ items, scorers: [{ id: 'x', threshold: 0.5 }] })
  const ag = s.agreement.x
  return { n: items.length, rate: ag.observedAgreement, kappa: ag.kappa, why: ag.kappaReason }
}

const pct = (x) => (typeof x === 'number' ? `${(x * 100).toFixed(0)}%` : 'n/a')
const k2 = (x) => (typeof x === 'number' ? x.toFixed(2) : 'n/a')

async function main() {
  const o = args(process.argv.slice(2))
  let cases = loadCases()
  const problems = checkCases(cases, oxeval)
  if (problems.length) {
    console.error(`calibrate: the case set has problems:\n  ${problems.join('\n  ')}`)
    process.exit(2)
  }
  if (o.only) cases = cases.filter((c) => c.file.replace(/\.jsonl$/, '') === o.only || c.scorer === o.only)
  const provider = o.model.split('/')[0]
  const keyEnv = KEY_ENV[provider]
  const key = o.baseUrl ? 'local' : keyEnv && process.env[keyEnv]
  if (!key) {
    console.log(
      `calibrate: skipped: no ${keyEnv ?? 'API key'} in the environment. The calibration run calls the live judge model ${o.model} through oxeval and the anchors (@mastra/evals; ragas via Python); set ${keyEnv ?? 'the key'} and run \`npm run calibrate\` again. ${cases.length} cases loaded and routed.`,
    )
    return
  }
  console.log(`calibrate: ${cases.length} cases, model ${o.model}${o.baseUrl ? ` at ${o.baseUrl}` : ''}, ${new Date().toISOString()}`)
  // the same model for both sides: oxeval's and Mastra's model configs take { id, url?, apiKey }
  const model = { id: o.model, apiKey: key, ...(o.baseUrl ? { url: o.baseUrl } : {}) }
  const ox = await pool(cases, o.concurrency, (c) => oxevalScore(c, model))
  const anchor = new Array(cases.length).fill(null)
  const ragas = ragasAvailable(o.python)
  if (o.anchor) {
    const mi = cases.map((c, i) => (c.anchor === 'mastra' ? i : -1)).filter((i) => i >= 0)
    const mr = await mastraScores(mi.map((i) => cases[i]), model, o.concurrency)
    mi.forEach((i, k) => (anchor[i] = mr[k]))
    const ri = cases.map((c, i) => (c.anchor === 'ragas' ? i : -1)).filter((i) => i >= 0)
    if (ri.length && ragas.version) {
      const rr = await ragasScores(ri.map((i) => cases[i]), o.model, o)
      ri.forEach((i, k) => (anchor[i] = rr[k]))
    } else if (ri.length) {
      console.log(`calibrate: the ragas anchor is skipped: ${ragas.why}`)
    }
  }
  const rows = cases.map((c, i) => ({
    id: c.id,
    scorer: c.scorer,
    rule: c.rule,
    side: c.side,
    expected: c.expected,
    oxeval: { ...ox[i], verdict: verdictOf(ox[i].score, c.cut) },
    anchor: anchor[i] && { ...anchor[i], verdict: verdictOf(anchor[i].score, c.cut) },
  }))
  const scorers = [...new Set(rows.map((r) => r.scorer))]
  const table = scorers.map((s) => {
    const rs = rows.filter((r) => r.scorer === s)
    const ov = rs.map((r) => r.oxeval.verdict)
    const av = rs.map((r) => (r.anchor ? r.anchor.verdict : null))
    const labels = rs.map((r) => r.expected)
    const acc = (vs) => {
      const n = vs.filter((v) => v !== null).length
      return n ? vs.filter((v, i) => v !== null && v === labels[i]).length / n : null
    }
    return { scorer: s, cases: rs.length, oxevalAccuracy: acc(ov), anchorAccuracy: acc(av), vsAnchor: kappaOf(ov, av), oxevalVsLabels: kappaOf(ov, labels) }
  })
  for (const r of rows) {
    const a = r.anchor ? r.anchor.verdict ?? `error (${r.anchor.error})` : 'not run'
    console.log(`  ${r.id}  expected ${r.expected}  oxeval ${r.oxeval.verdict ?? `error (${r.oxeval.error})`}  anchor ${a}  [${r.rule}]`)
  }
  console.log('\nscorer | cases | oxeval accuracy | anchor accuracy | agreement oxeval/anchor | κ oxeval/anchor')
  for (const t of table) console.log(`${t.scorer} | ${t.cases} | ${pct(t.oxevalAccuracy)} | ${pct(t.anchorAccuracy)} | ${pct(t.vsAnchor.rate)} (${t.vsAnchor.n}) | ${k2(t.vsAnchor.kappa)}${t.vsAnchor.why ? ` (${t.vsAnchor.why})` : ''}`)
  writeFileSync(o.out, `${JSON.stringify({ model: o.model, baseUrl: o.baseUrl, date: new Date().toISOString(), ragas: ragas.version ?? null, table, rows }, null, 2)}\n`)
  console.log(`\ncalibrate: wrote ${o.out}`)
}

main().catch((e) => {
  console.error(`calibrate: ${e && e.stack ? e.stack : e}`)
  process.exit(1)
})
