// Shared by scripts/ensure-built.mjs and scripts/pack-check.mjs: run this checkout's own
// @napi-rs/cli (never `npx napi`, which may fetch a registry package named `napi`) to build the
// addon, quietly (full log in a file, shown on failure) or verbosely.
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('..', import.meta.url))
/** The target `napi build --platform` builds for on this machine's CI host. */
export const HOST_TARGET = 'x86_64-unknown-linux-gnu'

/** Absolute path of the local @napi-rs/cli entry, or null when devDependencies are missing. */
export function napiCli() {
  try {
    const pkgJson = createRequire(join(root, 'package.json')).resolve('@napi-rs/cli/package.json')
    const bin = JSON.parse(readFileSync(pkgJson, 'utf8')).bin
    return join(dirname(pkgJson), typeof bin === 'string' ? bin : bin.napi)
  } catch {
    return null
  }
}

export function cargoAvailable(env = process.env) {
  return spawnSync('cargo', ['--version'], { env, stdio: 'ignore' }).status === 0
}

export function cargoTargetDir() {
  return process.env.CARGO_TARGET_DIR ? resolve(root, process.env.CARGO_TARGET_DIR) : join(root, 'target')
}

/** Problems that stop a build before it starts (no cargo, no CLI), as a message; else null. */
export function buildPrerequisites() {
  if (!cargoAvailable())
    return 'oxeval: building the native addon needs a Rust toolchain (cargo): install it from https://rustup.rs and re-run.'
  if (!napiCli()) return "oxeval: the build tool @napi-rs/cli is missing: run `npm install` in this checkout first (it is a devDependency)."
  return null
}

const NOISE = /^\s*(Compiling|Checking|Downloaded|Downloading|Fresh|Locking|Adding|Updating|Blocking)\b/

/**
 * `napi build --platform --dts-cache --js binding.js --dts binding.d.ts [--release] [--output-dir dir]`.
 * quiet: output goes to a log file (returned; see printBuildLog), with colours off.
 * Resolves { ok, ms, log }.
 */
export async function napiBuild({ release = false, outputDir, quiet = true, extraArgs = [] } = {}) {
  // --dts-cache: a stable type-def folder, so napi does not force the binding crate to recompile
  // (and, in release, re-run LTO) when nothing changed.
  const args = [napiCli(), 'build', '--platform', '--dts-cache', '--js', 'binding.js', '--dts', 'binding.d.ts']
  if (release) args.push('--release')
  if (outputDir) args.push('--output-dir', outputDir)
  args.push(...extraArgs)
  const env = { ...process.env, RUST_BACKTRACE: '0' }
  let log
  let fd
  if (quiet) {
    Object.assign(env, { CARGO_TERM_COLOR: 'never', NO_COLOR: '1', FORCE_COLOR: '0' })
    const dir = cargoTargetDir()
    mkdirSync(dir, { recursive: true })
    log = join(dir, `oxeval-build-${release ? 'release' : 'debug'}.log`)
    fd = openSync(log, 'w')
  } else if (!process.stderr.isTTY) {
    Object.assign(env, { CARGO_TERM_COLOR: 'never', NO_COLOR: '1' })
  }
  const t0 = performance.now()
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: quiet ? ['ignore', fd, fd] : ['ignore', 'inherit', 'inherit'] })
  const code = await new Promise((res) => {
    child.on('error', () => res(1))
    child.on('exit', (c, signal) => res(signal ? 1 : c))
  })
  if (fd !== undefined) closeSync(fd)
  const ms = performance.now() - t0
  return { ok: code === 0, ms, log }
}

/** After a failed quiet build: its log without cargo's progress lines, then where the full log is. */
export function printBuildLog(log) {
  const text = readFileSync(log, 'utf8')
  process.stderr.write(`${text.split('\n').filter((l) => !NOISE.test(l)).join('\n')}\n`)
  process.stderr.write(`oxeval: native build failed (full log: ${displayPath(log)})\n`)
}

export function displayPath(p) {
  const r = relative(process.cwd(), p)
  return r && !r.startsWith('..') ? r : p
}
