// `npm run pack:check`: what `npm publish` would ship, checked the way a consumer gets it.
//   1. release build (napi, cached by cargo) into <cargo target dir>/oxeval-pack/; the checkout's
//      binding.js / binding.d.ts must be what napi generates from these sources
//   2. stage the main package (npm's own file list) and npm/<platform>/, copy the addon in with
//      `napi artifacts`, add optionalDependencies with `napi pre-publish`, `npm pack` both
//   3. a fresh project installs both tarballs with `npm install --offline` (empty npm cache,
//      no cargo on PATH): ESM import, CJS require, tsc --strict, one scorer run against the local
//      scripted judge; a second project without the platform package gets oxeval's error
//   4. sizes, require() cold start and the first run's extra cost
// Last line: `pack:check: passed` or `pack:check: FAILED (…)`; exit code 0/1.
import { spawn, spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { buildPrerequisites, cargoTargetDir, displayPath, HOST_TARGET, napiBuild, napiCli, printBuildLog, root } from './build-lib.mjs'

// the main tarball is JS, types and docs only (the README was ~166 kB unpacked before it moved to docs/; batch mode and
// runEvals for agents brought it from 250 kB to ~259 kB packed): the limit catches a stray binary
// or build folder, not growth of the facade
// the addon: 7.0 MB before the code scorers; the ECMAScript regex engine of `matches` (regress,
// ~0.75 MB of Unicode tables), the ICU normalizer (NFD for completeness), the vendored word lists
// (AFINN-165, emoji scores, SMART) and 26 more scorers and checks brought it past 9 MB; the results
// store's SQLite, compiled in (rusqlite `bundled`: nothing to install), adds ~1.7 MB (11.43 MB;
// 11.63 MB with Ragas's non-LLM metrics); packed, the platform tarball went from ~4.7 to 5.25 MB.
// 2026-12-07: 18.97 MB (8.62 MB packed): OpenAI's o200k_base and cl100k_base token tables for
// `--estimate` (tiktoken-rs, 5.3 MB of base64 text), the PostgreSQL client with rustls TLS, zstd
// for the store, the embeddings road and the classifier. Limits raised to catch the next jump, not
// to bless this one: the token tables are the first to shrink (stored compressed, or loaded on
// first use of --estimate).
const LIMITS = { node: 19.5e6, mainPacked: 300e3, platformPacked: 9e6 } // bytes (MB = 10^6)
const HOST = 'linux-x64-gnu' // the one platform package this machine can build and verify
const keep = process.argv.includes('--keep')

const failures = []
function check(name, ok, detail = '') {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`)
  if (!ok) failures.push(name)
  return ok
}
function finish() {
  console.log(failures.length ? `pack:check: FAILED (${failures.join('; ')})` : 'pack:check: passed')
  if (!keep) rmSync(work, { recursive: true, force: true })
  else console.log(`kept ${work}`)
  process.exit(failures.length ? 1 : 0)
}
const kb = (n) => `${(n / 1e3).toFixed(1)} kB`
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts })
  return { ...r, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, ok: r.status === 0 }
}
/** Async, so that the judge server in this process keeps answering while the child runs. */
function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let stdout = ''
    child.stdout.on('data', (d) => {
      out += d
      stdout += d
    })
    child.stderr.on('data', (d) => (out += d))
    child.on('error', (e) => resolve({ ok: false, out: String(e), stdout }))
    child.on('close', (code) => resolve({ ok: code === 0, out, stdout }))
  })
}
const napi = (args, cwd) => sh(process.execPath, [napiCli(), ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } })

const missing = buildPrerequisites()
if (missing) {
  console.error(missing)
  console.log('pack:check: FAILED (prerequisites)')
  process.exit(1)
}
const work = mkdtempSync(join(tmpdir(), 'oxeval-pack-check-'))
const t0 = performance.now()

// 1. release build ----------------------------------------------------------------------------
const buildDir = join(cargoTargetDir(), 'oxeval-pack')
mkdirSync(buildDir, { recursive: true })
process.stdout.write('release build (lto; the first one takes several minutes) … ')
const built = await napiBuild({ release: true, outputDir: buildDir })
console.log(built.ok ? `done in ${(built.ms / 1000).toFixed(0)} s (log: ${displayPath(built.log)})` : 'failed')
if (!built.ok) {
  printBuildLog(built.log)
  check('release build', false)
  finish()
}
const nodeFile = `oxeval.${HOST}.node`
for (const f of ['binding.js', 'binding.d.ts']) {
  const same = existsSync(join(root, f)) && readFileSync(join(root, f), 'utf8') === readFileSync(join(buildDir, f), 'utf8')
  check(`${f} in the checkout is what napi generates`, same, same ? '' : 'stale: run `npm run build` and commit it')
}

// 2. stage and pack ---------------------------------------------------------------------------
const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const stage = join(work, 'stage')
const listed = sh('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root })
for (const { path } of JSON.parse(listed.stdout)[0].files) {
  mkdirSync(dirname(join(stage, path)), { recursive: true })
  copyFileSync(join(root, path), join(stage, path))
}
cpSync(join(root, 'npm'), join(stage, 'npm'), { recursive: true })
const platformDirs = readdirSync(join(stage, 'npm')).sort()
const targetsAgree = platformDirs.length === rootPkg.napi.targets.length && platformDirs.includes(HOST)
check('npm/ has one platform package per napi target', targetsAgree, targetsAgree ? platformDirs.join(', ') : `npm/: ${platformDirs.join(', ')}; run \`napi create-npm-dirs\``)
const loaderList = readFileSync(join(root, 'load-binding.js'), 'utf8').match(/const PREBUILT = \[([^\]]*)\]/)
const prebuilt = loaderList ? [...loaderList[1].matchAll(/'([^']+)'/g)].map((m) => m[1]).sort() : []
check("load-binding.js's platform list matches npm/", prebuilt.join() === platformDirs.join(), prebuilt.join(', '))

// `napi artifacts` and `napi pre-publish` want every configured target's addon: only this host's
// exists here, so they run over this target alone; all targets are then declared the same way.
const stagedPkgPath = join(stage, 'package.json')
writeFileSync(stagedPkgPath, JSON.stringify({ ...rootPkg, napi: { ...rootPkg.napi, targets: [HOST_TARGET] } }, null, 2))
const art = napi(['artifacts', '--output-dir', buildDir, '--npm-dir', 'npm'], stage)
const platDir = join(stage, 'npm', HOST)
if (!check(`napi artifacts copies the addon into npm/${HOST}`, art.ok && existsSync(join(platDir, nodeFile)), art.ok ? '' : art.out.slice(-2000))) finish()
copyFileSync(join(root, 'LICENSE'), join(platDir, 'LICENSE'))
const pre = napi(['pre-publish', '--skip-optional-publish', '--no-gh-release', '--npm-dir', 'npm'], stage)
const afterPre = JSON.parse(readFileSync(stagedPkgPath, 'utf8'))
const expectedDep = { [`oxeval-${HOST}`]: rootPkg.version }
check('napi pre-publish declares the platform package', pre.ok && JSON.stringify(afterPre.optionalDependencies) === JSON.stringify(expectedDep), pre.ok ? JSON.stringify(afterPre.optionalDependencies) : pre.out.slice(-2000))
const optionalDependencies = Object.fromEntries(platformDirs.map((d) => [JSON.parse(readFileSync(join(stage, 'npm', d, 'package.json'), 'utf8')).name, rootPkg.version]))
writeFileSync(stagedPkgPath, `${JSON.stringify({ ...rootPkg, optionalDependencies }, null, 2)}\n`)

const tarballs = join(work, 'tarballs')
mkdirSync(tarballs)
function pack(dir) {
  const r = sh('npm', ['pack', '--json', '--pack-destination', tarballs], { cwd: dir })
  if (!r.ok) return null
  const [info] = JSON.parse(r.stdout)
  return { ...info, tgz: join(tarballs, info.filename), paths: info.files.map((f) => f.path) }
}
const main = pack(stage)
const plat = pack(platDir)
if (!check('npm pack (main and platform package)', main && plat)) finish()

const mainPkg = JSON.parse(readFileSync(stagedPkgPath, 'utf8'))
const nodeSize = statSync(join(platDir, nodeFile)).size
check(`${nodeFile} ≤ ${mb(LIMITS.node)}`, nodeSize <= LIMITS.node, mb(nodeSize))
check(`main tarball ≤ ${kb(LIMITS.mainPacked)}, no binary`, main.size <= LIMITS.mainPacked && !main.paths.some((p) => p.endsWith('.node')), `${kb(main.size)} packed, ${kb(main.unpackedSize)} unpacked, ${main.entryCount} files`)
check(`platform tarball ≤ ${mb(LIMITS.platformPacked)}`, plat.size <= LIMITS.platformPacked, `${mb(plat.size)} packed, ${mb(plat.unpackedSize)} unpacked`)
check('LICENSE in both tarballs', main.paths.includes('LICENSE') && plat.paths.includes('LICENSE'))
const referenced = new Set([mainPkg.main, mainPkg.types].filter(Boolean).map((p) => p.replace(/^\.\//, '')))
const walk = (v) => (typeof v === 'string' ? referenced.add(v.replace(/^\.\//, '')) : v && typeof v === 'object' && Object.values(v).forEach(walk))
walk(mainPkg.exports)
const dangling = [...referenced].filter((p) => !main.paths.includes(p))
check('every main/types/exports target is in the tarball', dangling.length === 0, dangling.join(', '))
const installScripts = ['preinstall', 'install', 'postinstall', 'prepare'].filter((s) => mainPkg.scripts?.[s])
check('no install/prepare script runs for consumers', installScripts.length === 0 && !plat.paths.some((p) => p === 'binding.gyp'), installScripts.join(', '))

// 3. a consumer project -----------------------------------------------------------------------
const isExe = (p) => {
  try {
    return statSync(p).isFile()
  } catch {
    return false
  }
}
const PATH = process.env.PATH.split(delimiter).filter((d) => d && !isExe(join(d, 'cargo')) && !isExe(join(d, 'rustc'))).join(delimiter)
const consumerEnv = { ...process.env, PATH, npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false', CARGO_HOME: join(work, 'no-cargo'), RUSTUP_HOME: join(work, 'no-rustup') }
delete consumerEnv.NAPI_RS_NATIVE_LIBRARY_PATH
check('cargo is not on the consumer PATH', sh('cargo', ['--version'], { env: consumerEnv }).error?.code === 'ENOENT')

function project(name, tgzs) {
  const dir = join(work, name)
  mkdirSync(dir)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '0.0.0', private: true }))
  const r = sh('npm', ['install', '--offline', '--no-audit', '--no-fund', ...tgzs], { cwd: dir, env: consumerEnv })
  const noise = r.out.split('\n').filter((l) => /^npm (warn|error)/i.test(l))
  return { dir, ok: r.ok, out: r.out, noise }
}
// oxeval's runtime dependencies (the CLI's): packed from this checkout's node_modules, so the
// consumer install stays offline (a real install fetches them from the registry)
function runtimeDepTarballs() {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'))
  const dir = join(work, 'deps')
  mkdirSync(dir, { recursive: true })
  const out = []
  for (const [path, meta] of Object.entries(lock.packages ?? {})) {
    if (!path.startsWith('node_modules/') || meta.dev || meta.devOptional || meta.optional || meta.peer) continue
    const r = sh('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', dir, join(root, path)], { cwd: root })
    if (!r.ok) throw new Error(`npm pack ${path} failed: ${r.out.slice(-500)}`)
    out.push(join(dir, r.stdout.trim().split('\n').pop()))
  }
  return out
}
const deps = runtimeDepTarballs()
check('runtime dependencies are few and small', deps.length <= 12, deps.map((d) => d.split(/[\\/]/).pop()).join(', '))
const app = project('consumer', [main.tgz, plat.tgz, ...deps])
check('npm install --offline of both tarballs, silently', app.ok && app.noise.length === 0, app.ok ? app.noise.join(' | ') : app.out.slice(-2000))
if (!app.ok) finish()
const installed = join(app.dir, 'node_modules', 'oxeval')
check('the installed oxeval holds no .node (the addon comes from the platform package)', !readdirSync(installed).some((f) => f.endsWith('.node')) && existsSync(join(app.dir, 'node_modules', `oxeval-${HOST}`, nodeFile)))

// subpaths that need an optional peer dependency (not installed here) are checked apart
const PEER_SUBPATHS = { './mastra': '@mastra/core', './vitest': 'vitest', './vitest/setup': 'vitest' }
const subpaths = Object.keys(mainPkg.exports).filter((k) => !k.endsWith('.json') && !(k in PEER_SUBPATHS))
const cjsSubpaths = subpaths.filter((k) => typeof mainPkg.exports[k] === 'string' || mainPkg.exports[k].require || mainPkg.exports[k].default)
const spec = (k) => (k === '.' ? 'oxeval' : `oxeval/${k.slice(2)}`)
writeFileSync(
  join(app.dir, 'esm.mjs'),
  `import oxeval, { createAnswerRelevancyScorer, Scorer } from 'oxeval'
import { createRequire } from 'node:module'
if (typeof createAnswerRelevancyScorer !== 'function' || oxeval.createAnswerRelevancyScorer !== createAnswerRelevancyScorer || typeof Scorer !== 'function') throw new Error('ESM exports')
for (const s of ${JSON.stringify(subpaths.map(spec))}) await import(s)
const require = createRequire(import.meta.url)
console.log(require.resolve('oxeval-${HOST}'))
`,
)
writeFileSync(
  join(app.dir, 'cjs.cjs'),
  `const oxeval = require('oxeval')
if (typeof oxeval.createAnswerRelevancyScorer !== 'function' || typeof oxeval.ScorerRunError !== 'function') throw new Error('CJS exports')
for (const s of ${JSON.stringify(cjsSubpaths.map(spec))}) require(s)
`,
)
const esm = sh(process.execPath, ['esm.mjs'], { cwd: app.dir, env: consumerEnv })
check('ESM import (every exports subpath)', esm.ok && esm.stdout.includes(join('node_modules', `oxeval-${HOST}`)), esm.ok ? subpaths.map(spec).join(', ') : esm.out.slice(-2000))
const cjs = sh(process.execPath, ['cjs.cjs'], { cwd: app.dir, env: consumerEnv })
check('CJS require', cjs.ok, cjs.ok ? cjsSubpaths.map(spec).join(', ') : cjs.out.slice(-2000))

const bin = sh(join(app.dir, 'node_modules', '.bin', 'oxeval'), ['--version'], { cwd: app.dir, env: consumerEnv })
check('the CLI runs from the installed package (npx oxeval --version)', bin.ok && bin.stdout.trim() === mainPkg.version, bin.ok ? bin.stdout.trim() : bin.out.slice(-1000))
// and names the addon it loaded: the platform package's release build
const addonLine = (bin.stderr ?? '').trim()
check('the CLI names the release addon of the platform package', addonLine.startsWith('oxeval: release addon, loaded from ') && addonLine.includes(join('node_modules', `oxeval-${HOST}`)), addonLine)

// without its optional peer, a peer subpath fails at import with an error naming the peer; an
// ESM-only subpath is not exported to require(). A pass prints each error's first line (the
// children's stack traces only when the check fails).
const errorLine = (out) => (out.split('\n').find((l) => /^\w*Error\b/.test(l.trim())) ?? out.trim().split('\n')[0] ?? '').trim().slice(0, 160)
for (const [sub, peer] of Object.entries(PEER_SUBPATHS)) {
  if (!(sub in mainPkg.exports)) continue
  const esmOnly = typeof mainPkg.exports[sub] === 'object' && !mainPkg.exports[sub].require && !mainPkg.exports[sub].default
  writeFileSync(join(app.dir, 'peer.cjs'), `require(${JSON.stringify(spec(sub))})`)
  writeFileSync(join(app.dir, 'peer.mjs'), `await import(${JSON.stringify(spec(sub))})`)
  const c = sh(process.execPath, ['peer.cjs'], { cwd: app.dir, env: consumerEnv })
  const m = sh(process.execPath, ['peer.mjs'], { cwd: app.dir, env: consumerEnv })
  const cjsOk = !c.ok && (esmOnly ? c.out.includes('ERR_PACKAGE_PATH_NOT_EXPORTED') : c.out.includes(peer))
  const esmOk = !m.ok && m.out.includes(peer)
  const name = esmOnly ? `${spec(sub)} without ${peer}: import fails naming it (require: ESM only, not exported)` : `${spec(sub)} without ${peer}: a clear error naming it (CJS and ESM)`
  check(name, cjsOk && esmOk, cjsOk && esmOk ? `require: ${errorLine(c.out)} | import: ${errorLine(m.out)}` : `${c.out.slice(-500)}\n${m.out.slice(-500)}`)
}

// types: typescript and @types/node come from this checkout's node_modules, by path
writeFileSync(
  join(app.dir, 'consumer.mts'),
  `import oxeval, { createAnswerRelevancyScorer, ScorerRunError, type AnswerRelevancyResult } from 'oxeval'
export async function f(url: string): Promise<number> {
  const scorer = createAnswerRelevancyScorer({ model: { id: 'openai/judge', url } })
  const r: AnswerRelevancyResult = await scorer.run({ input: 'q', output: 'a' })
  const statements: string[] = r.preprocessStepResult.statements
  const same: typeof createAnswerRelevancyScorer = oxeval.createAnswerRelevancyScorer
  // @ts-expect-error the model is required
  createAnswerRelevancyScorer({})
  return r.score + statements.length + (same === createAnswerRelevancyScorer ? 0 : 1) + (new Error() instanceof ScorerRunError ? 1 : 0)
}
`,
)
writeFileSync(
  join(app.dir, 'consumer.cts'),
  `import oxeval = require('oxeval')
export async function g(url: string): Promise<number> {
  const r = await oxeval.createFactualCorrectnessScorer({ model: { id: 'openai/judge', url }, mode: 'f1' }).run({ input: 'q', output: 'a', groundTruth: 'b' })
  return r.score
}
`,
)
writeFileSync(
  join(app.dir, 'tsconfig.json'),
  JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', types: ['node'], typeRoots: [join(root, 'node_modules', '@types')], skipLibCheck: false },
    files: ['consumer.mts', 'consumer.cts'],
  }),
)
const tsc = sh(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: app.dir, env: consumerEnv })
check('types compile (tsc --strict, NodeNext, ESM and CJS)', tsc.ok, tsc.ok ? '' : tsc.out.slice(-2000))

// one scorer run against the scripted judge, started from this checkout (not from the package)
const { startJudgeServer, heuristicJudge } = await import(pathToFileURL(join(root, 'testing', 'judge-server.mjs')).href)
const judge = await startJudgeServer({ handler: heuristicJudge })
writeFileSync(
  join(app.dir, 'run.mjs'),
  `import { inspect } from 'node:util'
import { createAnswerRelevancyScorer } from 'oxeval'
const model = { id: 'openai/scripted-judge', url: process.argv[2] }
const runs = Number(process.argv[3] ?? 1)
const t0 = performance.now()
const scorer = createAnswerRelevancyScorer({ model })
const times = [performance.now() - t0]
let r
for (let i = 0; i < runs; i++) {
  const t = performance.now()
  r = await scorer.run({ input: 'What is the capital of France?', output: 'Paris is the capital of France.' })
  times.push(performance.now() - t)
}
if (typeof r.score !== 'number' || !(r.score >= 0 && r.score <= 1)) throw new Error('bad score ' + r.score)
console.log(JSON.stringify({ score: r.score, times, inspected: inspect(scorer) }))
`,
)
const scored = await run(process.execPath, ['run.mjs', judge.url], { cwd: app.dir, env: consumerEnv })
let runInfo
try {
  runInfo = JSON.parse(scored.stdout.trim().split('\n').pop())
} catch {}
check('a scorer runs against the local scripted judge', scored.ok && runInfo, scored.ok ? `answer relevancy score ${runInfo?.score}` : scored.out.slice(-2000))

// without the platform package: oxeval's own error, naming the platform and the ways out
const bare = project('no-platform-package', [main.tgz, ...deps])
const bareRun = bare.ok && sh(process.execPath, ['-e', "try { require('oxeval'); process.exit(3) } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }"], { cwd: bare.dir, env: consumerEnv })
let bareErr
try {
  bareErr = JSON.parse(bareRun.stdout)
} catch {}
check(
  'without the platform package: an error naming the platform and the ways out',
  bareErr?.code === 'OXEVAL_NATIVE_ADDON_NOT_FOUND' && bareErr.message.includes(HOST) && bareErr.message.includes(`oxeval-${HOST}@${rootPkg.version}`) && /build it from source/i.test(bareErr.message),
  bareErr ? bareErr.message.split('\n')[0] : (bareRun?.out ?? bare.out).slice(-1000),
)

// 4. figures ----------------------------------------------------------------------------------
const N = 11
const coldCjs = []
const coldEsm = []
const baseline = []
const procWall = []
for (let i = 0; i < N; i++) {
  let t = performance.now()
  sh(process.execPath, ['-e', ''], { cwd: app.dir, env: consumerEnv })
  baseline.push(performance.now() - t)
  t = performance.now()
  const c = sh(process.execPath, ['-e', "const t = process.hrtime.bigint(); require('oxeval'); console.log(Number(process.hrtime.bigint() - t) / 1e6)"], { cwd: app.dir, env: consumerEnv })
  procWall.push(performance.now() - t)
  coldCjs.push(Number(c.stdout))
  const e = sh(process.execPath, ['--input-type=module', '-e', "const t = performance.now(); await import('oxeval'); console.log(performance.now() - t)"], { cwd: app.dir, env: consumerEnv })
  coldEsm.push(Number(e.stdout))
}
const firsts = []
for (let i = 0; i < 5; i++) {
  const r = await run(process.execPath, ['run.mjs', judge.url, '3'], { cwd: app.dir, env: consumerEnv })
  try {
    firsts.push(JSON.parse(r.stdout.trim().split('\n').pop()).times)
  } catch {}
}
await judge.close()
const col = (j) => median(firsts.map((t) => t[j]))
const f1 = (n) => n.toFixed(1)

console.log(`
sizes
  ${nodeFile.padEnd(36)} ${mb(nodeSize)} (${nodeSize} bytes)
  ${main.filename.padEnd(36)} ${kb(main.size)} packed, ${kb(main.unpackedSize)} unpacked, ${main.entryCount} files
  ${plat.filename.padEnd(36)} ${mb(plat.size)} packed, ${mb(plat.unpackedSize)} unpacked
timings (median of ${N} fresh processes, release build, installed package)
  require('oxeval')        ${f1(median(coldCjs))} ms (min ${f1(Math.min(...coldCjs))})
  import('oxeval')         ${f1(median(coldEsm))} ms
  whole process            node -e "require('oxeval')" ${f1(median(procWall))} ms vs node -e "" ${f1(median(baseline))} ms
first run (median of ${firsts.length} processes, answer relevancy, local judge over HTTP, 3 judge calls per run)
  createAnswerRelevancyScorer ${f1(col(0))} ms; run 1 ${f1(col(1))} ms, run 2 ${f1(col(2))} ms, run 3 ${f1(col(3))} ms
  first run's extra cost   ${f1(col(1) - col(3))} ms
  util.inspect(scorer)     ${runInfo ? runInfo.inspected.replace(/\s+/g, ' ') : '?'}
total ${((performance.now() - t0) / 1000).toFixed(0)} s`)
finish()
