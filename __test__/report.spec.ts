// The HTML report (report/html.mjs) in real headless Chromium, and the JUnit report: a report
// made by `oxeval run --html` against the scripted judge (with hostile outputs and judge text),
// and a synthetic 10 000-item report. The page must fetch nothing, escape everything, sort,
// filter, paginate and open rows. Chromium is /usr/bin/chromium (Debian's `chromium`); without
// it these tests fail under CI and are skipped (with a message) elsewhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { heuristicJudge, startJudgeServer, type JudgeServer, type RecordedRequest } from '../testing/judge-server.mjs'
import { histogramSvg, renderHtmlReport, scriptJson, slimItem } from '../report/html.mjs'
import { renderJunit, xmlEscape } from '../report/junit.mjs'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any

const root = fileURLToPath(new URL('..', import.meta.url))
const CLI = join(root, 'cli', 'oxeval.mjs')
const CHROMIUM = '/usr/bin/chromium'
const DATASET: Array<{ input: string; output: string; groundTruth: string }> = JSON.parse(readFileSync(join(root, 'examples', 'dataset.json'), 'utf8'))
const AR = 'answer-relevancy-scorer'
const FC = 'factual-correctness-scorer'

const XSS_OUTPUT = 'Paris. <script>window.__xss = 1</script><img src=x onerror="window.__xss = 2"> </script><b id="injected">bold</b>'
const XSS_REASON = 'Judged. </script><script>window.__xss = 3</script><img src=y onerror="window.__xss = 4">'
const CONTROL_OUTPUT = 'odd bytes \u0001\u0008 and a lone \ud800 surrogate & "quotes" <tag>'

describe('report building blocks (no browser)', () => {
  it('scriptJson cannot end its <script> element and round-trips', () => {
    const v = { s: '</script><script>alert(1)</script>', t: '<!-- & \u2028 \u2029 -->' }
    const text = scriptJson(v)
    expect(text).not.toMatch(/<|>|&|\u2028|\u2029/)
    expect(JSON.parse(text)).toEqual(v)
  })

  it('histogramSvg: 10 bins whose counts add up to the scores given', () => {
    const svg = histogramSvg([0, 0.05, 0.5, 0.55, 1, 1, 1], { threshold: 0.7 })
    expect(svg.match(/<rect class="bin"/g)).toHaveLength(10)
    const counts = [...svg.matchAll(/: (\d+) items?</g)].map((m) => Number(m[1]))
    expect(counts).toEqual([2, 0, 0, 0, 0, 2, 0, 0, 0, 3])
    expect(svg).toMatch(/class="thr"/)
  })

  it('JUnit: XML-escaped, control characters and lone surrogates replaced, a failure below threshold, an error for a failed scorer', () => {
    expect(xmlEscape('a<b>&"\'\u0001\ud800')).toBe('a&lt;b&gt;&amp;&quot;&apos;\ufffd\ufffd')
    const xml = renderJunit({
      header: { scorers: [{ id: 's', threshold: 0.5 }] },
      summary: { scores: { s: 0.4 }, thresholdResults: [{ id: 's', passed: false, averageScore: 0.4, threshold: 0.5 }] },
      items: [
        { index: 0, input: 'q', output: CONTROL_OUTPUT, results: { s: { score: 0.8, reason: 'ok' } }, errors: {} },
        { index: 1, input: 'q', output: 'o', results: { s: { score: 0.1, reason: 'low <x>' } }, errors: {} },
        { index: 2, input: 'q', output: 'o', results: {}, errors: { s: { name: 'ScorerRunError', message: 'judge said 400', code: 'OXEVAL_JUDGE_HTTP' } } },
      ],
    })
    expect(xml).toMatch(/<testsuite name="s" tests="3" failures="1" errors="1"/)
    expect(xml).toMatch(/<property name="mean" value="0.4"\/>/)
    expect(xml).toContain('reason: low &lt;x&gt;')
    expect(xml).not.toMatch(/[\u0001\u0008]/)
    expect(xml).toMatch(/<error type="OXEVAL_JUDGE_HTTP" message="judge said 400">/)
  })
})

const haveChromium = existsSync(CHROMIUM)
if (!haveChromium && !process.env.CI) {
  console.warn(`report.spec: ${CHROMIUM} not found: the browser tests of the HTML report are SKIPPED (apt-get install chromium; under CI they fail instead)`)
}
const describeBrowser = haveChromium || process.env.CI ? describe : describe.skip

describeBrowser('the HTML report in headless Chromium', () => {
  let dir: string
  let judge: JudgeServer
  let context: BrowserContext
  let out: { header: Any; items: Any[]; summary: Any }
  const N = 30

  function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d) => (stdout += d))
      child.stderr.on('data', (d) => (stderr += d))
      child.on('error', reject)
      child.on('close', (code) => resolve({ code, stdout, stderr }))
    })
  }

  beforeAll(async () => {
    if (!haveChromium) throw new Error(`${CHROMIUM} is missing: CI must install Debian's chromium (apt-get install -y chromium)`)
    dir = mkdtempSync(join(tmpdir(), 'oxeval-report-'))
    // the judge: heuristic, but its reasons carry markup, and one item's judge call fails
    judge = await startJudgeServer({
      handler: (req: RecordedRequest) => {
        if (req.text.includes('FAIL-THIS-ITEM')) return { status: 400, content: 'this item is rejected by the judge' }
        const reply: Any = heuristicJudge(req)
        const isReason = !req.body?.response_format && !/Output schema name:/.test(req.text)
        return isReason && typeof reply.content === 'string' && req.text.includes('Paris') ? { ...reply, content: `${XSS_REASON} ${reply.content}` } : reply
      },
    })
    const rows = Array.from({ length: N }, (_, i) => ({ id: `item-${i}`, ...DATASET[i % DATASET.length] }))
    rows[0] = { ...rows[0], output: XSS_OUTPUT }
    rows[1] = { ...rows[1], output: CONTROL_OUTPUT }
    rows[2] = { ...rows[2], input: 'FAIL-THIS-ITEM: what is this?' }
    writeFileSync(join(dir, 'data.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n'))
    const r = await cli([
      'run', '--data', 'data.jsonl', '--scorer', 'answer-relevancy', '--scorer', 'factual-correctness', '--threshold', 'answer-relevancy=0.5',
      '--model', 'openai/scripted-judge', '--model-url', judge.url, '--option', '*.modelSettings.maxRetries=0',
      '--out', 'out.jsonl', '--html', 'report.html', '--junit', 'report.xml', '--price-in', '0.15', '--price-out', '0.6',
    ])
    if (r.code !== 0 && r.code !== 1) throw new Error(`oxeval run failed (${r.code}): ${r.stderr}`)
    const recs = readFileSync(join(dir, 'out.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    out = { header: recs[0], items: recs.filter((x) => x.type === 'item'), summary: recs[recs.length - 1] }
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'oxeval-chromium-')), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1280, height: 900 },
    })
  }, 60000)

  afterAll(async () => {
    await context?.close()
    await judge?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  /** Opens a report file; records every request that is not file:// and every page error. */
  async function open(file: string): Promise<{ page: Page; external: string[]; errors: string[] }> {
    const page = await context.newPage()
    const external: string[] = []
    const errors: string[] = []
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) external.push(r.url())
    })
    page.on('pageerror', (e) => errors.push(e.message))
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text())
    })
    await page.goto(pathToFileURL(file).href)
    await page.waitForSelector('tr.item')
    return { page, external, errors }
  }

  const scoreOf = (it: Any, id: string) => (typeof it.results?.[id]?.score === 'number' ? it.results[id].score : null)
  const firstRowScore = (page: Page, id: string) => page.locator(`tr.item >> nth=0 >> td[data-scorer="${id}"]`).textContent()

  it('every item is a row, a histogram per scorer with the scored items, and no request leaves file://', async () => {
    const { page, external, errors } = await open(join(dir, 'report.html'))
    expect(out.items).toHaveLength(N)
    expect(await page.locator('tr.item').count()).toBe(N)
    expect(await page.locator('#count').textContent()).toBe(`1–${N} of ${N} items`)
    for (const id of [AR, FC]) {
      const card = page.locator(`section.card[data-scorer="${id}"]`)
      expect(await card.locator('svg.hist').count()).toBe(1)
      expect(await card.locator('svg.hist rect.bin').count()).toBe(10)
      const titles = await card.locator('svg.hist rect.bin title').allTextContents()
      const total = titles.reduce((n, t) => n + Number(/: (\d+) item/.exec(t)?.[1]), 0)
      expect(total).toBe(out.summary.coverage[id].scored)
      expect(await card.textContent()).toContain(out.summary.scores[id].toFixed(3))
      expect(await card.textContent()).toMatch(/cost \$\d+\.\d{4}/)
    }
    expect(await page.locator(`section.card[data-scorer="${AR}"]`).textContent()).toMatch(/threshold >= 0.5: (PASS|FAIL)/)
    expect(external).toEqual([])
    expect(errors).toEqual([])
    await page.close()
  })

  it('clicking a scorer header sorts by it: lowest first, then highest first', async () => {
    const { page } = await open(join(dir, 'report.html'))
    const scores = out.items.map((it) => scoreOf(it, AR)).filter((s) => s !== null)
    const min = Math.min(...scores)
    const max = Math.max(...scores)
    expect(min).toBeLessThan(max)
    expect(await page.locator('tr.item >> nth=0').getAttribute('data-index')).toBe('0')
    await page.click(`th[data-key="${AR}"]`)
    expect(await firstRowScore(page, AR)).toBe(min.toFixed(3))
    await page.click(`th[data-key="${AR}"]`)
    expect(await firstRowScore(page, AR)).toBe(max.toFixed(3))
    // the errored item sorts last either way
    expect(await page.locator(`tr.item >> nth=-1 >> td[data-scorer="${AR}"]`).textContent()).toBe('error')
    await page.close()
  })

  it('the filter box narrows the rows (input, output, reasons); "errors only" keeps the failed items', async () => {
    const { page } = await open(join(dir, 'report.html'))
    const word = 'spider'
    const expected = out.items.filter((it) => JSON.stringify([it.input, it.output, it.id, it.groundTruth, scoreOf(it, AR) !== null ? it.results[AR].reason : '', it.results[FC]?.reason]).toLowerCase().includes(word)).length
    expect(expected).toBeGreaterThan(0)
    expect(expected).toBeLessThan(N)
    await page.fill('#q', word)
    expect(await page.locator('tr.item').count()).toBe(expected)
    for (const row of await page.locator('tr.item td:nth-child(3)').allTextContents()) expect(row.toLowerCase()).toContain(word)
    await page.fill('#q', '')
    expect(await page.locator('tr.item').count()).toBe(N)
    const failed = out.items.filter((it) => Object.keys(it.errors).length > 0 || it.targetError)
    expect(failed.length).toBe(1)
    await page.check('#errorsOnly')
    expect(await page.locator('tr.item').count()).toBe(1)
    expect(await page.locator('tr.item').getAttribute('data-index')).toBe(String(failed[0].index))
    await page.close()
  })

  it('clicking a row opens it: each scorer\'s reason, step results, prompts; a failed scorer\'s error', async () => {
    const { page } = await open(join(dir, 'report.html'))
    const it3 = out.items.find((x) => x.index === 3)
    await page.click('tr.item[data-index="3"]')
    const detail = page.locator('tr.detail')
    expect(await detail.count()).toBe(1)
    const text = (await detail.textContent()) as string
    expect(text).toContain(it3.results[AR].reason)
    expect(text).toContain(it3.results[FC].reason)
    expect(await detail.locator('details.step summary').allTextContents()).toContain('preprocessStepResult')
    const prompts = await detail.locator('details.prompt').all()
    expect(prompts.length).toBeGreaterThan(0)
    expect(await detail.locator('details.prompt summary').allTextContents()).toContain('analyzePrompt')
    const pre = detail.locator('div.scorer', { has: page.locator(`h3:text-is("${AR}")`) }).locator('details.prompt', { has: page.locator('summary:text-is("preprocessPrompt")') }).locator('pre')
    expect(it3.results[AR].preprocessPrompt).toContain(it3.output)
    expect(await pre.textContent()).toBe(it3.results[AR].preprocessPrompt)
    // the failed item shows its error
    await page.click('tr.item[data-index="2"]')
    expect(await page.locator('tr.detail').count()).toBe(2)
    expect(await page.locator('tr.detail').nth(0).textContent()).toMatch(/error OXEVAL_JUDGE_HTTP at step analyze: .*rejected by the judge/)
    // clicking again closes it
    await page.click('tr.item[data-index="3"]')
    expect(await page.locator('tr.detail').count()).toBe(1)
    if (process.env.OXEVAL_UPDATE_SCREENSHOT) {
      await page.click('tr.item[data-index="2"]')
      await page.click('tr.item[data-index="3"]')
      await page.setViewportSize({ width: 1280, height: 1000 })
      await page.evaluate(() => window.scrollTo(0, 0))
      await page.screenshot({ path: join(root, 'docs', 'report-screenshot.png'), fullPage: false })
    }
    await page.close()
  })

  it('markup in outputs and judge reasons is shown as text and never runs', async () => {
    const { page, external, errors } = await open(join(dir, 'report.html'))
    // the hostile strings really are in the results the report was made from
    expect(out.items.find((x) => x.index === 0).output).toBe(XSS_OUTPUT)
    expect(out.items.find((x) => x.index === 0).results[AR].reason).toContain(XSS_REASON)
    await page.click('tr.item[data-index="0"]')
    const detail = (await page.locator('tr.detail').textContent()) as string
    expect(detail).toContain(XSS_OUTPUT)
    expect(detail).toContain(XSS_REASON)
    expect(await page.locator('tr.item[data-index="0"] td:nth-child(4)').textContent()).toContain('<script>window.__xss = 1</script>')
    expect(await page.evaluate(() => (window as Any).__xss)).toBeUndefined()
    expect(await page.evaluate(() => document.scripts.length)).toBe(2)
    expect(await page.locator('img').count()).toBe(0)
    expect(await page.locator('#injected').count()).toBe(0)
    // control characters and a lone surrogate survive as text too
    await page.click('tr.item[data-index="1"]')
    expect(await page.locator('tr.detail').nth(1).textContent()).toContain('odd bytes')
    expect(external).toEqual([])
    expect(errors).toEqual([])
    await page.close()
  })

  it('the JUnit report is well-formed XML: a testsuite per scorer, a testcase per item, failures and errors where due', async () => {
    const xml = readFileSync(join(dir, 'report.xml'), 'utf8')
    const page = await context.newPage()
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'application/xml')
      const err = doc.querySelector('parsererror')
      const suites = [...doc.querySelectorAll('testsuite')].map((s) => ({
        name: s.getAttribute('name'),
        cases: s.querySelectorAll('testcase').length,
        failures: s.querySelectorAll('testcase > failure').length,
        errors: s.querySelectorAll('testcase > error').length,
        mean: s.querySelector('property[name="mean"]')?.getAttribute('value'),
      }))
      return { error: err ? err.textContent : null, suites, text: doc.documentElement.textContent }
    }, xml)
    await page.close()
    expect(parsed.error).toBeNull()
    // the run's own suite first: its outcome testcase fails (one item was not scored) and the threshold has its testcase
    expect(parsed.suites.map((s) => s.name)).toEqual(['oxeval', AR, FC])
    const thresholdFailed = !out.summary.thresholdResults[0].passed
    expect(parsed.suites[0]).toMatchObject({ name: 'oxeval', cases: 2, failures: thresholdFailed ? 2 : 1, errors: 0 })
    const below = out.items.filter((it) => scoreOf(it, AR) !== null && scoreOf(it, AR) < 0.5).length
    expect(below).toBeGreaterThan(0)
    // items under the threshold are failures only when the threshold failed for the run
    expect(parsed.suites[1]).toEqual({ name: AR, cases: N, failures: thresholdFailed ? below : 0, errors: 1, mean: String(out.summary.scores[AR]) })
    expect(parsed.suites[2]).toMatchObject({ name: FC, cases: N, failures: 0, errors: 0 })
    expect(parsed.text).toContain('<script>window.__xss = 1</script>')
  })

  it('10 000 items: one page of 100 rows, paging, sorting and filtering across all of them', async () => {
    const items = Array.from({ length: 10000 }, (_, i) => {
      const score = ((i * 7919) % 10007) / 10006
      return slimItem({
        index: i,
        id: `case-${i}`,
        input: `question number ${i}: ${'lorem ipsum '.repeat(8)}`,
        output: `answer ${i}`,
        results: { [AR]: { score, reason: `reason for ${i}`, preprocessPrompt: `DATA: {"output": "answer ${i}"}`, preprocessStepResult: { statements: [`answer ${i}`] } } },
        errors: {},
        durationMs: 5,
      })
    })
    const scores = items.map((it: Any) => it.results[AR].score)
    const mean = scores.reduce((a: number, b: number) => a + b, 0) / scores.length
    const file = join(dir, 'big.html')
    writeFileSync(
      file,
      renderHtmlReport({
        header: { scorers: [{ id: AR, threshold: 0.5 }], model: 'openai/x' },
        summary: { scores: { [AR]: mean }, coverage: { [AR]: { scored: 10000, total: 10000 } }, summary: { totalItems: 10000, failedItems: 0 }, trials: 1 },
        items,
      }),
    )
    const t0 = Date.now()
    const { page, external, errors } = await open(file)
    const loadMs = Date.now() - t0
    expect(loadMs).toBeLessThan(10000)
    expect(await page.locator('tr.item').count()).toBe(100)
    expect(await page.locator('#count').textContent()).toBe('1–100 of 10000 items')
    await page.click('#next')
    expect(await page.locator('tr.item >> nth=0').getAttribute('data-index')).toBe('100')
    await page.click(`th[data-key="${AR}"]`)
    expect(await firstRowScore(page, AR)).toBe(Math.min(...scores).toFixed(3))
    await page.click(`th[data-key="${AR}"]`)
    expect(await firstRowScore(page, AR)).toBe(Math.max(...scores).toFixed(3))
    await page.fill('#q', 'case-9999')
    expect(await page.locator('tr.item').count()).toBe(1)
    expect(await page.locator('#count').textContent()).toBe('1–1 of 1 items (filtered from 10000)')
    await page.click('tr.item')
    expect(await page.locator('tr.detail').textContent()).toContain('reason for 9999')
    expect(external).toEqual([])
    expect(errors).toEqual([])
    await page.close()
  }, 60000)
})
