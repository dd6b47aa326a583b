// The structured-output schema names oxeval's judge steps send, from the scorer registry
// (generated/scorers.js, generated from the core's registry): each spec's
// `steps[*].schema` when the registry carries steps, else the scorer's row of the table below
// (the names before the registry described its steps).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
/** The generated registry: [{ factory, id, contextExtractor, steps?, kind?, runFields? }]. */
export const REGISTRY = require('../../generated/scorers.js')

/** Step schema names per scorer id, for a registry without `steps`. */
export const FALLBACK_STEP_SCHEMAS = Object.freeze({
  'answer-relevancy-scorer': ['answer_relevancy_statements', 'answer_relevancy_verdicts'],
  'factual-correctness-scorer': ['factual_correctness_claims', 'factual_correctness_verdicts'],
  'answer-accuracy-scorer': ['nv_rating_0_2_4'],
  'nv-context-relevance-scorer': ['nv_rating_0_1_2'],
  'response-groundedness-scorer': ['nv_rating_0_1_2'],
  'faithfulness-scorer': ['faithfulness_claims', 'faithfulness_verdicts'],
  'hallucination-scorer': ['hallucination_claims', 'hallucination_verdicts'],
  'context-precision-scorer': ['context_precision_verdicts'],
  'context-recall-scorer': ['context_recall_claims', 'context_recall_verdicts'],
  'context-relevance-scorer': ['context_relevance_llm_analysis'],
  'answer-similarity-scorer': ['answer_similarity_units', 'answer_similarity_analysis'],
  'summarization-scorer': ['summarization_source_judgement', 'summarization_coverage'],
  'noise-sensitivity-scorer': ['noise_sensitivity_analysis'],
})

/**
 * The step schema names of one registry spec: `spec.steps[*].schema` when the spec lists its
 * steps (free-text and function steps have none), else its fallback row ([] when it has none).
 */
export function stepSchemasOf(spec) {
  if (Array.isArray(spec?.steps)) return [...new Set(spec.steps.map((s) => s?.schema).filter((s) => typeof s === 'string' && s !== ''))]
  return [...(FALLBACK_STEP_SCHEMAS[spec?.id] ?? [])]
}

/** Every step schema name of `registry` (default: the generated one), in registry order. */
export function knownSchemas(registry = REGISTRY) {
  return new Set(registry.flatMap(stepSchemasOf))
}
