// `npm test`: every suite, then ONE summary line `N passed, N failed` (read by CI).
//   1. build the addon (debug)            2. Rust core tests (cargo test)
//   3. Vitest: __test__/**/*.spec.ts, over ../index.js and testing/judge-server.mjs
//   4. TypeScript consumer + the README's and docs/' snippets (tsc --strict)
//   5. generated files match the registry (scripts/generate.mjs --check)
//   6. links: every relative link and #anchor of README.md, ARCHITECTURE.md, docs/ (check-links.mjs)
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

function run(cmd, args, opts = {}) {
  console.log(`\n$ ${cmd} ${args.join(' ')}`)
  const r = spawnSync(cmd, args, { cwd: root, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...opts })
  if (r.stdout) process.stdout.write(r.stdout)
  if (r.stderr) process.stderr.write(r.stderr)
  return r
}

// 1. build
const build = run('node', ['scripts/ensure-built.mjs'])
if (build.status !== 0) {
  failed += 1
  problems.push('native build failed')
}

// 2. cargo test (core crate: all Rust tests live there)
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

// 3. vitest
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

// 4. TypeScript: the consumer (with negative cases) and the README's and docs/' snippets, strict
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

// 5. generated files (factory list, ESM exports, types) match the core's registry
if (build.status === 0) {
  const gen = run('node', ['scripts/generate.mjs', '--check'])
  if (gen.status === 0) passed += 1
  else {
    failed += 1
    problems.push('generated files are out of date (npm run generate)')
  }
}

// 6. links between the pages (relative paths, #anchors, no orphan page)
const links = run('node', ['scripts/check-links.mjs'])
if (links.status === 0) passed += 1
else {
  failed += 1
  problems.push('broken links in README.md, ARCHITECTURE.md or docs/')
}

if (problems.length) console.log(`\nproblems: ${problems.join('; ')}`)
console.log(`\n${passed} passed, ${failed} failed`)
process.exit(failed > 0 ? 1 : 0)
