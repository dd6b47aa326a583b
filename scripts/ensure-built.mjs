// Builds the native addon when it is missing or older than its Rust sources, so that a fresh
// clone's `npm run demo` and `npm test` work (nothing builds at `npm install`: no install or
// prepare script runs, for consumers or contributors). Prints ONE line; cargo's full output goes
// to <cargo target dir>/oxeval-build-<profile>.log and is printed only when the build fails.
//   --release   optimized build (bench, soak, pack:check); default: debug
//   --always    skip the up-to-date check and let cargo decide (`npm run build`)
//   --verbose   stream the build output instead of the one line
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildPrerequisites, cargoTargetDir, displayPath, napiBuild, printBuildLog, root } from './build-lib.mjs'

const argv = process.argv.slice(2)
const release = argv.includes('--release')
const always = argv.includes('--always')
const verbose = argv.includes('--verbose')
const profile = release ? 'release' : 'debug'

function platformId() {
  const { platform, arch } = process
  if (platform === 'linux') {
    let musl = false
    try {
      musl = !process.report.getReport().header.glibcVersionRuntime
    } catch {}
    return `linux-${arch}-${musl ? 'musl' : 'gnu'}`
  }
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

const addon = join(root, `oxeval.${platformId()}.node`)
const stampFile = join(cargoTargetDir(), 'oxeval-build-stamp.json')

/** Newest mtime among the files the addon is built from. */
function newestSource() {
  let newest = 0
  const visit = (p) => {
    const st = statSync(p, { throwIfNoEntry: false })
    if (!st) return
    if (st.isDirectory()) {
      for (const e of readdirSync(p)) if (e !== 'target' && e !== 'node_modules' && !e.startsWith('.')) visit(join(p, e))
    } else newest = Math.max(newest, st.mtimeMs)
  }
  for (const p of ['Cargo.toml', 'Cargo.lock', 'build.rs', '.cargo', 'src', 'crates']) visit(join(root, p))
  return newest
}

function upToDate() {
  const st = statSync(addon, { throwIfNoEntry: false })
  if (!st || !existsSync(join(root, 'binding.js')) || !existsSync(join(root, 'binding.d.ts'))) return false
  let stamp
  try {
    stamp = JSON.parse(readFileSync(stampFile, 'utf8'))
  } catch {
    return false
  }
  return stamp.profile === profile && stamp.mtimeMs === st.mtimeMs && st.mtimeMs >= newestSource()
}

if (!always && upToDate()) process.exit(0)

const missing = buildPrerequisites()
if (missing) {
  console.error(missing)
  process.exit(1)
}
if (!verbose) {
  const first = existsSync(addon) ? '' : '; the first build takes a few minutes'
  process.stdout.write(`oxeval: building the native addon (${profile}${first}) … `)
}
const r = await napiBuild({ release, quiet: !verbose })
if (!r.ok) {
  if (!verbose) {
    process.stdout.write('failed\n')
    printBuildLog(r.log)
  }
  process.exit(1)
}
if (!verbose) process.stdout.write(`done in ${(r.ms / 1000).toFixed(0)} s (log: ${displayPath(r.log)})\n`)
writeFileSync(stampFile, JSON.stringify({ profile, mtimeMs: statSync(addon).mtimeMs }))
