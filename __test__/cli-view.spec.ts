// `oxeval view` in headless Chromium (Debian's /usr/bin/chromium with playwright-core): two
// real runs written by the CLI; the list of runs, one run's report (and filtering its items),
// the comparison of the two. The viewer binds 127.0.0.1 and makes no request elsewhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'
import { CLI, jsonl, runCli } from './helpers/cli'

const CHROMIUM = '/usr/bin/chromium'
const haveChromium = existsSync(CHROMIUM)
const describeBrowser = haveChromium || process.env.CI ? describe : describe.skip

describeBrowser('oxeval view in headless Chromium', () => {
  let dir: string
  let child: ChildProcess
  let url: string
  let context: BrowserContext
  beforeAll(async () => {
    if (!haveChromium) throw new Error(`${CHROMIUM} is missing: CI must install Debian's chromium (apt-get install -y chromium)`)
    dir = mkdtempSync(join(tmpdir(), 'oxeval-view-'))
    mkdirSync(join(dir, 'runs'))
    const mod = join(dir, 'scorers.mjs')
    writeFileSync(mod, `import ox from ${JSON.stringify(join(process.cwd(), 'index.js'))}\nexport default ox.createScorer({ id: 'length', description: 'l' }).generateScore(({ run }) => Math.min(1, String(run.output).length / 20)).generateReason(({ score }) => 'length score ' + score)\n`)
    const items = (suffix: string) => Array.from({ length: 12 }, (_, i) => ({ id: `q${i}`, input: i === 3 ? 'needle question' : `question ${i}`, output: `answer ${i}${suffix}` }))
    writeFileSync(join(dir, 'a.jsonl'), jsonl(items(' with more words')))
    writeFileSync(join(dir, 'b.jsonl'), jsonl(items('')))
    for (const [data, out] of [['a.jsonl', 'runs/base.jsonl'], ['b.jsonl', 'runs/head.jsonl']]) {
      const r = await runCli(['run', '--data', join(dir, data), '--scorers', mod, '--out', join(dir, out), '--no-progress'])
      if (r.code !== 0) throw new Error(r.stderr)
    }
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
      viewport: { width: 1280, height: 900 },
    })
  }, 60000)
  afterAll(async () => {
    await context?.close()
    child?.kill('SIGINT')
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('lists the runs, opens one (its items filter), and compares two', async () => {
    const page = await context.newPage()
    const elsewhere: string[] = []
    page.on('request', (r) => {
      if (!r.url().startsWith(url)) elsewhere.push(r.url())
    })
    await page.goto(url)
    await page.waitForSelector('#runs tr[data-file]')
    const files = await page.$$eval('#runs tr[data-file]', (rows) => rows.map((r) => (r as HTMLElement).dataset.file))
    expect(files.sort()).toEqual(['runs/base.jsonl', 'runs/head.jsonl'])
    expect(await page.textContent('#runs')).toMatch(/length \d\.\d{3}/)
    // one run's report, and its item filter
    // (a page of its own, not a frame; an old `#/run/<file>` link leads there too)
    await page.click('a[href="run/runs%2Fbase.jsonl"]')
    await page.waitForSelector('#q')
    expect(await page.$$('iframe')).toEqual([])
    const before = await page.textContent('#count')
    await page.fill('#q', 'needle')
    await page.waitForFunction((b) => document.getElementById('count')!.textContent !== b, before)
    expect(await page.textContent('#count')).toMatch(/\b1\b/)
    await page.goto(`${url}#/run/runs%2Fbase.jsonl`)
    await page.waitForSelector('#q')
    expect(page.url()).toBe(`${url}run/runs%2Fbase.jsonl`)
    // compare the two
    await page.goto(url)
    await page.waitForSelector('#runs tr[data-file]')
    // ticked newest first: the older run is still the base
    await page.check('#runs tr[data-file="runs/head.jsonl"] input')
    await page.check('#runs tr[data-file="runs/base.jsonl"] input')
    await page.click('#compare')
    await page.waitForSelector('#comparison tr[data-scorer="length"]')
    expect(page.url()).toBe(`${url}#/compare/runs%2Fbase.jsonl/runs%2Fhead.jsonl`)
    expect(await page.textContent('#comparison tr[data-scorer="length"] td.verdict')).toBe('regressed')
    // the swap control: the same pairs the other way round, and the verdict follows
    await page.click('#swap')
    await page.waitForFunction(() => location.hash.startsWith('#/compare/runs%2Fhead'))
    await page.waitForSelector('#comparison tr[data-scorer="length"] td.verdict')
    expect(await page.textContent('#comparison tr[data-scorer="length"] td.verdict')).toBe('improved')
    await page.goBack()
    await page.waitForSelector('#comparison tr[data-scorer="length"] td.verdict')
    await page.screenshot({ path: join(process.cwd(), '.demo', 'view-compare.png') }).catch(() => {})
    expect(elsewhere).toEqual([])
    await page.close()
  })
})

describeBrowser('oxeval view: the results store history in headless Chromium', () => {
  let dir: string
  let child: ChildProcess
  let url: string
  let context: BrowserContext
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'oxeval-view-store-'))
    const data = join(dir, 'd.jsonl')
    for (const [k, outputs] of [['main', ['Paris', 'Rome', 'Rome']], ['feature', ['Paris', 'Paris', 'Rome']], ['feature', ['Paris', 'Paris', 'Paris']]] as const) {
      writeFileSync(data, jsonl(outputs.map((output, i) => ({ id: `q${i}`, input: `question ${i}`, output }))))
      const r = await runCli(['run', '--data', data, '--scorer', 'includes("Paris")', '--tag', k, '--no-progress'], { cwd: dir, env: { OXEVAL_STORE: undefined, GITHUB_REF_NAME: k } })
      if (r.code !== 0) throw new Error(r.stderr)
    }
    child = spawn(process.execPath, [CLI, 'view', '--port', '0'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, OXEVAL_STORE: '' } })
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
      viewport: { width: 1280, height: 900 },
    })
  }, 60000)
  afterAll(async () => {
    await context?.close()
    child?.kill('SIGINT')
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('one trend chart per scorer (a point per run, oldest → newest), a tag filter, a point opens its run', async () => {
    const page = await context.newPage()
    await page.goto(`${url}#/history`)
    await page.waitForSelector('svg.trend circle')
    expect(await page.$$eval('svg.trend', (s) => s.map((x) => x.getAttribute('data-scorer')))).toEqual(['check-includes'])
    const ys = await page.$$eval('svg.trend circle', (cs) => cs.map((c) => Number(c.getAttribute('cy'))))
    // means 1/3, 2/3, 1 oldest → newest: the line rises (smaller y is higher)
    expect(ys).toHaveLength(3)
    expect(ys[0]).toBeGreaterThan(ys[1])
    expect(ys[1]).toBeGreaterThan(ys[2])
    await page.goto(`${url}#/history?branch=&tag=main`)
    await page.waitForFunction(() => document.querySelectorAll('svg.trend circle').length === 1)
    // the stored run's report is a page of its own (no frame), with a link back to the history
    await Promise.all([page.waitForURL(/\/stored\/[0-9a-f]+$/), page.click('svg.trend circle')])
    await page.waitForSelector('#q')
    expect(await page.textContent('body')).toMatch(/Rome/)
    expect(await page.$$('iframe')).toEqual([])
    // the branch filter (its choices: the store's branches and tags), the two runs on feature
    await page.goto(`${url}#/history?branch=feature&tag=`)
    await page.waitForFunction(() => document.querySelectorAll('#tag-choices option').length === 2)
    expect(await page.$$eval('#branch-choices option', (os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(['feature', 'main'])
    await page.waitForFunction(() => document.querySelectorAll('svg.trend circle').length === 2)
    expect(await page.$$eval('#stored-runs tr[data-run]', (rows) => rows.map((r) => r.children[3].textContent))).toEqual(['feature', 'feature'])
    await page.close()
  })

  it('any two stored runs open their comparison (the older the base, whatever the order of the ticks), with a swap', async () => {
    const page = await context.newPage()
    await page.goto(`${url}#/history`)
    await page.waitForSelector('#stored-runs tr[data-run]')
    const ids = await page.$$eval('#stored-runs tr[data-run]', (rows) => rows.map((r) => (r as HTMLElement).dataset.run!))
    expect(ids).toHaveLength(3)
    const [newest, , oldest] = ids
    expect(await page.isDisabled('#compare-stored')).toBe(true)
    await page.check(`#stored-runs tr[data-run="${newest}"] input`)
    await page.check(`#stored-runs tr[data-run="${oldest}"] input`)
    await page.click('#compare-stored')
    await page.waitForSelector('#comparison tr[data-scorer="check-includes"]')
    expect(page.url()).toBe(`${url}#/compare/run:${oldest}/run:${newest}`)
    const cells = await page.$$eval('#comparison tr[data-scorer="check-includes"] td', (tds) => tds.map((td) => td.textContent))
    // 1/3 → 1 over three items: too few to tell, and it says so
    expect(cells.slice(1, 4)).toEqual(['0.333', '1.000', '+0.667'])
    expect(cells[7]).toMatch(/^unchanged \(too few items to tell: ≥ 6 needed\)$/)
    await page.click('#swap')
    await page.waitForFunction((id) => decodeURIComponent(location.hash) === `#/compare/run:${id[0]}/run:${id[1]}`, [newest, oldest])
    await page.waitForFunction(() => document.querySelector('#comparison tr[data-scorer="check-includes"] td:nth-child(4)')?.textContent === '-0.667')
    await page.close()
  })
})
