'use strict'
// Multi-turn items and trajectory routing for runEvals (lib/evals.js): what JS must do of
// them and nothing more. The decisions are the core's: which form an item has and whether
// its shape is usable (crates/oxeval-core/src/evals/plan.rs, through `planItem`), which
// scorers and gates receive the trajectory (`routes`), the trajectory itself (the agent
// module's extractTrajectory, through `evalTrajectory`), and how per-turn results fold into
// the run's outcome (evals/turns.rs). This file describes items for the core, sends the
// turns of a conversation in order on one thread, accumulates their outputs (Mastra's rule),
// and builds the run inputs each scorer receives.

const { randomUUID } = require('node:crypto')

const native = require('../load-binding.js')
const { jsType, toJson } = require('./json.js')

const isScorer = (s) => s !== null && typeof s === 'object' && typeof s.id === 'string' && typeof s.run === 'function'

/** A scorer as the core needs to know it: id, Mastra `type`, direction and scale. */
function scorerFacts(s) {
  const o = { id: s.id }
  if (typeof s.type === 'string') o.type = s.type
  if (s.direction === 'higher' || s.direction === 'lower') o.direction = s.direction
  if (typeof s.scale === 'number' && Number.isFinite(s.scale) && s.scale > 0) o.scale = s.scale
  return o
}

/** A JS value as the plan describes one it cannot hold: its type (and an array's length). */
function valueDesc(v) {
  const d = { type: v === undefined ? 'undefined' : jsType(v) }
  if (Array.isArray(v)) d.length = v.length
  return d
}

/** A threshold as JSON: a non-finite number as its text, so the core names it. */
function thresholdData(t) {
  return typeof t === 'number' && !Number.isFinite(t) ? String(t) : t
}

function entryDesc(e) {
  if (isScorer(e)) return { type: 'scorer', scorer: scorerFacts(e) }
  if (e !== null && typeof e === 'object' && !Array.isArray(e) && 'scorer' in e) {
    const d = { type: 'entry', scorerType: e.scorer === undefined ? 'undefined' : jsType(e.scorer), hasThreshold: 'threshold' in e }
    if (isScorer(e.scorer)) d.scorer = scorerFacts(e.scorer)
    if (e.threshold !== undefined) d.threshold = thresholdData(e.threshold)
    d.thresholdType = e.threshold === undefined ? 'undefined' : jsType(e.threshold)
    return d
  }
  return valueDesc(e)
}

function listDesc(list) {
  if (!Array.isArray(list)) return valueDesc(list)
  return { type: 'array', length: list.length, items: list.map(entryDesc) }
}

/**
 * The description of a data item for the core's plan (plan.rs): which keys it has, its
 * `inputs` and `turns` as shapes, each turn's assertions by their scorers' facts.
 * `targetKind`: 'agent' | 'function' | 'none'.
 */
function describeItem(item, index, targetKind) {
  const d = {
    index,
    target: targetKind,
    has: { input: 'input' in item, inputs: 'inputs' in item, turns: 'turns' in item, output: 'output' in item },
  }
  if ('inputs' in item) d.inputs = valueDesc(item.inputs)
  if ('turns' in item) {
    const turns = item.turns
    if (!Array.isArray(turns)) d.turns = valueDesc(turns)
    else {
      d.turns = {
        type: 'array',
        length: turns.length,
        items: turns.map((t) => {
          if (t === null || typeof t !== 'object' || Array.isArray(t)) return valueDesc(t)
          const td = { type: 'object', has: { input: 'input' in t, output: 'output' in t } }
          if (t.gates !== undefined && t.gates !== null) td.gates = listDesc(t.gates)
          if (t.scorers !== undefined && t.scorers !== null) td.scorers = listDesc(t.scorers)
          return td
        }),
      }
    }
  }
  return d
}

/** Whether a multi-turn form (`inputs` or `turns`) is on the item: only then is it planned. */
const isMultiTurn = (item) => 'inputs' in item || 'turns' in item

/**
 * Whether an array `data` asks for anything per turn (a runEvals with no top-level scorer
 * needs per-turn gates or scorers somewhere). A streamed `data` cannot be looked into before
 * it runs: then true, and the core's outcome fails a run in which nothing was scored.
 */
function hasTurnAssertions(data) {
  if (!Array.isArray(data)) return true
  return data.some(
    (item) =>
      item !== null &&
      typeof item === 'object' &&
      Array.isArray(item.turns) &&
      item.turns.some((t) => t && typeof t === 'object' && ((Array.isArray(t.gates) && t.gates.length > 0) || (Array.isArray(t.scorers) && t.scorers.length > 0))),
  )
}

/**
 * A turn's assertions with their scorer objects, in the plan's order: `[{ id, scorer, gate,
 * trajectory, decl }]` (the plan checked the item's shape; `decl` is the core's declaration,
 * sent back with the runs).
 */
function turnEntries(turn, planned) {
  const out = []
  planned.gates.forEach((decl, i) => out.push({ id: decl.id, scorer: turn.gates[i], gate: true, trajectory: decl.trajectory === true, decl }))
  planned.scorers.forEach((decl, i) => {
    const e = turn.scorers[i]
    out.push({ id: decl.id, scorer: isScorer(e) ? e : e.scorer, gate: false, trajectory: false, decl })
  })
  return out
}

/** The turn inputs of a multi-turn item, in order. */
function turnInputs(item, plan) {
  return plan.mode === 'turns' ? item.turns.map((t) => t.input) : item.inputs
}

/**
 * A conversation's output from its turns' outputs: Mastra's accumulation of an Agent's (an
 * array's messages spread, in order); a turn output that is not an array (a function target's
 * or a recorded text, a message object, `{ messages }`) becomes its messages as the scorers
 * read an output (the agent module's widening: a text is one assistant message), so a text
 * answer is never lost in the accumulated list; anything else is one element, as Mastra's.
 */
function accumulate(outputs) {
  const all = []
  for (const o of outputs) {
    if (o === undefined || o === null) continue
    // element by element: spreading a long array into push() throws a RangeError (too many
    // arguments) at about 125 000 elements
    if (Array.isArray(o)) {
      for (const m of o) all.push(m)
      continue
    }
    const t = toJson(o)
    const r = t.error === undefined ? native.evalTurnMessages(t.json) : { ok: false }
    if (r.ok) for (const m of r.value) all.push(m)
    else all.push(o)
  }
  return all
}

/**
 * The options of one Agent `generate()` call, as Mastra's runEvals makes them: the run's
 * `targetOptions` (its `memory` only when given, or the conversation's on a turn), the
 * agent's own scorers off during the eval, the scorer data returned, the item's
 * `requestContext`, and the item's abort signal.
 */
function agentCallOptions(targetOptions, item, signal, memory) {
  const { memory: callerMemory, ...rest } = targetOptions || {}
  const opts = { ...rest, scorers: {}, returnScorerData: true, abortSignal: signal }
  if (item.requestContext !== undefined) opts.requestContext = item.requestContext
  const m = memory ?? callerMemory
  if (m) opts.memory = m
  return opts
}

/**
 * What the scorers receive of an Agent's answer: its scorer data (Mastra's `scoringData`:
 * the agent-shaped input and the response messages as stored), else the response messages,
 * else the text, else the answer itself.
 */
function agentOutput(r) {
  if (r !== null && typeof r === 'object') {
    const sd = r.scoringData
    if (sd && typeof sd === 'object' && sd.output !== undefined && sd.output !== null) return { input: sd.input, output: sd.output, scored: true }
    const msgs = r.response && Array.isArray(r.response.messages) ? r.response.messages : undefined
    if (msgs && msgs.length > 0) return { output: msgs }
    if (typeof r.text === 'string') return { output: r.text }
  }
  return { output: r }
}

/**
 * Sends a conversation's turns in order. `call(input, turn)` is one target call (runEvals'
 * bounded call: `{ targetResult, output }`, `{ targetError }`, or null when the run stopped);
 * `turn` is `{ index, count, threadId, resourceId, memory }`: one thread for the whole
 * conversation (its id made here, as Mastra's), the resource the caller's
 * `targetOptions.memory.resource`, else the thread. → `{ turns: [{ input, output,
 * targetResult }], output (accumulated), targetResult (the last), threadId, resourceId }`,
 * `{ targetError }` (with the turn that failed), or null.
 */
async function converse(inputs, targetOptions, call) {
  const threadId = randomUUID()
  const callerMemory = targetOptions && targetOptions.memory
  const resourceId = (callerMemory && callerMemory.resource) ?? threadId
  const memory = { ...(callerMemory || {}), thread: threadId, resource: resourceId }
  const turns = []
  for (let k = 0; k < inputs.length; k++) {
    const t = await call(inputs[k], { index: k, count: inputs.length, threadId, resourceId, memory })
    if (t === null) return null
    if (t.targetError) return { targetError: { ...t.targetError, message: `turn ${k} of ${inputs.length}: ${t.targetError.message}`, turn: k } }
    turns.push({ input: inputs[k], output: t.output, targetResult: t.targetResult })
  }
  const output = accumulate(turns.map((t) => t.output))
  const last = turns[turns.length - 1].targetResult
  // Mastra's targetResult of a conversation: the last response, its scoring data the whole one
  const targetResult =
    last !== null && typeof last === 'object' ? { ...last, scoringData: { ...(last.scoringData || {}), input: inputs[0], output } } : last
  return { turns, output, targetResult, threadId, resourceId }
}

/** A conversation recorded in the data (no target): each turn's `output`, accumulated. */
function recorded(item, plan) {
  if (plan.mode === 'inputs') return { turns: null, output: item.output }
  const turns = item.turns.map((t) => ({ input: t.input, output: t.output }))
  return { turns, output: accumulate(turns.map((t) => t.output)) }
}

/**
 * The trajectory a trajectory scorer or gate receives for `output` (the core's
 * routed_trajectory: a falsy output has no steps; a recorded `{ steps }` passes as it is;
 * messages give their tool calls, Mastra's `{ steps, rawOutput }`): `{ value }` or `{ error }`.
 */
function trajectoryOf(output) {
  const t = toJson(output === undefined ? null : output)
  if (t.error !== undefined) return { error: typeErrorJson(`the trajectory cannot be extracted: the output is not JSON-serializable data (${t.error})`) }
  const r = native.evalTrajectory(t.json)
  if (!r.ok) return { error: typeErrorJson(r.message || 'the trajectory cannot be extracted from the output') }
  if (r.value.asIs) return { value: output }
  return { value: output ? { steps: r.value.steps, rawOutput: output } : { steps: r.value.steps } }
}

function typeErrorJson(message) {
  return { name: 'TypeError', message, code: 'OXEVAL_INVALID_INPUT' }
}

/**
 * Whether an Agent target has memory (Mastra warns when a multi-turn item runs on an agent
 * without one: its turns then do not share history): a warning text, or null.
 */
async function memoryWarning(agent, item) {
  if (!agent || typeof agent.getMemory !== 'function') return null
  let m
  try {
    m = await agent.getMemory({ requestContext: item.requestContext })
  } catch {
    return null
  }
  if (m) return null
  const name = typeof agent.id === 'string' ? agent.id : typeof agent.name === 'string' ? agent.name : 'the target'
  return `multi-turn items: agent "${name}" has no memory configured, so its turns do not share conversation history (each input runs in isolation); configure a memory store on the agent for it to recall earlier turns`
}

module.exports = {
  accumulate,
  agentCallOptions,
  agentOutput,
  converse,
  describeItem,
  hasTurnAssertions,
  isMultiTurn,
  isScorer,
  memoryWarning,
  recorded,
  scorerFacts,
  trajectoryOf,
  turnEntries,
  turnInputs,
}
