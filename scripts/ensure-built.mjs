// Builds the native addon (debug profile) so that `npm install`, `npm run demo` and
// `npm test` work on a fresh clone. Cargo's incremental build makes this a no-op when
// nothing changed. Pass --release for an optimized build (used by `npm run bench`).
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const release = process.argv.includes('--release')
const args = ['napi', 'build', '--platform', '--js', 'binding.js', '--dts', 'binding.d.ts', ...(release ? ['--release'] : [])]

const cargo = spawnSync('cargo', ['--version'], { encoding: 'utf8' })
if (cargo.status !== 0) {
  console.error('oxeval: building the native addon needs a Rust toolchain (cargo). Install it from https://rustup.rs and re-run.')
  process.exit(1)
}
const r = spawnSync('npx', args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, RUST_BACKTRACE: '0' } })
if (r.status !== 0) {
  console.error(`oxeval: native build failed (npx ${args.join(' ')})`)
  process.exit(r.status ?? 1)
}
