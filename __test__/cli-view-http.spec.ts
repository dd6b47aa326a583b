// `oxeval view` over real HTTP (no browser): one odd run file does not take the viewer down
// (it is listed as unreadable, with the reason; the good runs work), and a request addressed
// to another host (DNS rebinding) is refused with 421; every response keeps other origins out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLI, jsonl, runCli } from './helpers/cli'

let dir: string
let child: ChildProcess
let port: number

/** GET `path` with the given Host header: status, headers, body. */
function get(path: string, host: string | null = `127.0.0.1:${port}`): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    // host null: no Host header at all
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', setHost: false, headers: host === null ? {} : { host } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'oxeval-view-http-'))
  const mod = join(dir, 'scorers.mjs')
  writeFileSync(mod, `import ox from ${JSON.stringify(join(process.cwd(), 'index.js'))}\nexport default ox.createScorer({ id: 'length', description: 'l' }).generateScore(({ run }) => Math.min(1, String(run.output).length / 20))\n`)
  writeFileSync(join(dir, 'items.jsonl'), jsonl([{ id: 'a', input: 'q', output: 'an answer' }]))
  const r = await runCli(['run', '--data', join(dir, 'items.jsonl'), '--scorers', mod, '--out', join(dir, 'good.jsonl'), '--no-progress'])
  if (r.code !== 0) throw new Error(r.stderr)
  // the odd file: a run header whose scorers are not a list
  writeFileSync(join(dir, 'odd.jsonl'), jsonl([{ type: 'run', scorers: 'x', startedAt: '2020-01-01T00:00:00Z' }, { type: 'item', index: 0 }]))
  child = spawn(process.execPath, [CLI, 'view', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
  port = await new Promise<number>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d) => {
      out += d
      const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(out)
      if (m) resolve(Number(m[1]))
    })
    child.on('exit', (code) => reject(new Error(`view exited ${code}`)))
  })
}, 60000)
afterAll(() => {
  child?.kill('SIGINT')
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('oxeval view over HTTP', () => {
  it('one odd run file ("scorers":"x") is listed as unreadable with the reason; the good run lists and opens', async () => {
    const list = await get('/api/runs')
    expect(list.status).toBe(200)
    const runs = JSON.parse(list.body)
    const good = runs.find((r: { file: string }) => r.file === 'good.jsonl')
    const odd = runs.find((r: { file: string }) => r.file === 'odd.jsonl')
    expect(good).toMatchObject({ scorers: ['length'], items: 1 })
    expect(odd.unreadable).toMatch(/scorers is not a list/)
    expect((await get('/run/good.jsonl')).status).toBe(200)
    expect((await get('/')).status).toBe(200)
    const page = await get('/run/odd.jsonl')
    expect(page.status).not.toBe(500)
  })

  it('refuses a request addressed to another host (DNS rebinding) with 421; answers its own names', async () => {
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1:${port + 1}`, `127.0.0.2:${port}`, '127.0.0.1', null]) {
      const r = await get('/api/runs', host)
      // no Host at all: Node's server answers 400 before the viewer sees it
      expect(r.status, String(host)).toBe(host === null ? 400 : 421)
      expect(r.body).not.toContain('good.jsonl')
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      expect((await get('/api/runs', host)).status, host).toBe(200)
    }
  })

  it('every response keeps other origins out: no CORS, CORP same-origin, not framed elsewhere, nosniff, no referrer', async () => {
    for (const path of ['/', '/api/runs', '/run/good.jsonl', '/nothing']) {
      const { headers } = await get(path)
      expect(headers['access-control-allow-origin'], path).toBeUndefined()
      expect(headers['cross-origin-resource-policy'], path).toBe('same-origin')
      expect(headers['x-frame-options'], path).toBe('SAMEORIGIN')
      expect(String(headers['content-security-policy']), path).toContain("frame-ancestors 'self'")
      expect(headers['x-content-type-options'], path).toBe('nosniff')
      expect(headers['referrer-policy'], path).toBe('no-referrer')
    }
  })
})
