// `npm test` step: the Vitest matchers type-check (`tsc --strict --noEmit`) in two separate apps
// that use oxeval as a user does, each with its OWN copy of Vitest:
//   tarball   installs `npm pack` of this checkout (plus its runtime dependencies), the setup file
//             configured as documented (`setupFiles: ['oxeval/vitest/setup']`)
//   checkout  installs a checkout folder (`npm install /path/to/oxeval`: a symlink) whose own
//             node_modules holds another Vitest (a checkout a developer ran `npm install` in)
// Offline: every package comes from a tarball packed from this checkout's node_modules
// (`npm install --offline`, an empty npm cache). The checkout folder is a staged copy: npm never
// writes into this checkout or its node_modules. Exit 0 when both apps compile, 1 otherwise;
// `--keep` keeps the work folder.
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const keep = process.argv.includes('--keep')
const work = mkdtempSync(join(tmpdir(), 'oxeval-typed-apps-'))
const env = { ...process.env, npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' }
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env, ...opts })
  return { ...r, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, ok: r.status === 0 }
}
function fail(what, out) {
  console.log(`FAIL ${what}\n${out.slice(-3000)}`)
  if (!keep) rmSync(work, { recursive: true, force: true })
  process.exit(1)
}

const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages
/** The lock path a package `name` required from lock path `from` resolves to (Node's walk up). */
function resolveIn(from, name) {
  for (let base = from; ; ) {
    const p = `${base ? `${base}/` : ''}node_modules/${name}`
    if (lock[p]) return p
    if (!base) return null
    const i = base.lastIndexOf('/node_modules/')
    base = i < 0 ? '' : base.slice(0, i)
  }
}
/** Lock paths of `names` and everything they need (optional peers only when installed). */
function closure(names) {
  const seen = new Set()
  const walk = (p) => {
    if (!p || seen.has(p)) return
    seen.add(p)
    const m = lock[p]
    for (const d of Object.keys({ ...m.dependencies, ...m.peerDependencies })) walk(resolveIn(p, d))
  }
  for (const n of names) walk(`node_modules/${n}`)
  return [...seen].filter((p) => !lock[p].optional)
}
/** `npm pack` of lock paths from this checkout's node_modules, in one npm process. */
function packAll(paths, dest) {
  mkdirSync(dest, { recursive: true })
  const r = sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dest, ...paths.map((p) => join(root, p))], { cwd: root })
  if (!r.ok) fail('npm pack of the dependencies', r.out)
  return JSON.parse(r.stdout).map((i) => join(dest, i.filename))
}
function install(dir, pkg, specs) {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2))
  const r = sh('npm', ['install', '--offline', '--ignore-scripts', '--no-package-lock', ...specs], { cwd: dir })
  if (!r.ok) fail(`npm install --offline in ${dir}`, r.out)
}

const runtime = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).dependencies ?? {})
const runtimeTgz = packAll(closure(runtime), join(work, 'deps-runtime'))
const vitestTgz = packAll(closure(['vitest']), join(work, 'deps-vitest'))

// the checkout folder: the files a checkout holds (npm's own list) and a node_modules of its own
const checkout = join(work, 'oxeval-checkout')
const listed = sh('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root })
if (!listed.ok) fail('npm pack --dry-run', listed.out)
for (const { path } of JSON.parse(listed.stdout)[0].files) {
  mkdirSync(dirname(join(checkout, path)), { recursive: true })
  copyFileSync(join(root, path), join(checkout, path))
}
const pkg = JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8'))
// the devDependencies a checkout's `npm install` brings are not all packed here: Vitest's stand in
writeFileSync(join(checkout, 'package.json'), JSON.stringify({ name: pkg.name, version: pkg.version, private: true }))
const r = sh('npm', ['install', '--offline', '--ignore-scripts', '--no-package-lock', '--no-save', ...runtimeTgz, ...vitestTgz], { cwd: checkout })
if (!r.ok) fail('npm install in the checkout copy', r.out)
writeFileSync(join(checkout, 'package.json'), JSON.stringify(pkg, null, 2))
const packed = sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: checkout })
if (!packed.ok) fail('npm pack of oxeval', packed.out)
const oxevalTgz = join(work, JSON.parse(packed.stdout)[0].filename)

const app = { name: 'app', version: '0.0.0', private: true, type: 'module' }
const TEST = `import { expect, test } from 'vitest'
import { runEvals, type RunEvalsResult } from 'oxeval'

declare const result: RunEvalsResult<any>

test('matchers', async () => {
  expect(result).toHaveScoreAbove('answer-relevancy', 0.7)
  expect(result).toHaveScoreBelow(0.9)
  expect(result).toHaveVerdict('passed')
  expect(result).toPassGates()
  expect(result).not.toPassThresholds()
  expect(result).toAgreeWithLabels(0.6, 'answer-relevancy')
  await expect(Promise.resolve(result)).resolves.toHaveScoreAbove(0.5)
  expect.soft(result).toHaveScoreAbove(0.5)
  expect({ r: result }).toEqual({ r: expect.toHaveScoreAbove(0.5) })
  // @ts-expect-error a verdict is one of three words
  expect(result).toHaveVerdict('great')
  // @ts-expect-error the minimum is a number
  expect(result).toHaveScoreAbove('answer-relevancy', 'high')
  void runEvals
})
`
const CONFIG = `import { defineConfig } from 'vitest/config'
export default defineConfig({ test: { setupFiles: ['oxeval/vitest/setup'] } })
`
function typedApp(name, oxevalSpec) {
  const dir = join(work, name)
  install(dir, app, [oxevalSpec, ...runtimeTgz, ...vitestTgz])
  writeFileSync(join(dir, 'matchers.test.ts'), TEST)
  writeFileSync(join(dir, 'vitest.config.ts'), CONFIG)
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', skipLibCheck: true, types: ['oxeval/vitest/setup'] },
      include: ['*.ts'],
    }),
  )
  const t = sh(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir })
  console.log(`${t.ok ? 'ok  ' : 'FAIL'} the matchers type-check (tsc --strict) in an app that installed the ${name}`)
  if (!t.ok) console.log(t.out.slice(-3000))
  return t.ok
}
const ok = [typedApp('tarball', oxevalTgz), typedApp('checkout', checkout)].every(Boolean)
if (!keep) rmSync(work, { recursive: true, force: true })
else console.log(`kept ${work}`)
process.exit(ok ? 0 : 1)
