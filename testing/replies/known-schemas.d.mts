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
/** `spec.steps[*].schema` (throws for a spec without `steps`: a stale generated file). */
export declare function stepSchemasOf(spec: RegistrySpec): string[]
/** Every step schema name of `registry` (default: the generated one). */
export declare function knownSchemas(registry?: readonly RegistrySpec[]): Set<string>
