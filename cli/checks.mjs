// `--gate 'calledTool(get_weather)'`, `--gate 'includes("Paris", {ignoreCase: false})'`,
// `--scorer 'similarity("Sunny, 72°F")'`: a check written as a call. A small strict parser
// (no evaluation): the name of a check of the registry, then its arguments: "strings" or
// 'strings', numbers, true/false/null, bare words (as strings: get_weather), /regex/flags,
// [arrays] and {objects} of those (keys bare or quoted). Anything else is a usage error.
import { UsageError } from './errors.mjs'
import { REGISTRY } from './scorers.mjs'

/** Does this --gate / --scorer value look like a call? */
export const isCheckExpression = (text) => /^\s*[A-Za-z_]\w*\s*\(/.test(String(text))

/**
 * Parses `name(args…)`. Returns `{ spec, args, text }`; throws a UsageError that names the
 * flag, the text and the position of the problem.
 */
export function parseCheckExpression(text, flag = '--gate') {
  const s = String(text)
  let i = 0
  const fail = (why) => {
    throw new UsageError(`${flag} ${s}: ${why} at character ${i + 1}. A check is written as a call, e.g. calledTool(get_weather), includes("Paris"), matches(/\\d+°F/i), toolOrder([search, summarize]), maxToolCalls(3)`)
  }
  const space = () => {
    while (i < s.length && /\s/.test(s[i])) i++
  }
  const word = () => {
    const m = /^[A-Za-z_][\w.-]*/.exec(s.slice(i))
    if (!m) fail('expected a name')
    i += m[0].length
    return m[0]
  }
  const string = () => {
    const q = s[i++]
    let out = ''
    while (i < s.length && s[i] !== q) {
      if (s[i] === '\\') {
        const n = s[i + 1]
        const esc = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", '/': '/' }
        if (n === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6))) {
          out += String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16))
          i += 6
          continue
        }
        if (!(n in esc)) fail(`unknown escape \\${n ?? ''}`)
        out += esc[n]
        i += 2
        continue
      }
      out += s[i++]
    }
    if (s[i] !== q) fail('unterminated string')
    i++
    return out
  }
  const regex = () => {
    const start = ++i
    let inClass = false
    while (i < s.length && (s[i] !== '/' || inClass)) {
      if (s[i] === '\\') i++
      else if (s[i] === '[') inClass = true
      else if (s[i] === ']') inClass = false
      i++
    }
    if (s[i] !== '/') fail('unterminated regular expression')
    const source = s.slice(start, i++)
    const m = /^[dgimsuvy]*/.exec(s.slice(i))
    i += m[0].length
    try {
      return new RegExp(source, m[0])
    } catch (e) {
      fail(`bad regular expression (${e.message})`)
    }
  }
  const value = () => {
    space()
    const c = s[i]
    if (c === '"' || c === "'") return string()
    if (c === '/') return regex()
    if (c === '[') {
      i++
      const out = []
      space()
      if (s[i] === ']') {
        i++
        return out
      }
      for (;;) {
        out.push(value())
        space()
        if (s[i] === ',') i++
        else if (s[i] === ']') {
          i++
          return out
        } else fail('expected , or ]')
      }
    }
    if (c === '{') {
      i++
      const out = {}
      space()
      if (s[i] === '}') {
        i++
        return out
      }
      for (;;) {
        space()
        const key = s[i] === '"' || s[i] === "'" ? string() : word()
        if (['__proto__', 'prototype', 'constructor'].includes(key)) fail(`bad key "${key}"`)
        space()
        if (s[i] !== ':') fail('expected :')
        i++
        out[key] = value()
        space()
        if (s[i] === ',') i++
        else if (s[i] === '}') {
          i++
          return out
        } else fail('expected , or }')
      }
    }
    const num = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/.exec(s.slice(i))
    if (num) {
      i += num[0].length
      return Number(num[0])
    }
    if (c === undefined) fail('unexpected end')
    const w = word()
    return w === 'true' ? true : w === 'false' ? false : w === 'null' ? null : w
  }
  space()
  const name = word()
  const spec = REGISTRY.find((x) => x.check && x.factory === name)
  if (!spec) {
    const names = REGISTRY.filter((x) => x.check).map((x) => x.factory)
    throw new UsageError(`${flag} ${s}: "${name}" is not a check; the checks are ${names.join(', ')}`)
  }
  space()
  if (s[i] !== '(') fail('expected (')
  i++
  const args = []
  space()
  if (s[i] === ')') i++
  else {
    for (;;) {
      args.push(value())
      space()
      if (s[i] === ',') i++
      else if (s[i] === ')') {
        i++
        break
      } else fail('expected , or )')
    }
  }
  space()
  if (i < s.length) fail('unexpected text after the call')
  const max = spec.args.length + 1
  if (args.length > max) throw new UsageError(`${flag} ${s}: ${name} takes at most ${max} argument${max > 1 ? 's' : ''} (${[...spec.args, 'options'].join(', ')})`)
  if (args.length === max && (args[max - 1] === null || typeof args[max - 1] !== 'object' || Array.isArray(args[max - 1]) || args[max - 1] instanceof RegExp)) {
    throw new UsageError(`${flag} ${s}: ${name}'s last argument must be an options object {…}`)
  }
  return { spec, args, text: s.trim() }
}

/**
 * The key a check's results are under, as in the library: its `id` option, else its kind's id
 * (`calledTool(get_weather)` → `check-called-tool`, as `checks.calledTool('get_weather')`).
 */
export function checkId(parsed) {
  const options = parsed.args[parsed.spec.args.length]
  return options && typeof options.id === 'string' ? options.id : parsed.spec.id
}

/** Builds the check of a parsed expression (its id: `checkId`). */
export function createCheck(oxeval, parsed, flag = '--gate') {
  const { spec, args, text } = parsed
  const n = spec.args.length
  const positional = args.slice(0, n)
  const options = { ...(args[n] ?? {}) }
  try {
    return oxeval[spec.factory](...positional, ...Array(n - positional.length).fill(undefined), options)
  } catch (e) {
    throw new UsageError(`${flag} ${text}: ${e.message}`)
  }
}
