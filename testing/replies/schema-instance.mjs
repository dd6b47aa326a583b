// The default reply to any step the families do not know: a valid instance of the JSON schema
// the request carries, shaped by the prompt's DATA.
import { splitSentences } from './text.mjs'

const REASON_KEYS = /reason|explanation|assessment|rationale|analysis|justification/i

/**
 * A valid instance of `schema` (a JSON Schema as oxeval's steps send them: objects, arrays,
 * enums, `$ref`s to `$defs`, nullable unions), shaped by the prompt's DATA: an array of objects
 * gets one item per element of the DATA's first non-empty list (so verdict counts match the
 * statements or contexts they judge; an `…index` integer is the item's position), an array of strings gets the sentences of the DATA's
 * longest text, a list of problems (`missing…`, `extra…`, `contradictions`, `…issues`) is empty,
 * a string property named like a DATA list's singular (`statement` for
 * `statements`) copies that element, enums prefer "yes", numbers take their maximum.
 * @param {object} schema
 * @param {Record<string, unknown>} [data]
 */
export function schemaInstance(schema, data = {}) {
  const root = schema
  const lists = Object.entries(data ?? {}).filter(([, v]) => Array.isArray(v) && v.length > 0)
  const texts = Object.values(data ?? {}).filter((v) => typeof v === 'string')
  const longest = texts.sort((a, b) => b.length - a.length)[0] ?? ''
  const resolve = (s) => {
    let cur = s
    for (let i = 0; i < 32 && cur && typeof cur.$ref === 'string'; i++) {
      const path = cur.$ref.replace(/^#\//, '').split('/')
      cur = path.reduce((o, k) => (o == null ? undefined : o[k]), root)
    }
    return cur ?? {}
  }
  const gen = (raw, key, element, depth, idx = 0, parentList = undefined) => {
    const s = resolve(raw)
    if (depth > 24) return null
    if (Array.isArray(s.enum) && s.enum.length) {
      if (s.enum.includes('yes')) return 'yes'
      const nums = s.enum.filter((x) => typeof x === 'number')
      return nums.length ? nums.reduce((m, x) => Math.max(m, x)) : s.enum[0]
    }
    if (s.const !== undefined) return s.const
    const union = s.anyOf ?? s.oneOf
    if (Array.isArray(union) && union.length) {
      const pickOne = union.map(resolve).find((u) => u.type !== 'null') ?? union[0]
      return gen(pickOne, key, element, depth + 1, idx, parentList)
    }
    let type = s.type
    if (Array.isArray(type)) type = type.find((t) => t !== 'null') ?? type[0]
    if (!type && s.properties) type = 'object'
    if (!type && s.items) type = 'array'
    switch (type) {
      case 'object': {
        const out = {}
        for (const [k, v] of Object.entries(s.properties ?? {})) out[k] = gen(v, k, element, depth + 1, idx, key)
        return out
      }
      case 'array': {
        // lists of problems (missing, extra, contradictions, issues) default to none
        if (key && /missing|extra|contradiction|issue|unsupported|error/i.test(key) && !(typeof s.minItems === 'number' && s.minItems > 0)) return []
        const item = resolve(s.items ?? {})
        const itemIsString = item.type === 'string' && !item.enum
        let n
        let elements = []
        let alignedName
        if (itemIsString) {
          elements = splitSentences(longest)
          if (elements.length === 0) elements = ['(test judge) no text in DATA']
          n = elements.length
        } else {
          // align with the DATA list the items judge: one about retrieved passages when the
          // item carries an index (context precision/relevance), else the claims/statements
          const indexed = Object.keys(item.properties ?? {}).some((k) => /index/i.test(k))
          const aligned = lists.find(([name]) => /context|passage/i.test(name) === indexed) ?? lists[0]
          elements = aligned ? aligned[1] : [undefined]
          alignedName = aligned ? aligned[0] : undefined
          n = elements.length
        }
        if (typeof s.minItems === 'number') n = Math.max(n, s.minItems)
        if (typeof s.maxItems === 'number') n = Math.min(n, s.maxItems)
        return Array.from({ length: n }, (_, i) => (itemIsString ? (elements[i] ?? elements[0]) : gen(s.items ?? {}, alignedName, elements[i] ?? elements[0], depth + 1, i)))
      }
      case 'string': {
        // the item's own text under the singular of its list's name (`statement` of `statements`)
        if (key && element !== undefined && parentList && (parentList === `${key}s` || parentList === key || parentList.replace(/s$/, '') === key)) {
          return typeof element === 'string' ? element : JSON.stringify(element)
        }
        if (key && REASON_KEYS.test(key)) return 'Default reply of the oxeval test judge.'
        if (key && /^(verdict|result|answer|label)$/i.test(key)) return 'yes'
        return 'test'
      }
      case 'integer':
        if (key && /index/i.test(key)) return idx
        return typeof s.maximum === 'number' ? Math.floor(s.maximum) : 1
      case 'number':
        if (key && /index/i.test(key)) return idx
        return typeof s.maximum === 'number' ? s.maximum : 1
      case 'boolean':
        return true
      case 'null':
        return null
      default:
        return null
    }
  }
  return gen(root, undefined, undefined, 0)
}
