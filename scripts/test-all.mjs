// `npm test`: every suite, then ONE summary line `N passed, N failed` (read by CI).
//   1. build the addon (debug)            2-3. Rust core tests (cargo test: build, then run)
//   4. Vitest: __test__/**/*.spec.ts, over ../index.js and testing/judge-server.mjs
//   5. TypeScript consumer + the README's and docs/' snippets (tsc --strict)
//   6. the matchers' types in two separate apps (scripts/typed-apps.mjs: tarball and checkout)
//   7. generated files match the registry (scripts/generate.mjs --check)
//   8. links: every relative link and #anchor of README.md, ARCHITECTURE.md, docs/ (check-links.mjs)
// Each step prints `[k/8] what …` before it starts and its time when it ends.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const env = { ...process.env, RUST_BACKTRACE: '0' }
const TARGET = 'x86_64-unknown-linux-gnu' // the target napi build uses: shares one build dir
let passed = 0
let failed = 0
const problems = []

const STEPS = 8
let stepNo = 0
let stepStart = 0
function endStep() {
  if (stepNo) console.log(`[${stepNo}/${STEPS}] done in ${((performance.now() - stepStart) / 1000).toFixed(0)} s`)
}
function step(what) {
  endStep()
  stepNo += 1
  stepStart = performance.now()
  console.log(`\n[${stepNo}/${STEPS}] ${what} …`)
}

function run(cmd, args, opts = {}) {
  console.log(`$ ${cmd} ${args.join(' ')}`)
  const r = spawnSync(cmd, args, { cwd: root, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...opts })
  if (r.stdout) process.stdout.write(r.stdout)
  if (r.stderr) process.stderr.write(r.stderr)
  return r
}

// 1. build
step('building the native addon (debug; cached when nothing changed)')
const build = run('node', ['scripts/ensure-built.mjs'])
if (build.status !== 0) {
  failed += 1
  problems.push('native build failed')
}

// 2-3. cargo test (core crate: all Rust tests live there): built first, so that the long silent
// compile has its own line
step('cargo test: compiling the Rust core tests (several minutes on a cold cache)')
run('cargo', ['test', '-p', 'oxeval-core', '--target', TARGET, '--color', 'never', '--no-run', '--quiet'], { stdio: ['ignore', 'inherit', 'inherit'] })
step('cargo test: running the Rust core tests')
const cargo = run('cargo', ['test', '-p', 'oxeval-core', '--target', TARGET, '--color', 'never'])
let cargoCounted = 0
for (const m of `${cargo.stdout}\n${cargo.stderr}`.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed/g)) {
  passed += Number(m[1])
  failed += Number(m[2])
  cargoCounted += Number(m[1]) + Number(m[2])
}
if (cargo.status !== 0 && cargoCounted === 0) {
  failed += 1
  problems.push('cargo test did not run (compile error?)')
} else if (cargo.status !== 0) problems.push('cargo test failed')

// 4. vitest
step('vitest: __test__/**/*.spec.ts')
if (build.status === 0) {
  const dir = mkdtempSync(join(tmpdir(), 'oxeval-vitest-'))
  const out = join(dir, 'report.json')
  const vt = run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`], { stdio: ['ignore', 'inherit', 'inherit'] })
  try {
    const report = JSON.parse(readFileSync(out, 'utf8'))
    passed += report.numPassedTests
    failed += report.numFailedTests
    if (report.numFailedTests > 0 || vt.status !== 0) problems.push('vitest failed')
    if (report.numFailedTestSuites > 0 && report.numFailedTests === 0) {
      failed += report.numFailedTestSuites
      problems.push('a vitest suite failed to load')
    }
  } catch {
    failed += 1
    problems.push('vitest produced no report')
  }
  rmSync(dir, { recursive: true, force: true })
}

// 5. TypeScript: the consumer (with negative cases) and the README's and docs/' snippets, strict
step('tsc --strict: the type tests (__test__/types) and the README/docs snippets')
const tsc = run('npx', ['tsc', '-p', '__test__/types/tsconfig.json'])
if (tsc.status === 0) passed += 1
else {
  failed += 1
  problems.push('tsc consumer check failed')
}
const snippets = run('node', ['scripts/check-readme-types.mjs'])
if (snippets.status === 0) passed += 1
else {
  failed += 1
  problems.push('README/docs snippets do not compile')
}

// 6. the matchers type-check in an app that installed the packed tarball and in one that
// installed a checkout (each with its own Vitest; offline)
step('tsc --strict: the Vitest matchers in two separate apps (tarball, checkout)')
const apps = run('node', ['scripts/typed-apps.mjs'])
if (apps.status === 0) passed += 1
else {
  failed += 1
  problems.push('the matchers do not type-check in a separate app')
}

// 7. generated files (factory list, ESM exports, types) match the core's registry
step('generated files match the registry')
if (build.status === 0) {
  const gen = run('node', ['scripts/generate.mjs', '--check'])
  if (gen.status === 0) passed += 1
  else {
    failed += 1
    problems.push('generated files are out of date (npm run generate)')
  }
}

// 8. links between the pages (relative paths, #anchors, no orphan page)
step('links: README.md, ARCHITECTURE.md and docs/')
const links = run('node', ['scripts/check-links.mjs'])
if (links.status === 0) passed += 1
else {
  failed += 1
  problems.push('broken links in README.md, ARCHITECTURE.md or docs/')
}

endStep()
if (problems.length) console.log(`\nproblems: ${problems.join('; ')}`)
console.log(`\n${passed} passed, ${failed} failed`)
process.exit(failed > 0 ? 1 : 0)
