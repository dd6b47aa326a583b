// heuristicJudge: a deterministic "LLM" for oxeval's scorer prompts. The default reply of a
// step comes from its scorer family's module (one table per family, keyed by the step's schema
// name); a free-text step gets reason.mjs's sentence; any other structured step a valid
// instance of the schema the request carries (schema-instance.mjs).
import { nativeSchemaName, requestSchema } from '../wire/index.mjs'
import { replies as agent } from './agent.mjs'
import { replies as answerRelevancy } from './answer-relevancy.mjs'
import { replies as answerSimilarity } from './answer-similarity.mjs'
import { replies as classifier } from './classifier.mjs'
import { replies as contextRelevanceLlm } from './context-relevance-llm.mjs'
import { replies as factualCorrectness } from './factual-correctness.mjs'
import { knownSchemas } from './known-schemas.mjs'
import { replies as mastraRag } from './mastra-rag.mjs'
import { replies as noiseSensitivity } from './noise-sensitivity.mjs'
import { replies as nvidia } from './nvidia.mjs'
import { reasonReply } from './reason.mjs'
import { schemaInstance } from './schema-instance.mjs'
import { replies as summarization } from './summarization.mjs'
import { fail, findData } from './text.mjs'

/** Per family, schema name → (data, { schema, format, req }) → reply. */
export const FAMILY_REPLIES = Object.freeze({
  'answer-relevancy': answerRelevancy,
  'factual-correctness': factualCorrectness,
  'mastra-rag': mastraRag,
  'context-relevance-llm': contextRelevanceLlm,
  'answer-similarity': answerSimilarity,
  summarization,
  'noise-sensitivity': noiseSensitivity,
  nvidia,
  agent,
  classifier,
})

/** Schema name → its family's default reply (a schema in two families is an error). */
export const DEFAULT_REPLIES = (() => {
  const out = new Map()
  for (const [family, table] of Object.entries(FAMILY_REPLIES)) {
    for (const [schema, reply] of Object.entries(table)) {
      if (out.has(schema)) throw new Error(`heuristicJudge: schema ${schema} has a default reply in two families`)
      out.set(schema, reply)
    }
  }
  return out
})()

/** The schema names the registry's judge steps send (see known-schemas.mjs). */
export const KNOWN_SCHEMAS = knownSchemas()

/**
 * Produces a plausible judge answer for oxeval's prompts without an LLM.
 * @param {import('../judge-server').RecordedRequest} req
 * @returns {import('../judge-server').ReplyObject}
 */
export function heuristicJudge(req) {
  const format = req.body?.response_format
  const nativeName = nativeSchemaName(req.body)
  const marker = /Output schema name:\s*([A-Za-z0-9_.-]+)/.exec(req.text ?? '')?.[1]
  const schema = KNOWN_SCHEMAS.has(nativeName) ? nativeName : (marker ?? nativeName)

  const data = findData(req)
  if (!data) {
    // a prompt the user wrote (a custom scorer's step): a valid instance of its schema
    // (oxeval's own prompts always carry a DATA line)
    const requested = requestSchema(req)
    if (requested && !KNOWN_SCHEMAS.has(schema)) return { json: schemaInstance(requested, {}) }
    return fail(`no parseable "DATA: {...}" line in the prompt (schema: ${schema ?? 'none'})`)
  }

  if (schema === undefined) return reasonReply(data, { format })
  const reply = DEFAULT_REPLIES.get(schema)
  if (reply) return reply(data, { schema, format, req })
  // Any other scorer's step: a valid instance of the schema the request carries, shaped
  // by the DATA (one array item per item of the DATA's list, the texts' sentences).
  const requested = requestSchema(req)
  if (requested) return { json: schemaInstance(requested, data) }
  return fail(
    `unknown schema name ${JSON.stringify(schema)} and no JSON schema in the request; known: ${[...KNOWN_SCHEMAS].join(', ')} ` +
      '(via response_format.json_schema.name or an "Output schema name: <name>" prompt line)',
  )
}
