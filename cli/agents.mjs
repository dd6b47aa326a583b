// Agent items in `oxeval run` data files: multi-turn items (`inputs`, `turns`) and
// `expectedTrajectory` reach runEvals as they are; a turn's `gates` and `scorers` are written
// as names, as the flags take them (a registry scorer, `answer-relevancy`, or a check as a call,
// `calledTool(weather)`; a scorer with a threshold as `{ "scorer": name, "threshold": 0.7 }`),
// checked when the file is read (a bad name makes a bad row) and built once per name before the
// run. A config's categorized scorers (`{ agent, trajectory }`) reach runEvals as that form.
import { UsageError } from './errors.mjs'
import { isCheckExpression, parseCheckExpression } from './checks.mjs'
import { resolveScorer } from './scorers.mjs'

/** The name of a turn assertion as written in a data file (a string, or a `{ scorer }` entry's). */
const nameOf = (e) => (typeof e === 'string' ? e : e && typeof e === 'object' && typeof e.scorer === 'string' ? e.scorer : null)

/** Checks a name as `--gate` / `--scorer` take it; the UsageError's message, else null. */
function nameError(name, where) {
  try {
    if (isCheckExpression(name)) parseCheckExpression(name, where)
    else resolveScorer(name, where)
    return null
  } catch (e) {
    if (e instanceof UsageError) return e.message.split('\n')[0]
    throw e
  }
}

/**
 * What is wrong with a data row's `turns` for the CLI (its names; the rest of the shape is
 * runEvals' to judge), else null.
 */
export function turnsError(turns) {
  if (!Array.isArray(turns)) return null
  for (const [k, t] of turns.entries()) {
    if (t === null || typeof t !== 'object' || Array.isArray(t)) continue
    for (const key of ['gates', 'scorers']) {
      const list = t[key]
      if (list === undefined || list === null) continue
      if (!Array.isArray(list)) return `"turns[${k}].${key}" must be an array of scorer names`
      for (const [i, e] of list.entries()) {
        const where = `turns[${k}].${key}[${i}]`
        const name = nameOf(e)
        if (name === null || (key === 'gates' && typeof e !== 'string')) {
          return `"${where}" must be a scorer name (e.g. "calledTool(weather)" or "answer-relevancy")${key === 'scorers' ? ' or { "scorer": name, "threshold": 0.7 }' : ''}`
        }
        const bad = nameError(name, where)
        if (bad) return bad
      }
    }
  }
  return null
}

/** The assertion names of a valid row's turns (into `names`). */
export function collectTurnNames(item, names) {
  if (!Array.isArray(item.turns)) return names
  for (const t of item.turns) for (const e of [...(t.gates || []), ...(t.scorers || [])]) names.add(nameOf(e))
  return names
}

/**
 * The scorer of each turn assertion name, built once: `build(name)` makes one (a check or a
 * registry scorer, as the run's own; a usage error when it cannot, e.g. no --model).
 */
export function turnScorers(names, build) {
  const out = new Map()
  for (const name of names) out.set(name, build(name))
  return out
}

/** The row's turn assertion names replaced by their scorers, in place (runEvals keeps the item object). */
export function applyTurnScorers(item, byName) {
  if (!Array.isArray(item.turns)) return item
  for (const t of item.turns) {
    if (Array.isArray(t.gates)) t.gates = t.gates.map((name) => byName.get(name))
    if (Array.isArray(t.scorers)) t.scorers = t.scorers.map((e) => (typeof e === 'string' ? byName.get(e) : { scorer: byName.get(e.scorer), threshold: e.threshold }))
  }
  return item
}

/**
 * A config's `scorers` in the categorized form (`{ agent?, trajectory? }`, Mastra's
 * AgentScorerConfig): its entries with their category, or null for any other form. Each entry
 * is a scorer object or `{ scorer, threshold }` with a scorer object (a built-in by name: its
 * factory, e.g. createTrajectoryAccuracyScorerCode()).
 */
export function categorizedEntries(scorers, path, isScorer) {
  if (scorers === null || typeof scorers !== 'object' || Array.isArray(scorers)) return null
  const out = []
  for (const [category, list] of Object.entries(scorers)) {
    if (category !== 'agent' && category !== 'trajectory') throw new UsageError(`${path}: scorers must be an array or { agent, trajectory }; got the key "${category}"`)
    if (!Array.isArray(list)) throw new UsageError(`${path}: scorers.${category} must be an array`)
    list.forEach((e, i) => {
      const where = `scorers.${category}[${i}]`
      if (isScorer(e)) out.push({ scorer: e, category })
      else if (e && typeof e === 'object' && isScorer(e.scorer)) out.push(e.threshold !== undefined ? { scorer: e.scorer, threshold: e.threshold, category } : { scorer: e.scorer, category })
      else throw new UsageError(`${path}: ${where} must be a scorer object or { scorer, threshold } (in the categorized form, built-in scorers are given as objects: e.g. createTrajectoryAccuracyScorerCode())`)
    })
  }
  return out
}

/** The run's scorer entries as runEvals takes them: the categorized form when any has a category. */
export function scorersOption(entries) {
  if (!entries.some((e) => e.category)) return entries.map(({ category: _c, ...e }) => (e.threshold !== undefined ? e : e.scorer ?? e))
  const out = { agent: [], trajectory: [] }
  for (const e of entries) out[e.category ?? 'agent'].push(e.threshold !== undefined ? { scorer: e.scorer, threshold: e.threshold } : e.scorer)
  return out
}

/**
 * A target whose outputs are kept in `dir` (`--cache-targets`), for agent items too: a
 * conversation is kept whole (one file per item, every turn's output, written after its last
 * turn) and replayed whole, never half (an agent's memory would miss the turns not called).
 * `key(item, input)` names an item's file; `call(input, ctx)` calls the target (an Agent: one
 * `generate()` on the conversation's thread, its scorer data as the output).
 */
export function conversationCache({ read, write }) {
  const live = new Map()
  return async (input, ctx, call) => {
    const turn = ctx.turn
    if (!turn) {
      const hit = read(ctx.item, input)
      if (hit && 'output' in hit) return hit.output
      const output = await call(input, ctx)
      write(ctx.item, input, { output })
      return output
    }
    // a conversation: replayed when every turn is kept, else run live (and kept at its end)
    let state = live.get(ctx.threadId)
    if (!state) {
      const hit = read(ctx.item, input)
      state = { replay: hit && Array.isArray(hit.turns) && hit.turns.length === turn.count ? hit.turns : null, outputs: [] }
      live.set(ctx.threadId, state)
    }
    let output
    if (state.replay) output = state.replay[turn.index]
    else {
      try {
        output = await call(input, ctx)
      } catch (e) {
        // the conversation ends here (runEvals records the item's error): nothing is kept
        live.delete(ctx.threadId)
        throw e
      }
      state.outputs[turn.index] = output
    }
    if (turn.index === turn.count - 1) {
      live.delete(ctx.threadId)
      if (!state.replay) write(ctx.item, input, { turns: state.outputs })
    }
    return output
  }
}
