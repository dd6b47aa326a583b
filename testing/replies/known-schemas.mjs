// The structured-output schema names oxeval's judge steps send, from the scorer registry
// (generated/scorers.js, generated from the core's registry): each spec's `steps[*].schema`.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
/** The generated registry: [{ factory, id, contextExtractor, kind, steps, runFields }]. */
export const REGISTRY = require('../../generated/scorers.js')

/**
 * The step schema names of one registry spec: `spec.steps[*].schema` (free-text and function
 * steps have none). A spec without `steps` is a generated file older than the registry's step
 * list: run `npm run generate`.
 */
export function stepSchemasOf(spec) {
  if (!Array.isArray(spec?.steps)) throw new Error(`generated/scorers.js: ${spec?.id ?? 'a scorer'} has no steps; run npm run generate`)
  return [...new Set(spec.steps.map((s) => s?.schema).filter((s) => typeof s === 'string' && s !== ''))]
}

/** Every step schema name of `registry` (default: the generated one), in registry order. */
export function knownSchemas(registry = REGISTRY) {
  return new Set(registry.flatMap(stepSchemasOf))
}
