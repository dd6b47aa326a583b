// The judge server's faults: the scripted ones a reply names (`fault: 'reset'`, …) and the
// seeded random injector (`options.faults`) that wraps whatever reply was selected.

/** Every kind the seeded random fault injector can produce. */
export const RANDOM_FAULT_KINDS = Object.freeze(['429', '500', '502', '503', 'reset', 'hang', 'truncate', 'invalid-json', 'schema-invalid', 'empty', 'length'])

/** Faults acted out on the connection (the others are replies). */
export const SCRIPTED_FAULTS = new Set(['reset', 'hang', 'truncate', 'empty'])

/** mulberry32: tiny seeded PRNG returning floats in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The text a reply object answers with (`json` serialized; nothing for an `empty` fault). */
export function replyContent(reply) {
  if (reply.fault === 'empty') return ''
  if (reply.json !== undefined) return JSON.stringify(reply.json)
  return reply.content ?? ''
}

/**
 * The random fault injector of `options.faults` ({ rate, seed, kinds }): `draw()` picks the
 * fault of one request (always two draws, for a stable sequence), `apply(reply, kind)` wraps
 * the selected reply, `reset()` restarts the sequence.
 */
export function randomFaults(options = {}, hangMs) {
  const rate = Math.min(1, Math.max(0, Number(options?.rate ?? 0) || 0))
  const seed = Number(options?.seed ?? 0) >>> 0
  const kinds = options?.kinds?.length ? [...options.kinds] : [...RANDOM_FAULT_KINDS]
  for (const kind of kinds) {
    if (!RANDOM_FAULT_KINDS.includes(kind)) throw new TypeError(`judge-server: unknown fault kind ${JSON.stringify(kind)}`)
  }
  let rand = mulberry32(seed)
  return {
    draw() {
      if (rate <= 0) return null
      const hit = rand() < rate
      const pick = kinds[Math.floor(rand() * kinds.length)]
      return hit ? pick : null
    },
    apply(base, kind) {
      const keep = { delayMs: base.delayMs }
      switch (kind) {
        case '429':
          return { ...keep, status: 429, headers: { 'retry-after': '0' }, content: 'Rate limit reached (injected fault)' }
        case '500':
        case '502':
        case '503':
          return { ...keep, status: Number(kind), content: `Upstream error ${kind} (injected fault)` }
        case 'reset':
        case 'truncate':
        case 'empty':
          return { ...base, status: undefined, body: undefined, fault: kind }
        case 'hang':
          return { ...base, fault: 'hang', hangMs }
        case 'invalid-json':
          return { ...keep, content: 'Sorry, I cannot help with that request.' }
        case 'schema-invalid':
          return { ...keep, content: '{"unexpected":true}' }
        case 'length': {
          const chars = Array.from(replyContent(base))
          return { ...keep, content: chars.slice(0, Math.floor(chars.length / 2)).join(''), finishReason: 'length' }
        }
        default:
          return base
      }
    },
    reset() {
      rand = mulberry32(seed)
    },
  }
}
