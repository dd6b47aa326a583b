// Which native addon runs: `oxeval --version` and `oxeval run` name its build profile and the
// file it was loaded from (load-binding.js addonInfo, the binding's buildProfile()), and a debug
// build gets a one-line warning before a run of more than DEBUG_WARN_ITEMS items.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from './helpers/cli'
// @ts-expect-error: an .mjs module without types
import { DEBUG_WARN_ITEMS, addonLine, debugWarning } from '../cli/addon.mjs'

const require = createRequire(import.meta.url)
const VERSION: string = require('../package.json').version
const native = require('../load-binding.js')
const info: { profile: string; path: string | null } = native.addonInfo()

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'oxeval-addon-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** `n` items a check can score with no judge. */
function items(n: number) {
  const file = join(dir, `items-${n}.jsonl`)
  writeFileSync(file, Array.from({ length: n }, (_, i) => JSON.stringify({ input: `q${i}`, output: 'a b' })).join('\n') + '\n')
  return file
}
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

describe('the loaded addon', () => {
  it('addonInfo names a profile the binding reports and the .node file Node loaded', () => {
    expect(['debug', 'release']).toContain(info.profile)
    expect(info.profile).toBe(native.buildProfile())
    expect(info.path).toMatch(/\.node$/)
    expect(existsSync(info.path as string)).toBe(true)
    // not an enumerable export: Object.keys(binding) stays the generated list
    expect(Object.keys(native)).not.toContain('addonInfo')
  })

  it('oxeval --version: the version alone on stdout, the profile and path on stderr', async () => {
    const r = await runCli(['--version'], { cwd: dir })
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe(VERSION)
    expect(r.stderr.trim()).toBe(`oxeval: ${info.profile} addon, loaded from ${info.path}`)
  })

  it('NAPI_RS_NATIVE_LIBRARY_PATH: the path named is the one loaded', async () => {
    const copy = join(dir, 'elsewhere.node')
    require('node:fs').copyFileSync(info.path, copy)
    const r = await runCli(['--version'], { cwd: dir, env: { NAPI_RS_NATIVE_LIBRARY_PATH: copy } })
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(new RegExp(`${info.profile} addon, loaded from ${escape(realpathSync(copy))}`))
  })

  it('oxeval run names the addon at the start (stderr), not with --no-progress', async () => {
    const data = items(2)
    const r = await runCli(['run', '--data', data, '--scorer', 'includes("a")'], { cwd: dir })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr.split('\n')[0]).toBe(`oxeval ${VERSION}: ${info.profile} addon, loaded from ${info.path}`)
    const quiet = await runCli(['run', '--data', data, '--scorer', 'includes("a")', '--no-progress'], { cwd: dir })
    expect(quiet.stderr).toBe('')
  })

  it(`a run of more than ${DEBUG_WARN_ITEMS} items warns on a debug addon only (one line, even with --no-progress)`, async () => {
    const big = await runCli(['run', '--data', items(DEBUG_WARN_ITEMS + 1), '--scorer', 'includes("a")', '--no-progress'], { cwd: dir })
    expect(big.code, big.stderr).toBe(0)
    const small = await runCli(['run', '--data', items(DEBUG_WARN_ITEMS), '--scorer', 'includes("a")', '--no-progress'], { cwd: dir })
    expect(small.stderr).toBe('')
    if (info.profile === 'debug') {
      expect(big.stderr).toBe(`oxeval: warning: ${DEBUG_WARN_ITEMS + 1} items on a DEBUG build of the addon (${info.path}), several times slower than a release build; run \`npm run build\` in the oxeval checkout\n`)
    } else expect(big.stderr).toBe('')
  }, 60000)

  it('the warning and the line, for either profile', () => {
    const debug = { profile: 'debug', path: '/x/oxeval.node' }
    const release = { profile: 'release', path: '/x/oxeval.node' }
    expect(debugWarning(debug, DEBUG_WARN_ITEMS)).toBeNull()
    expect(debugWarning(debug, DEBUG_WARN_ITEMS + 1)).toMatch(/^oxeval: warning: 301 items on a DEBUG build of the addon \(\/x\/oxeval\.node\)/)
    expect(debugWarning(release, 100000)).toBeNull()
    expect(addonLine(release)).toBe('release addon, loaded from /x/oxeval.node')
    expect(addonLine({ profile: 'unknown', path: null })).toBe('unknown addon')
  })
})
