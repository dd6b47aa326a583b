/** One scorer of the generated registry (generated/scorers.js). */
export interface RegistrySpec {
  factory: string
  id: string
  contextExtractor?: boolean
  kind?: string
  steps?: { name: string; type: string; description?: string; schema?: string }[]
  runFields?: unknown
}
export declare const REGISTRY: readonly RegistrySpec[]
/** Step schema names per scorer id, for a registry without `steps`. */
export declare const FALLBACK_STEP_SCHEMAS: Readonly<Record<string, readonly string[]>>
/** `spec.steps[*].schema` when the spec lists its steps, else its fallback row ([] when none). */
export declare function stepSchemasOf(spec: RegistrySpec): string[]
/** Every step schema name of `registry` (default: the generated one). */
export declare function knownSchemas(registry?: readonly RegistrySpec[]): Set<string>
