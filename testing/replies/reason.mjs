// Default reply of a free-text step (every scorer's generateReason): a sentence naming the score
// and, when the DATA carries verdicts, how many of them say yes.
import { fail } from './text.mjs'

/** The reply to a request without a schema name. */
export function reasonReply(data, { format }) {
  if (format && format.type !== 'text') return fail('JSON output requested but no schema name (response_format.json_schema.name or "Output schema name:" marker)')
  // Plain-text reason prompt.
  const score = typeof data.score === 'number' || typeof data.score === 'string' ? data.score : Object.values(data).find((v) => typeof v === 'number')
  if (score === undefined) return { content: 'The score reflects how well the output addresses the input according to the heuristic judge.' }
  if (Array.isArray(data.verdicts) && data.verdicts.some((v) => v && 'result' in v)) {
    // answer relevancy reason: count the verdicts it was given
    const n = data.verdicts.length
    const count = (v) => data.verdicts.filter((x) => String(x?.result).trim().toLowerCase() === v).length
    return {
      content: `The score is ${score} because ${count('yes')} of ${n} statements address the input, ${count('unsure')} partly and ${count('no')} not at all (word-overlap heuristic).`,
    }
  }
  if (Array.isArray(data.verdicts)) {
    const n = data.verdicts.length
    const yes = data.verdicts.filter((x) => String(x?.verdict).trim().toLowerCase() === 'yes').length
    return { content: `The score is ${score} because ${yes} of ${n} verdicts are "yes" (word-overlap heuristic).` }
  }
  const high = Number(score) >= 0.5
  return {
    content: `The score is ${score} because the heuristic judge found the output ${high ? 'largely' : 'poorly'} supported by the given data.`,
  }
}
