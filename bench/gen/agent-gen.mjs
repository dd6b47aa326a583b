// Seeded generators of agent data for the code-scorer parity spec and the `code` bench:
// texts (punctuation, case, whitespace, Unicode, emoji), Mastra messages mixing text parts,
// tool-invocation parts and the legacy toolInvocations array in every state, trajectories
// with nesting, repeats, retries and data fields, and expectations with budgets and
// blacklists. Plain JS so both Vitest and bench/run.mjs load it.

/** mulberry32: a small seeded PRNG. */
export function rng(seed) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const r = {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    chance: (p) => next() < p,
  }
  return r
}

const WORDS = ['Paris', 'paris', 'sunny', 'SUNNY', 'weather', '72°F', '22°C', 'the', 'The', 'rain', 'error', 'Error:', 'café', 'naïve', 'straße', 'İstanbul', 'ΣΟΦΙΑ', 'σοφία', '東京', 'مرحبا', '😀', '👍🏽', '🇫🇷', 'a', 'b', 'ab', 'ba', '42', '3.14', 'search', 'get_weather', 'done.', 'ok!', 'why?', '(note)', '"quoted"', "it's", 'e-mail', 'x'.repeat(3)]
const SPACES = [' ', ' ', ' ', '  ', '\t', '\n', '\u00a0', '\u2028', '\u3000', '\ufeff', '']

/** A text of 0..n words with mixed separators. */
export function text(r, n = 8) {
  const k = r.int(n + 1)
  let s = ''
  for (let i = 0; i < k; i++) s += (i ? r.pick(SPACES) : r.chance(0.1) ? r.pick(SPACES) : '') + r.pick(WORDS)
  if (r.chance(0.1)) s += r.pick(SPACES)
  return s
}

export const TOOLS = ['search', 'get_weather', 'summarize', 'send_email', 'lookup', 'calc']
const STATES = ['call', 'partial-call', 'result', 'result', 'result', 'output-error', 'approval-requested', 'approval-responded', 'output-denied']

function value(r, depth = 0) {
  switch (r.int(depth > 1 ? 4 : 7)) {
    case 0: return r.int(100)
    case 1: return r.pick(['x', '', 'Paris', '72°F'])
    case 2: return null
    case 3: return r.chance(0.5)
    case 4: return [value(r, depth + 1), value(r, depth + 1)]
    default: {
      const o = {}
      const keys = ['city', 'q', 'unit', 'n', 'error', 'value']
      for (let i = r.int(3); i > 0; i--) o[r.pick(keys)] = value(r, depth + 1)
      return o
    }
  }
}

/** A tool invocation: ids from a small pool (so parts and legacy share some), every state. */
export function invocation(r, ids) {
  const inv = {}
  if (!r.chance(0.1)) inv.toolCallId = r.pick(ids)
  inv.toolName = r.chance(0.05) ? '' : r.pick(TOOLS)
  if (!r.chance(0.1)) inv.args = r.chance(0.8) ? { city: r.pick(['Paris', 'Tokyo']), n: r.int(3) } : value(r)
  inv.state = r.pick(STATES)
  if (inv.state === 'result' && !r.chance(0.1)) inv.result = r.chance(0.15) ? { error: r.pick(['boom', '', 0]) } : value(r)
  if (inv.state === 'output-error') inv.errorText = 'failed'
  if (r.chance(0.1)) inv.isError = r.chance(0.5)
  return inv
}

/** One Mastra message: string content, array content, or format-2 content with parts and/or legacy invocations. */
export function message(r, role) {
  role = role ?? r.pick(['assistant', 'assistant', 'assistant', 'user', 'system', 'tool'])
  const ids = ['c1', 'c2', 'c3', 'c4', 'c5']
  const m = { id: `m${r.int(1000)}`, role, createdAt: '2026-01-01T00:00:00.000Z' }
  const kind = r.int(10)
  if (kind === 0) m.content = text(r)
  else if (kind === 1) m.content = Array.from({ length: r.int(3) }, () => (r.chance(0.7) ? { type: 'text', text: text(r) } : { type: 'image', image: 'x' }))
  else {
    const parts = []
    for (let i = r.int(5); i > 0; i--) {
      const t = r.int(4)
      if (t === 0) parts.push({ type: 'text', text: text(r) })
      else if (t === 1) parts.push({ type: 'step-start' })
      else parts.push({ type: 'tool-invocation', toolInvocation: invocation(r, ids) })
    }
    const content = { format: 2, parts }
    if (r.chance(0.3)) content.content = r.chance(0.3) ? '' : text(r)
    if (r.chance(0.4)) content.toolInvocations = Array.from({ length: r.int(4) }, () => invocation(r, ids))
    if (r.chance(0.05)) content.text = text(r)
    m.content = content
  }
  return m
}

/** A message list (an agent's response messages). */
export function messages(r, n = 4) {
  return Array.from({ length: r.int(n + 1) }, () => message(r))
}

const STEP_TYPES = ['tool_call', 'tool_call', 'tool_call', 'mcp_tool_call', 'model_generation', 'agent_run', 'workflow_step']

/** One trajectory step (maybe with children). */
export function step(r, depth = 0) {
  const stepType = r.pick(STEP_TYPES)
  const s = { stepType, name: r.pick(TOOLS.slice(0, 4)) }
  if (stepType === 'tool_call' || stepType === 'mcp_tool_call') {
    if (!r.chance(0.2)) s.toolArgs = r.chance(0.5) ? { q: r.int(2) } : { city: 'Paris', q: r.int(2) }
    if (r.chance(0.3)) s.toolResult = { ok: r.chance(0.5) }
    if (!r.chance(0.1)) s.success = r.chance(0.6)
    if (stepType === 'mcp_tool_call') s.mcpServer = r.pick(['a', 'b'])
  }
  if (stepType === 'model_generation') {
    s.modelId = 'm'
    if (!r.chance(0.1)) s.promptTokens = r.chance(0.05) ? -1 : r.int(500)
    if (!r.chance(0.1)) s.completionTokens = r.int(500)
  }
  if (stepType === 'agent_run') s.agentId = r.pick(['a1', 'a2'])
  if (!r.chance(0.15)) s.durationMs = r.chance(0.03) ? -5 : r.int(1000)
  if (depth < 2 && (stepType === 'agent_run' || stepType === 'workflow_step' || r.chance(0.1))) {
    s.children = Array.from({ length: r.int(4) }, () => step(r, depth + 1))
  }
  return s
}

/** A trajectory: repeats and retries (runs of one tool, failing) are common. */
export function trajectory(r, n = 6) {
  const steps = []
  for (let k = r.int(n + 1); k > 0; k--) {
    const s = step(r)
    steps.push(s)
    if (r.chance(0.25)) {
      for (let j = r.int(4); j > 0; j--) steps.push({ ...s, success: r.chance(0.4) })
    }
  }
  const t = { steps }
  if (r.chance(0.2)) t.totalDurationMs = r.chance(0.05) ? -1 : r.int(5000)
  return t
}

/** An expected step, from the trajectory's names or not, sometimes with data and children. */
export function expectedStep(r, from, depth = 0) {
  const base = from.length && r.chance(0.7) ? r.pick(from) : step(r, 2)
  const e = { name: r.chance(0.9) ? base.name : r.pick(TOOLS) }
  if (r.chance(0.5)) e.stepType = base.stepType
  if (e.stepType && r.chance(0.3)) {
    for (const k of ['toolArgs', 'success', 'agentId', 'mcpServer', 'promptTokens']) if (k in base && r.chance(0.5)) e[k] = base[k]
  }
  if (depth < 2 && r.chance(0.25)) e.children = expectation(r, base.children ?? [], depth + 1)
  return e
}

/** A trajectory expectation: steps, ordering, budgets (sometimes invalid), blacklists, retries. */
export function expectation(r, steps, depth = 0) {
  const x = {}
  if (r.chance(0.8)) x.steps = Array.from({ length: r.int(4) }, () => expectedStep(r, steps, depth))
  if (r.chance(0.5)) x.ordering = r.pick(['strict', 'relaxed', 'unordered'])
  if (r.chance(0.4)) x.allowRepeatedSteps = r.chance(0.5)
  if (r.chance(0.3)) x.maxSteps = r.chance(0.05) ? -1 : r.int(8)
  if (r.chance(0.15)) x.maxTotalTokens = r.int(1500)
  if (r.chance(0.15)) x.maxTotalDurationMs = r.int(4000)
  if (r.chance(0.3)) x.noRedundantCalls = r.chance(0.5)
  if (r.chance(0.25)) x.blacklistedTools = [r.pick(TOOLS)]
  if (r.chance(0.2)) x.blacklistedSequences = [[r.pick(TOOLS.slice(0, 4)), r.pick(TOOLS.slice(0, 4))], []]
  if (r.chance(0.3)) x.maxRetriesPerTool = r.int(3)
  return x
}
