// Token log-probabilities in a scripted reply (`reply.logprobs`: [{ token, logprob, top?:
// [{ token, logprob }] }], the tokens spelling the reply's text) as each wire returns them:
// OpenAI chat `choices[0].logprobs.content`, Gemini `candidates[0].logprobsResult`.

/** `reply.logprobs` as OpenAI chat's `choices[0].logprobs` (null when the reply has none). */
export function openaiLogprobs(reply) {
  if (!Array.isArray(reply.logprobs)) return null
  const entry = (t) => ({ token: t.token, logprob: t.logprob, bytes: [...Buffer.from(t.token)] })
  return { content: reply.logprobs.map((t) => ({ ...entry(t), top_logprobs: (t.top ?? []).map(entry) })), refusal: null }
}

/** `reply.logprobs` as Gemini's `logprobsResult` (undefined when the reply has none). */
export function geminiLogprobs(reply) {
  if (!Array.isArray(reply.logprobs)) return undefined
  const entry = (t) => ({ token: t.token, tokenId: 0, logProbability: t.logprob })
  return {
    topCandidates: reply.logprobs.map((t) => ({ candidates: (t.top ?? []).map(entry) })),
    chosenCandidates: reply.logprobs.map(entry),
  }
}

/**
 * Tokens for a JSON `text` whose string value `value` (its first occurrence, quoted) is one
 * token with the alternatives `alternatives` ({ token: probability }; the value itself among
 * them): the text before it, the value, the text after. For tests of log-probability readers.
 */
export function valueLogprobs(text, value, alternatives) {
  const quoted = JSON.stringify(value)
  const at = text.indexOf(quoted)
  if (at < 0) throw new Error(`valueLogprobs: ${quoted} is not in the text`)
  const start = at + 1
  const end = start + quoted.length - 2
  const top = Object.entries(alternatives).map(([token, p]) => ({ token, logprob: Math.log(p) }))
  const own = top.find((t) => t.token === value)
  return [
    { token: text.slice(0, start), logprob: 0 },
    { token: value, logprob: own ? own.logprob : Math.log(0.5), top },
    { token: text.slice(end), logprob: 0 },
  ]
}
