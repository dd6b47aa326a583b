// What `oxeval run` writes, structurally (issue 18 §5): each prompt once per item and scorer in
// --out (the judge execution points at its step key with "promptRef"), none with
// `--out-prompts none`, and readers (merge, readResults, the HTML report) still see every
// prompt. No byte or timing budget here: bench/output-size.mjs measures those.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { heuristicJudge, startJudgeServer, type JudgeServer } from '../testing/judge-server.mjs'
import { judgeArgs, jsonl, runCli, tempDir } from './helpers/cli'
// @ts-expect-error: an ES module without types
import { readResults } from '../cli/results.mjs'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any

const t = tempDir('oxeval-cli-size-')
let judge: JudgeServer
beforeAll(async () => {
  judge = await startJudgeServer({ handler: heuristicJudge })
  t.write('size.jsonl', jsonl(rows))
})
afterAll(async () => {
  await judge?.close()
  t.remove()
})

const AR = 'answer-relevancy-scorer'
const FA = 'faithfulness-scorer'
const rows = Array.from({ length: 6 }, (_, i) => ({
  id: `s${i}`,
  input: `What is the capital of France? (${i})`,
  output: `Paris is the capital of France. It has ${i + 2} million people.`,
  context: ['Paris is the capital of France.', 'Paris is large.'],
}))
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
const count = (hay: string, needle: string) => hay.split(needle).length - 1
const promptKeys = (r: Any) => Object.keys(r).filter((k) => k.endsWith('Prompt') && typeof r[k] === 'string')

async function run(name: string, extra: string[] = [], shard?: string) {
  const data = t.p('size.jsonl')
  const out = t.p(`${name}.jsonl`)
  const r = await runCli(['run', '--data', data, '--scorer', 'answer-relevancy', '--scorer', 'faithfulness', ...judgeArgs(judge), '--out', out, '--no-progress', ...(shard ? ['--shard', shard] : []), ...extra], { cwd: t.dir })
  expect(r.code, r.stderr).toBe(0)
  return out
}

describe('--out stores each prompt once', () => {
  it('default: every prompt string appears once per item line; each judge execution points at its step key', async () => {
    const out = await run('once')
    const [head, ...rest] = lines(out)
    expect(JSON.parse(head).prompts).toBe('once')
    const items = rest.map((l) => [l, JSON.parse(l)] as const).filter(([, r]) => r.type === 'item')
    expect(items).toHaveLength(rows.length)
    let refs = 0
    for (const [line, item] of items) {
      for (const id of [AR, FA]) {
        const r = item.results[id]
        const keys = promptKeys(r)
        expect(keys.length).toBeGreaterThanOrEqual(3)
        for (const k of keys) expect(count(line, JSON.stringify(r[k]).slice(1, -1)), `${id}.${k}`).toBe(1)
        for (const [step, rec] of Object.entries<Any>(r.judge)) {
          for (const e of rec.executions) {
            expect(e.prompt, `${id} ${step}`).toBeUndefined()
            expect(keys).toContain(e.promptRef)
            refs++
          }
        }
      }
    }
    expect(refs).toBeGreaterThanOrEqual(rows.length * 6)
    // readers get runEvals' records back: the prompt of each execution equals its step key's
    const back = readResults(out)
    for (const item of back.items) {
      for (const id of [AR, FA]) {
        for (const rec of Object.values<Any>(item.results[id].judge)) {
          for (const e of rec.executions) {
            expect(e.promptRef).toBeUndefined()
            expect(typeof e.prompt).toBe('string')
            expect(promptKeys(item.results[id]).map((k) => item.results[id][k])).toContain(e.prompt)
          }
        }
      }
    }
  })

  it('--out-prompts none: no prompt anywhere, scores and reasons kept', async () => {
    const full = readResults(await run('full-ref'))
    const out = await run('none', ['--out-prompts', 'none'])
    const text = readFileSync(out, 'utf8')
    expect(text).not.toMatch(/Prompt"\s*:/)
    expect(text).not.toMatch(/"prompt(Ref)?"\s*:/)
    expect(text).not.toContain('The DATA line below')
    const slim = readResults(out)
    expect(slim.header.prompts).toBe('none')
    const byIndex = new Map(full.items.map((i: Any) => [i.index, i]))
    for (const item of slim.items) {
      const f: Any = byIndex.get(item.index)
      for (const id of [AR, FA]) {
        expect(item.results[id].score).toBe(f.results[id].score)
        expect(item.results[id].reason).toBe(f.results[id].reason)
        expect(item.results[id].analyzeStepResult).toEqual(f.results[id].analyzeStepResult)
      }
    }
    const bad = await runCli(['run', '--data', t.p('size.jsonl'), '--scorer', 'answer-relevancy', ...judgeArgs(judge), '--out', t.p('x.jsonl'), '--out-prompts', 'twice'], { cwd: t.dir })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--out-prompts must be once or none/)
  })

  it('merge reads shards written this way, writes prompts once again, and its HTML report shows every prompt (instructions stored once)', async () => {
    const a = await run('shard-1', [], '1/2')
    const b = await run('shard-2', [], '2/2')
    const merged = t.p('merged.jsonl')
    const html = t.p('merged.html')
    const r = await runCli(['merge', a, b, '--out', merged, '--html', html], { cwd: t.dir })
    expect(r.code, r.stderr).toBe(0)
    const m = readResults(merged)
    expect(m.items.map((i: Any) => i.index)).toEqual([0, 1, 2, 3, 4, 5])
    for (const [line] of lines(merged).map((l) => [l, JSON.parse(l)] as const).filter(([, x]) => x.type === 'item')) expect(line).not.toMatch(/"prompt"\s*:/)
    // the page's data: templates once, each item's prompt = template + its DATA part
    const page = readFileSync(html, 'utf8')
    const blob = JSON.parse(/<script type="application\/json" id="oxeval-data">([\s\S]*?)<\/script>/.exec(page)![1])
    expect(blob.templates.length).toBeGreaterThanOrEqual(6)
    for (const tpl of blob.templates) expect(count(page, JSON.stringify(tpl.slice(0, 300)).slice(1, -1).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026'))).toBe(1)
    for (const it of blob.items) {
      const want = m.items.find((x: Any) => x.index === it.index)
      for (const id of [AR, FA]) {
        for (const k of promptKeys(want.results[id])) {
          const v = it.results[id][k]
          const shown = typeof v === 'string' ? v : blob.templates[v.t] + v.s
          expect(shown).toBe(want.results[id][k])
        }
      }
    }
  })

  it('run --html: the report built from the on-disk spool shows the same prompts as --out', async () => {
    const html = t.p('run.html')
    const out = await run('with-html', ['--html', html, '--junit', t.p('run.xml')])
    const res = readResults(out)
    const blob = JSON.parse(/<script type="application\/json" id="oxeval-data">([\s\S]*?)<\/script>/.exec(readFileSync(html, 'utf8'))![1])
    expect(blob.items.map((i: Any) => i.index)).toEqual([0, 1, 2, 3, 4, 5])
    for (const it of blob.items) {
      const want = res.items.find((x: Any) => x.index === it.index)
      for (const id of [AR, FA]) {
        expect(it.results[id].score).toBe(want.results[id].score)
        expect(it.results[id].analyzeStepResult).toEqual(want.results[id].analyzeStepResult)
        for (const k of promptKeys(want.results[id])) {
          const v = it.results[id][k]
          expect(typeof v === 'string' ? v : blob.templates[v.t] + v.s).toBe(want.results[id][k])
        }
      }
    }
    expect(readFileSync(t.p('run.xml'), 'utf8')).toContain('<testsuite')
  })
})

/** A minimal DOM, enough for the report's script: elements, text, children, click handlers. */
function miniDom(page: string) {
  class El {
    tagName: string
    className = ''
    children: El[] = []
    dataset: Record<string, string> = {}
    style: Record<string, string> = {}
    listeners: Record<string, Array<(e: Any) => void>> = {}
    own = ''
    title = ''
    colSpan = 1
    disabled = false
    checked = false
    value = ''
    constructor(tag: string) {
      this.tagName = tag
    }
    get textContent(): string {
      return this.own + this.children.map((c) => c.textContent).join('')
    }
    set textContent(v: string) {
      this.own = v
      this.children = []
    }
    appendChild(c: El) {
      this.children.push(c)
      return c
    }
    addEventListener(type: string, f: (e: Any) => void) {
      ;(this.listeners[type] ||= []).push(f)
    }
    click() {
      for (const f of this.listeners.click || []) f({ target: this })
    }
    all(pred: (e: El) => boolean): El[] {
      return [...(pred(this) ? [this] : []), ...this.children.flatMap((c) => c.all(pred))]
    }
  }
  const blob = /<script type="application\/json" id="oxeval-data">([\s\S]*?)<\/script>/.exec(page)![1]
  const script = [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]).pop()!
  const ids: Record<string, El> = {}
  const data = new El('script')
  data.own = blob
  ids['oxeval-data'] = data
  const document = {
    getElementById: (id: string) => (ids[id] ||= new El(id === 'rows' ? 'tbody' : 'div')),
    createElement: (tag: string) => new El(tag),
    createTextNode: (text: string) => Object.assign(new El('#text'), { own: text }),
  }
  new Function('document', script)(document)
  return { rows: ids.rows, El }
}

describe('the page script', () => {
  it('shows every prompt of an opened item, rebuilt from its template and DATA part', async () => {
    const html = t.p('dom.html')
    const out = await run('dom', ['--html', html])
    const res = readResults(out)
    const { rows } = miniDom(readFileSync(html, 'utf8'))
    const first = rows.children.find((r: Any) => r.className === 'item')!
    first.click()
    const want = res.items.find((x: Any) => String(x.index) === String(first.dataset.index))
    const detail = rows.children.find((r: Any) => r.className === 'detail')!
    const prompts = detail.all((e: Any) => e.tagName === 'details' && e.className === 'prompt')
    const shown = Object.fromEntries(prompts.map((d: Any) => [d.children[0].textContent, d.children[1].textContent]))
    const expected: Record<string, string> = {}
    for (const id of [AR, FA]) for (const k of promptKeys(want.results[id])) expected[k] = want.results[id][k]
    expect(prompts.length).toBe(promptKeys(want.results[AR]).length + promptKeys(want.results[FA]).length)
    // both scorers have a preprocessPrompt etc.: compare per scorer box
    const boxes = detail.all((e: Any) => e.className === 'scorer')
    for (const box of boxes) {
      const id = box.children[0].textContent
      for (const d of box.all((e: Any) => e.tagName === 'details' && e.className === 'prompt')) {
        expect(d.children[1].textContent).toBe(want.results[id][d.children[0].textContent])
      }
    }
    expect(Object.keys(shown).length).toBeGreaterThan(0)
    expect(Object.keys(expected).length).toBeGreaterThan(0)
  })
})
