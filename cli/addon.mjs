// Which native addon the CLI runs on (load-binding.js `addonInfo()`): `oxeval --version` and the
// start of `oxeval run` name its build profile and the file it was loaded from, and a debug build
// gets a one-line warning before a large run (a checkout's `npm test` / `npm run demo` leave a
// debug addon, several times slower than the release build an app should use).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/** Runs of more items than this on a debug addon get the warning. */
export const DEBUG_WARN_ITEMS = 300

/** `{ profile: 'release' | 'debug' | 'unknown', path: string | null }` (loads the addon). */
export function addonInfo() {
  return require('../load-binding.js').addonInfo()
}

/** "release addon, loaded from /…/oxeval.linux-x64-gnu.node" */
export function addonLine(info) {
  return `${info.profile} addon${info.path ? `, loaded from ${info.path}` : ''}`
}

/** The warning for a run of `items` items, or null when there is nothing to say. */
export function debugWarning(info, items) {
  if (info.profile !== 'debug' || !(items > DEBUG_WARN_ITEMS)) return null
  return `oxeval: warning: ${items} items on a DEBUG build of the addon (${info.path ?? 'path unknown'}), several times slower than a release build; run \`npm run build\` in the oxeval checkout`
}
