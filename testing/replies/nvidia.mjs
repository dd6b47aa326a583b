// Default replies of the NVIDIA metrics (answer accuracy 0/2/4, context relevance and response
// groundedness 0/1/2): the top rating when most content words of the response are in the
// reference or context.
import { contentWords, fail, pick } from './text.mjs'

function rate(data, { schema }) {
  // oxeval's DATA keys per judge: answer accuracy (candidate_answer/reference_answer,
  // proposed_answer/ground_truth), context relevance (question/context, question/passage),
  // response groundedness (response/context, reply/passages)
  const a = pick(data, 'candidate_answer', 'proposed_answer', 'response', 'reply', 'output', 'answer', 'user_input', 'input', 'question')
  const b = pick(data, 'reference_answer', 'ground_truth', 'reference', 'expected', 'context', 'passage', 'passages', 'contexts', 'retrieved_contexts', 'premise')
  if (a === undefined || b === undefined) return fail(`${schema} needs a response/input field and a reference/context field in DATA`)
  const aw = [...contentWords(a, 3)]
  const bw = contentWords(b, 3)
  const overlap = aw.length ? aw.filter((w) => bw.has(w)).length / aw.length : 0
  const scale = schema === 'nv_rating_0_2_4' ? [0, 2, 4] : [0, 1, 2]
  const rating = overlap >= 0.7 ? scale[2] : overlap >= 0.3 ? scale[1] : scale[0]
  return { json: { rating } }
}

export const replies = {
  nv_rating_0_2_4: rate,
  nv_rating_0_1_2: rate,
}
