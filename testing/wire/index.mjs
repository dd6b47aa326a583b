// The wire formats the judge server speaks, routed by request path. Each module exports one
// object: matches(path), read(body) → { system, user, text }, invalid(rec) → 400 message,
// stream(body), promptChars(rec), schemaName(body), schema(body), errorPayload(status,
// message, reply), render(reply, rec, parts). Adding a format = one module + one line here.
import { anthropic } from './anthropic.mjs'
import { google } from './google.mjs'
import { azure, openai } from './openai.mjs'

/** In routing order: Azure's path also ends in /chat/completions. */
export const WIRES = Object.freeze([azure, openai, anthropic, google])
const BY_NAME = new Map(WIRES.map((w) => [w.name, w]))
/** The order a body's schema name / schema is looked for, whatever its path. */
const SCHEMA_ORDER = [openai, anthropic, google]

/** The wire format of a request path (undefined: none). */
export const wireOf = (path) => WIRES.find((w) => w.matches(path))

/** The wire format named `api` (OpenAI's for errors on unrouted paths). */
export const wireNamed = (api) => BY_NAME.get(api) ?? openai

/**
 * The schema name a request carries natively: OpenAI/Azure `response_format.json_schema.name`,
 * Anthropic's forced tool (`tool_choice.name`), Gemini's schema `title`.
 */
export function nativeSchemaName(body) {
  if (!body || typeof body !== 'object') return undefined
  for (const w of SCHEMA_ORDER) {
    const name = w.schemaName(body)
    if (name !== undefined) return name
  }
  return undefined
}

/**
 * The JSON schema a request asks for: OpenAI/Azure `response_format.json_schema.schema`,
 * Anthropic's forced tool's `input_schema`, Gemini's `responseJsonSchema`, or the schema
 * written into the prompt (`… matches this JSON schema:` then the JSON). Undefined when none.
 * @param {import('../judge-server').RecordedRequest} req
 */
export function requestSchema(req) {
  const body = req.body
  if (body && typeof body === 'object') {
    for (const w of SCHEMA_ORDER) {
      const schema = w.schema(body)
      if (schema) return schema
    }
  }
  const m = /JSON schema:\s*\n(\{[^\n]*\})/.exec(req.text ?? '')
  if (m) {
    try {
      return JSON.parse(m[1])
    } catch {
      return undefined
    }
  }
  return undefined
}
