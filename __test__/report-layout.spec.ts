// The HTML report of a wide run (every LLM scorer of the registry over the bundled dataset, as the
// demo runs it: 20 scorers) in headless Chromium: the item table fits the page (the scorer columns that fit, at most six, the rest
// as chips in one column, a picker to choose), an item's detail shows its retrieved contexts
// and each scorer's judge calls, tokens and latency, and the scorer cards fill the width.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium, type BrowserContext } from 'playwright-core'
import { judgeArgs, readOut, runCli } from './helpers/cli'
import { startJudgeServer, type Any, type JudgeServer } from './helpers/setup'
import { heuristicJudge } from '../testing/judge-server.mjs'

const CHROMIUM = '/usr/bin/chromium'
const haveChromium = existsSync(CHROMIUM)
const describeBrowser = haveChromium || process.env.CI ? describe : describe.skip
// every LLM scorer the CLI can run from options alone (the classifier scorer's `state` is a function)
const SCORERS = createRequire(import.meta.url)('../generated/scorers.js').filter((s: Any) => s.kind === 'llm' && s.id !== 'classifier-scorer')

describeBrowser('the HTML report of a wide run', () => {
  let dir: string
  let judge: JudgeServer
  let context: BrowserContext
  beforeAll(async () => {
    if (!haveChromium) throw new Error(`${CHROMIUM} is missing: CI must install Debian's chromium (apt-get install -y chromium)`)
    dir = mkdtempSync(join(tmpdir(), 'oxeval-layout-'))
    judge = await startJudgeServer({ handler: heuristicJudge })
    // the options the agent scorers cannot do without (as the demo gives them)
    const needed = [
      '--option', 'multi-turn-judge-scorer.criterion=The assistant answers the question it was asked.',
      '--option', 'llm-tool-call-accuracy-scorer.availableTools=[{"id":"search","description":"Search the web"}]',
      '--option', 'rubric-scorer.criteria=- Answers the question\n- Is one or two sentences',
    ]
    const r = await runCli(['run', '--data', 'examples/dataset.json', ...SCORERS.flatMap((s: Any) => ['--scorer', s.id]), ...needed, ...judgeArgs(judge), '--html', join(dir, 'r.html'), '--out', join(dir, 'r.jsonl'), '--no-progress'], { cwd: process.cwd(), timeoutMs: 120000 })
    if (r.code !== 0 && r.code !== 1) throw new Error(r.stderr)
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'oxeval-chromium-')), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1280, height: 900 },
    })
  }, 180000)
  afterAll(async () => {
    await context?.close()
    await judge?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it("the scripted judge's default replies give every scorer of the demo a spread (none at 0 on every item)", () => {
    const out = readOut(join(dir, 'r.jsonl'))
    const flat: string[] = []
    for (const s of SCORERS) {
      const scores = out.items.map((it: Any) => it.results[s.id]?.score).filter((x: unknown) => typeof x === 'number')
      expect(scores.length, s.id).toBe(out.items.length)
      if (scores.every((x: number) => x === 0)) flat.push(s.id)
    }
    expect(flat).toEqual([])
  })

  it(`${SCORERS.length} scorers: the table fits, columns can be chosen, the detail has contexts and judge costs, the cards fill the row`, async () => {
    expect(SCORERS.length).toBeGreaterThan(6)
    const page = await context.newPage()
    await page.goto(pathToFileURL(join(dir, 'r.html')).href)
    await page.waitForSelector('#rows tr.item')
    // as many scorer columns as fit (at most six), the rest as chips
    const width = await page.$eval('#items', (t) => (t as HTMLElement).scrollWidth)
    expect(width).toBeLessThanOrEqual(await page.evaluate(() => document.documentElement.clientWidth))
    expect(await page.$$eval('#head th', (ths) => ths.map((t) => t.textContent))).toContain('other scores')
    const columns = await page.$$eval('#head th[data-key]', (ths) => ths.length - 1)
    expect(columns).toBeGreaterThanOrEqual(4)
    expect(columns).toBeLessThanOrEqual(6)
    expect(await page.$$eval('#rows tr.item:first-child .chip', (c) => c.length)).toBe(SCORERS.length - columns)
    // choose a hidden scorer as a column
    const hidden = SCORERS[SCORERS.length - 1].id
    await page.click('#columns summary')
    await page.check(`#pick input[data-scorer="${hidden}"]`)
    expect(await page.$$eval('#head th', (ths) => ths.map((t) => t.textContent))).toContain(hidden)
    expect(await page.$$eval(`#rows tr.item:first-child td[data-scorer="${hidden}"]`, (c) => c.length)).toBe(1)
    // an item's detail: its retrieved contexts, and what each scorer's judge calls cost
    await page.click('#columns summary')
    await page.click('#rows tr.item:first-child')
    const detail = await page.textContent('#rows tr.detail')
    expect(detail).toMatch(/retrieved context \(\d+\)/)
    expect(detail).toMatch(/judge: \d+ calls?, \d+ tokens, \d+ ms/)
    // the cards share the page's width: several per row
    const tops = await page.$$eval('.card', (cs) => cs.map((c) => Math.round(c.getBoundingClientRect().top)))
    expect(tops.filter((t) => t === tops[0]).length).toBeGreaterThan(2)
    await page.close()
  })
})
