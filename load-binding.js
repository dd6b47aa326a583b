'use strict'
// Loads the native addon through the napi-generated loader (binding.js: a local build such as
// ./oxeval.linux-x64-gnu.node first, then the platform package oxeval-<platform> that npm
// installs as an optional dependency). When neither loads, napi's own message ("Cannot find
// native binding ... npm has a bug ...") is replaced by one that names this platform and the two
// ways out. napi's errors stay attached as `cause`. On a successful load, `addonInfo()` (a
// non-enumerable function on the binding) says which addon loaded: its build profile and path.

// The prebuilt platform packages: package.json `napi.targets` (pack:check checks they agree).
const PREBUILT = ['linux-x64-gnu', 'linux-arm64-gnu', 'linux-x64-musl', 'linux-arm64-musl', 'darwin-x64', 'darwin-arm64', 'win32-x64-msvc']

function isMusl() {
  try {
    return !process.report.getReport().header.glibcVersionRuntime
  } catch {
    return false
  }
}

/** The suffix napi-rs uses for this platform's package and file names. */
function platformId() {
  const { platform, arch } = process
  if (platform === 'linux') return `linux-${arch}-${isMusl() ? 'musl' : 'gnu'}`
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

function loadError(cause) {
  const id = platformId()
  let pkg = {}
  try {
    pkg = require('./package.json')
  } catch {}
  const dep = `oxeval-${id}`
  const declared = pkg.optionalDependencies && pkg.optionalDependencies[dep]
  const status = !PREBUILT.includes(id)
    ? `${id} is not one of them.`
    : declared
      ? `npm installs ${dep}@${declared} as an optional dependency, and it is missing: npm skips it with\n` +
        '     --omit=optional (or --no-optional, or omit=optional in .npmrc); otherwise remove node_modules\n' +
        '     and the lockfile and run npm install again.'
      : `This oxeval (${__dirname}) is a source checkout: it declares no platform packages.\n` +
        '     Install the published package (npm install oxeval), or build this one (2.).'
  const message = [
    `oxeval: could not load its native addon for this platform (${id}, Node ${process.version}).`,
    `  1. Prebuilt addons (npm packages oxeval-<platform>) exist for: ${PREBUILT.join(', ')}.`,
    `     ${status}`,
    '  2. Build it from source with Rust (cargo, https://rustup.rs): in an oxeval checkout run',
    '     `npm install && npm run build`, then install that checkout (npm install <path>) or point',
    `     NAPI_RS_NATIVE_LIBRARY_PATH at the built <checkout>/oxeval.${id}.node.`,
    'The load errors are in this error\'s `cause`; docs/install.md in the oxeval repository has the details.',
  ].join('\n')
  const error = new Error(message, { cause })
  error.code = 'OXEVAL_NATIVE_ADDON_NOT_FOUND'
  return error
}

let binding
try {
  binding = require('./binding.js')
} catch (cause) {
  throw loadError(cause)
}

/**
 * Which addon loaded: `{ profile: 'release' | 'debug' | 'unknown', path }`. The path is the
 * `.node` file Node loaded (a local build beside binding.js, the platform package's, or
 * NAPI_RS_NATIVE_LIBRARY_PATH's); null if Node's module cache does not show it.
 */
function addonInfo() {
  let path = null
  for (const m of Object.values(require.cache)) {
    if (m && m.exports === binding && typeof m.filename === 'string' && m.filename.endsWith('.node')) {
      path = m.filename
      break
    }
  }
  const profile = typeof binding.buildProfile === 'function' ? binding.buildProfile() : 'unknown'
  return { profile, path }
}
Object.defineProperty(binding, 'addonInfo', { value: addonInfo, enumerable: false, configurable: true })
module.exports = binding
