// `oxeval run` with agent items, in child processes: a data file with multi-turn items (`inputs`,
// `turns` whose gates and scorers are named as the flags name them) and `expectedTrajectory`, a
// config whose target is a real @mastra/core Agent (AI SDK MockLanguageModelV3, MockMemory) and
// whose scorers are categorized; the summary, --out (merge recounts it), JUnit and the HTML
// report show per-turn and trajectory results; --cache-targets replays whole conversations.
import { afterAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CLI, jsonl, readOut, root, runCli, tempDir } from './helpers/cli'
import { type Any } from './helpers/setup'

const t = tempDir('oxeval-agents-')
afterAll(() => t.remove())

/** A config module: a weather Agent (memory on one thread per conversation) counting its model calls in `calls.txt`. */
function agentConfig(extra: string) {
  return `import { appendFileSync } from 'node:fs'
import { createRequire } from 'node:module'
const require = createRequire(${JSON.stringify(join(root, 'package.json'))})
const ox = require('./index.js')
const { MockLanguageModelV3 } = require('ai/test')
const { Agent } = require('@mastra/core/agent')
const { MockMemory } = require('@mastra/core/memory')
const { InMemoryStore } = require('@mastra/core/storage')
const { createTool } = require('@mastra/core/tools')
const { z } = require('zod')
const usage = { inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } }
const textOf = (m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join(''))
const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    appendFileSync(new URL('./calls.txt', import.meta.url), 'x')
    const last = prompt[prompt.length - 1]
    const done = { finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }
    if (last.role === 'tool') {
      const r = last.content[0].output.value
      return { content: [{ type: 'text', text: 'It is ' + r.temp + '°C in ' + r.city + '.' }], ...done }
    }
    const text = textOf(last)
    if (/weather/i.test(text)) {
      const city = /in ([A-Z][a-z]+)/.exec(text)?.[1] ?? prompt.map(textOf).join(' ').match(/favorite city is ([A-Z][a-z]+)/)?.[1]
      if (!city) return { content: [{ type: 'text', text: 'Which city?' }], ...done }
      return { content: [{ type: 'tool-call', toolCallId: 'c' + Math.random(), toolName: 'weather', input: JSON.stringify({ city }) }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] }
    }
    return { content: [{ type: 'text', text: 'Noted: ' + text }], ...done }
  },
})
const weather = createTool({ id: 'weather', description: 'weather', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => ({ city, temp: 20 }) })
const agent = new Agent({ id: 'weather-agent', name: 'weather-agent', instructions: 'Weather.', model, tools: { weather }, memory: new MockMemory({ storage: new InMemoryStore() }) })
export default ox.defineConfig({ target: agent, ${extra} })
`
}

/**
 * The report page's own script run against a minimal DOM (no browser here): the elements it
 * builds, so an item's detail can be opened and read as text.
 */
function renderReport(html: string) {
  class El {
    [k: string]: Any
    children: El[] = []
    dataset: Record<string, string> = {}
    style: Record<string, string> = {}
    listeners: Record<string, Array<(e: unknown) => void>> = {}
    own = ''
    constructor(public tag: string) {}
    appendChild(c: El) {
      this.children.push(c)
      return c
    }
    set textContent(v: string) {
      this.own = String(v)
      this.children = []
    }
    get textContent(): string {
      return this.own + this.children.map((c) => c.textContent).join(this.tag === 'tr' || this.tag === 'td' ? ' ' : '')
    }
    addEventListener(type: string, f: (e: unknown) => void) {
      ;(this.listeners[type] ??= []).push(f)
    }
    click() {
      for (const f of this.listeners.click ?? []) f({ target: this })
    }
  }
  const byId: Record<string, El> = {}
  const blob = /<script type="application\/json" id="oxeval-data">([\s\S]*?)<\/script>/.exec(html)![1]
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]
  const document = {
    getElementById: (id: string) => (byId[id] ??= Object.assign(new El('div'), id === 'oxeval-data' ? { own: blob } : {})),
    createElement: (tag: string) => new El(tag),
    createTextNode: (text: string) => Object.assign(new El('#text'), { own: text }),
  }
  new Function('document', script)(document)
  return byId
}

const data = [
  { id: 'remember', inputs: ['My favorite city is Lyon.', 'What is the weather in my favorite city?'], expectedTrajectory: { steps: [{ stepType: 'tool_call', name: 'weather' }] } },
  {
    id: 'turns',
    expectedTrajectory: { steps: [{ stepType: 'tool_call', name: 'weather' }] },
    turns: [
      { input: 'What is the weather in Paris?', gates: ['calledTool(weather)'] },
      { input: 'Thanks!' },
      { input: 'And the weather tomorrow?', gates: ['calledTool(weather)'], scorers: [{ scorer: 'includes("°C")', threshold: 0.5 }] },
    ],
  },
  { id: 'single', input: 'Weather in Oslo?', expectedTrajectory: { steps: [{ stepType: 'tool_call', name: 'weather' }] } },
]

describe('oxeval run: agent items', () => {
  it('a config with an Agent target and categorized scorers; per-turn and trajectory results in the summary, --out, merge, JUnit and HTML', async () => {
    const dir = t.p('project')
    const { mkdirSync } = await import('node:fs')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'items.jsonl'), jsonl(data))
    writeFileSync(join(dir, 'oxeval.config.mjs'), agentConfig(`data: 'items.jsonl', scorers: { agent: [ox.checks.includes('°C')], trajectory: [ox.createTrajectoryAccuracyScorerCode()] }, gates: ['noToolErrors()'], out: 'out.jsonl', junit: 'junit.xml', html: 'report.html'`))
    const r = await runCli(['run', '--no-progress'], { cwd: dir })
    // turn 2 of "turns" named no city: no tool call, its gate fails (exit 1)
    expect(r.code, r.stderr + r.stdout).toBe(1)
    expect(r.stdout).toMatch(/check-includes \(agent\) +1\.000/)
    expect(r.stdout).toMatch(/code-trajectory-accuracy-scorer \(trajectory\) +/)
    expect(r.stdout).toContain('per turn (turns items: each assertion judged its turn alone):')
    // the CLI keys a check by its id as the library does (check-called-tool), per turn too
    expect(r.stdout).toMatch(/\n0 +check-called-tool +gate +1\.000 +1\/1 +PASS/)
    expect(r.stdout).toMatch(/\n2 +check-called-tool +gate +0\.000 +1\/1 +FAIL/)
    expect(r.stdout).toMatch(/\n2 +check-includes +>= 0\.5 +0\.000 +1\/1 +FAIL/)
    expect(r.stdout).toContain('✗ turn 2: gate "check-called-tool" passed 0% of items (required: 100%)')
    const o = readOut(join(dir, 'out.jsonl'))
    expect(o.header.scorers).toEqual([
      { id: 'check-includes', category: 'agent' },
      { id: 'code-trajectory-accuracy-scorer', category: 'trajectory' },
    ])
    expect(o.summary.scores.trajectory['code-trajectory-accuracy-scorer']).toBe(1)
    const byId = Object.fromEntries(o.items.map((i: Any) => [i.id, i]))
    expect(byId.remember.inputs).toHaveLength(2)
    expect(byId.remember.trajectory.map((s: Any) => s.toolArgs.city)).toEqual(['Lyon'])
    expect(byId.turns.turns.map((x: Any) => Object.keys(x.results))).toEqual([['check-called-tool'], [], ['check-called-tool', 'check-includes']])
    // merge recounts the same per-turn results from the records
    const m = await runCli(['merge', 'out.jsonl', '--out', 'merged.jsonl'], { cwd: dir })
    expect(m.code, m.stderr + m.stdout).toBe(1)
    const merged = readOut(join(dir, 'merged.jsonl')).summary
    for (const k of ['scores', 'turnResults', 'outcome', 'verdict']) expect(merged[k]).toEqual(o.summary[k])
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8')
    expect(junit).toContain('<testcase name="turn 0 gate check-called-tool" classname="oxeval.run"><system-out>turn 0 gate average 1</system-out></testcase>')
    expect(junit).toMatch(/<testcase name="turn 2 gate check-called-tool" classname="oxeval.run"><failure type="gate" message="turn 2: gate &quot;check-called-tool&quot; passed 0% of items/)
    const html = readFileSync(join(dir, 'report.html'), 'utf8')
    expect(html).toContain('<section class="card" id="turns"><h2>Per-turn results</h2>')
    expect(html).toContain('<tr data-turn="2" data-scorer="check-called-tool"><td class="num">2</td><td>check-called-tool</td><td>gate (every item scores 1)</td><td class="num">0.000</td><td class="num">1/1</td><td class="fail">FAIL</td></tr>')
    expect(html).toContain('<tr data-turn="1"><td class="num">1</td><td colspan="5" class="kv">no assertion (the turn advances the conversation)</td></tr>')
    expect(html).toContain('code-trajectory-accuracy-scorer <span class="kv category">trajectory</span>')
    // an item's detail on the page: each turn with its input, output and assertions; the trajectory
    const page = renderReport(html)
    // (a DOM keeps dataset values as text: compared as text)
    const row = page.rows.children.find((c: Any) => String(c.dataset.index) === '1')
    row.click()
    const detail = page.rows.children.find((c: Any) => c.className === 'detail')
    const turns = detail.children[0].children.filter((c: Any) => c.className === 'turn')
    expect(turns.map((b: Any) => String(b.dataset.turn))).toEqual(['0', '1', '2'])
    expect(turns[2].textContent).toContain('turn 2input: And the weather tomorrow?output: ')
    expect(turns[2].textContent).toContain('check-called-tool (gate): 0')
    expect(turns[2].textContent).toContain('check-includes (threshold 0.5): 0')
    expect(detail.textContent).toMatch(/trajectory \(1 step\)tool_call weather \{"city":"Paris"\}/)
    // oxeval view lists the run with its categorized means by id
    const view = spawn(process.execPath, [CLI, 'view', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = ''
        view.stdout!.on('data', (d) => {
          out += d
          const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(out)
          if (m) resolve(m[0])
        })
        view.on('exit', (code) => reject(new Error(`view exited ${code}`)))
      })
      const runs = await (await fetch(`${url}api/runs`)).json()
      const run = runs.find((x: Any) => x.file === 'out.jsonl')
      expect(run.means).toEqual({ 'check-includes': 1, 'code-trajectory-accuracy-scorer': 1 })
    } finally {
      view.kill()
    }
  })

  it('--cache-targets keeps whole conversations: a rerun calls the agent for none of them', async () => {
    const dir = t.p('cached')
    const { mkdirSync } = await import('node:fs')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'items.jsonl'), jsonl(data))
    writeFileSync(join(dir, 'oxeval.config.mjs'), agentConfig(`data: 'items.jsonl', scorers: [ox.checks.calledTool('weather')], cacheTargets: '.targets'`))
    const calls = () => readFileSync(join(dir, 'calls.txt'), 'utf8').length
    const first = await runCli(['run', '--no-progress', '--out', 'a.jsonl', '--max-errors', '9'], { cwd: dir })
    expect(first.code, first.stderr + first.stdout).toBe(1)
    const made = calls()
    // turn 1 of "remember" recalled Lyon: the agent's memory kept the conversation
    expect(readOut(join(dir, 'a.jsonl')).items.find((i: Any) => i.id === 'remember').results['check-called-tool'].score).toBe(1)
    const second = await runCli(['run', '--no-progress', '--out', 'b.jsonl', '--max-errors', '9'], { cwd: dir })
    expect(second.code, second.stderr).toBe(1)
    expect(calls()).toBe(made)
    const scores = (f: string) => Object.fromEntries(readOut(join(dir, f)).items.map((i: Any) => [i.id, i.results['check-called-tool']?.score]))
    expect(scores('b.jsonl')).toEqual(scores('a.jsonl'))
    expect(readOut(join(dir, 'b.jsonl')).summary.turnResults).toEqual(readOut(join(dir, 'a.jsonl')).summary.turnResults)
  })

  it('a bad turn assertion name is a bad row (its line on stderr, an item error); turns rows need no input', async () => {
    const dir = t.p('bad')
    const { mkdirSync } = await import('node:fs')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'items.jsonl'), jsonl([{ turns: [{ input: 'a', output: 'Noted a', gates: ['nope-scorer'] }] }, { turns: [{ input: 'b', output: 'Noted b', gates: ['includes("Noted")'] }] }]))
    const r = await runCli(['run', '--data', 'items.jsonl', '--scorer', 'includes("Noted")', '--no-progress', '--out', 'o.jsonl'], { cwd: dir })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/items\.jsonl:1: skipped row 0: turns\[0\]\.gates\[0\]: unknown scorer "nope-scorer"/)
    const o = readOut(join(dir, 'o.jsonl'))
    // the good row ran with no target: its recorded turn output was judged
    expect(o.summary.turnResults[0].gateResults).toEqual([{ id: 'check-includes', passed: true, score: 1 }])
    expect(o.items.find((i: Any) => i.index === 1).turns[0].results['check-includes'].score).toBe(1)
  })
})
