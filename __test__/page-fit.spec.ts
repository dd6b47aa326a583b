// The pages fit the screen: no horizontal page scroll (document scrollWidth ≤ viewport width) on
// the HTML report of a 20-scorer run (the demo's scorers), the viewer's run list, the viewer's
// run report (a page of its own: no frame, no scroll inside a scroll) and the viewer's comparison,
// at 1 280 × 800 and at 390 × 844 (a phone), in headless Chromium. With OXEVAL_SCREENSHOTS=1 the
// screenshots go to docs/screenshots/ (page-<page>-<width>.png), else to a temp folder.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { CLI, judgeArgs, runCli } from './helpers/cli'
import { startJudgeServer, type Any, type JudgeServer } from './helpers/setup'
import { heuristicJudge } from '../testing/judge-server.mjs'

const CHROMIUM = '/usr/bin/chromium'
const haveChromium = existsSync(CHROMIUM)
const describeBrowser = haveChromium || process.env.CI ? describe : describe.skip
// every LLM scorer the CLI can run from options alone (the classifier scorer's `state` is a function)
const SCORERS = createRequire(import.meta.url)('../generated/scorers.js').filter((s: Any) => s.kind === 'llm' && s.id !== 'classifier-scorer')
const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]

describeBrowser('the pages fit the screen', () => {
  let dir: string
  let judge: JudgeServer
  let child: ChildProcess
  let url: string
  let context: BrowserContext
  let SHOTS: string
  beforeAll(async () => {
    if (!haveChromium) throw new Error(`${CHROMIUM} is missing: CI must install Debian's chromium (apt-get install -y chromium)`)
    dir = mkdtempSync(join(tmpdir(), 'oxeval-fit-'))
    judge = await startJudgeServer({ handler: heuristicJudge })
    const needed = [
      '--option', 'multi-turn-judge-scorer.criterion=The assistant answers the question it was asked.',
      '--option', 'llm-tool-call-accuracy-scorer.availableTools=[{"id":"search","description":"Search the web"}]',
      '--option', 'rubric-scorer.criteria=- Answers the question',
    ]
    const scorers = SCORERS.flatMap((s: Any) => ['--scorer', s.id])
    const r = await runCli(['run', '--data', 'examples/dataset.json', ...scorers, ...needed, ...judgeArgs(judge), '--out', join(dir, 'base.jsonl'), '--html', join(dir, 'report.html'), '--no-progress'], { cwd: process.cwd(), timeoutMs: 120000 })
    if (r.code !== 0 && r.code !== 1) throw new Error(r.stderr)
    // a second run of the same scorers: the comparison has a row per scorer
    const r2 = await runCli(['run', '--data', 'examples/dataset.json', ...scorers, ...needed, ...judgeArgs(judge), '--out', join(dir, 'head.jsonl'), '--no-progress'], { cwd: process.cwd(), timeoutMs: 120000 })
    if (r2.code !== 0 && r2.code !== 1) throw new Error(r2.stderr)
    child = spawn(process.execPath, [CLI, 'view', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
    url = await new Promise<string>((resolve, reject) => {
      let out = ''
      child.stdout!.on('data', (d) => {
        out += d
        const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(out)
        if (m) resolve(m[0])
      })
      child.on('exit', (code) => reject(new Error(`view exited ${code}`)))
    })
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'oxeval-chromium-')), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    })
    SHOTS = process.env.OXEVAL_SCREENSHOTS ? join(process.cwd(), 'docs', 'screenshots') : join(dir, 'shots')
    mkdirSync(SHOTS, { recursive: true })
  }, 300000)
  afterAll(async () => {
    await context?.close()
    child?.kill('SIGINT')
    await judge?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  /** The page's overflow: how far the document is wider than the viewport (0 when it fits). */
  async function overflow(page: Page, name: string, width: number, show?: string) {
    if (show) await page.$eval(show, (e) => e.scrollIntoView())
    await page.screenshot({ path: join(SHOTS, `page-${name}-${width}.png`) })
    return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
  }

  for (const size of SIZES) {
    it(`${size.width} × ${size.height}: report, run list, run report and comparison have no horizontal scroll`, async () => {
      const page = await context.newPage()
      await page.setViewportSize(size)
      const found: Record<string, number> = {}
      // the --html report, with an item's detail open
      await page.goto(pathToFileURL(join(dir, 'report.html')).href)
      await page.waitForSelector('#rows tr.item')
      // every scorer is on screen: a column or a chip
      const shown = await page.$$eval('#rows tr.item:first-child [data-scorer]', (c) => c.map((x) => (x as HTMLElement).dataset.scorer))
      expect(new Set(shown).size).toBe(SCORERS.length)
      found.report = await overflow(page, 'report', size.width, '.toolbar')
      await page.click('#rows tr.item:first-child')
      await page.waitForSelector('#rows tr.detail')
      found['report-detail'] = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
      // the viewer: the runs, one run's report (its own page), the comparison
      await page.goto(url)
      await page.waitForSelector('#runs tr[data-file]')
      found.runs = await overflow(page, 'runs', size.width)
      await page.click('#runs tr[data-file="base.jsonl"] a')
      await page.waitForSelector('#rows tr.item')
      expect(await page.$$('iframe')).toEqual([])
      expect(await page.getAttribute('#back', 'href')).toBeTruthy()
      found['view-run'] = await overflow(page, 'view-run', size.width, '.toolbar')
      await page.click('#back')
      await page.waitForSelector('#runs tr[data-file]')
      await page.check('#runs tr[data-file="base.jsonl"] input')
      await page.check('#runs tr[data-file="head.jsonl"] input')
      await page.click('#compare')
      await page.waitForSelector('#comparison tr[data-scorer]')
      found.compare = await overflow(page, 'compare', size.width)
      expect(found).toEqual({ report: 0, 'report-detail': 0, runs: 0, 'view-run': 0, compare: 0 })
      await page.close()
    }, 120000)
  }
})
