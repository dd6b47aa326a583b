// Registry-driven: every factory in generated/scorers.js (generated from the core's scorer
// registry) has its Vitest spec, its Rust HTTP test, its decision table and its docs row (README.md or a page of docs/), and
// every judge step schema it sends has a default reply in the scripted judge. The names follow
// the tree's conventions (see `expected` below); a scorer that has one under another name is a
// row of EXCEPTIONS, never a skip.
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any
import { createTestJudge } from '../testing/test-judge.mjs'
import { DEFAULT_REPLIES, heuristicJudge } from '../testing/replies/index.mjs'
import { knownSchemas, stepSchemasOf } from '../testing/replies/known-schemas.mjs'

interface Spec {
  factory: string
  id: string
  kind?: string
  steps?: { name: string; type: string; description?: string; schema?: string }[]
}

const require = createRequire(import.meta.url)
const ROOT = join(__dirname, '..')
const REGISTRY = require('../generated/scorers.js') as Spec[]

/** Where a scorer's artifacts live when the conventions below do not name them. */
interface Where {
  /** Base name of its spec (`__test__/<name>.spec.ts`) and decision table (`docs/decision-tables/<name>.md`). */
  name?: string
  /** Its Rust HTTP test, a file of crates/oxeval-core/tests/; `null`: none (a code scorer makes no HTTP call). */
  rust?: string | null
  /** The Rust type its HTTP test builds. */
  rustType?: string
  /** Its entry in README.md or docs/: a table row (default), or its own section (`Scorer: id \`<id>\``). */
  readme?: 'row' | 'section'
  /** Why, for the reader. */
  why: string
}

const EXCEPTIONS: Record<string, Where> = {
  createAnswerRelevancyScorer: { readme: 'section', why: 'the first scorer: docs/scorers-mastra.md documents it in its own section, not a table row' },
  createFactualCorrectnessScorer: { rust: 'ragas_http.rs', why: 'the four Ragas scorers share one HTTP test' },
  createAnswerAccuracyScorer: { rust: 'ragas_http.rs', why: 'the four Ragas scorers share one HTTP test' },
  createContextRelevanceScorer: { name: 'context-relevance', rust: 'ragas_http.rs', why: "NVIDIA's context relevance: id nv-context-relevance-scorer, files named context-relevance" },
  createResponseGroundednessScorer: { rust: 'ragas_http.rs', why: 'the four Ragas scorers share one HTTP test' },
  createContextRelevanceScorerLLM: { name: 'context-relevance-llm', rustType: 'ContextRelevanceLlm', why: "Mastra's id context-relevance-scorer; files say -llm beside NVIDIA's context relevance" },
  ...Object.fromEntries(
    ['createToolCallAccuracyScorerCode', 'createTrajectoryAccuracyScorerCode', 'createTrajectoryScorerCode', 'includes', 'excludes', 'equals', 'matches', 'similarity', 'calledTool', 'didNotCall', 'toolOrder', 'maxToolCalls', 'usedNoTools', 'noToolErrors'].map((f) => [
      f,
      { name: 'code-agent-parity', rust: null, why: 'a code scorer or check: no judge, so no HTTP test (its Rust unit tables live beside it); one differential spec and one decision table cover the fourteen' },
    ]),
  ),
  // the five text code scorers: one differential spec and one decision table; no judge, so no HTTP test
  createCompletenessScorer: { name: 'code-text-parity', rust: null, why: 'a text code scorer: no judge to call over HTTP; one differential spec and decision table for the five' },
  createContentSimilarityScorer: { name: 'code-text-parity', rust: null, why: 'a text code scorer: no judge to call over HTTP; one differential spec and decision table for the five' },
  createKeywordCoverageScorer: { name: 'code-text-parity', rust: null, why: 'a text code scorer: no judge to call over HTTP; one differential spec and decision table for the five' },
  createTextualDifferenceScorer: { name: 'code-text-parity', rust: null, why: 'a text code scorer: no judge to call over HTTP; one differential spec and decision table for the five' },
  createToneScorer: { name: 'code-text-parity', rust: null, why: 'a text code scorer: no judge to call over HTTP; one differential spec and decision table for the five' },
  createSemanticSimilarityScorer: { name: 'semantic-similarity', rust: 'semantic_similarity_http.rs', why: 'id ragas-semantic-similarity: spec, decision table and HTTP test named semantic-similarity' },
  // Ragas's no-judge metrics: one parity spec against ragas itself and one decision table
  ...Object.fromEntries(
    ['createExactMatchScorer', 'createStringPresenceScorer', 'createStringSimilarityScorer', 'createChrfScorer', 'createBleuScorer', 'createRougeScorer', 'createQuotedSpansAlignmentScorer', 'createToolCallAccuracyScorer', 'createToolCallF1Scorer'].map((f) => [
      f,
      { name: 'ragas-nonllm-parity', rust: null, why: "a Ragas metric without a judge: no HTTP call; one parity spec (vs ragas 0.4.3) and one decision table cover the nine" },
    ]),
  ),
}

/** README.md and the pages of docs/ (where the scorers' rows live; not the decision tables). */
const readme = [join(ROOT, 'README.md'), ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(ROOT, 'docs', f))]
  .map((p) => readFileSync(p, 'utf8'))
  .join('\n')
const RUST_TESTS = join(ROOT, 'crates', 'oxeval-core', 'tests')
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const word = (w: string) => new RegExp(`(?<![A-Za-z0-9_])${escape(w)}(?![A-Za-z0-9_])`)
const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined)

/**
 * The conventions: spec and decision table named by the id, with or without its `-scorer`
 * suffix (`faithfulness-scorer.spec.ts`, `answer-relevancy.md`); the Rust HTTP test
 * `<that name in snake_case>_http.rs`, naming the scorer's Rust type (the factory without
 * `create`, `Scorer` and a trailing `LLM`) or its id; the docs row starting "| `<factory>(".
 */
export function expected(spec: Spec) {
  const w = EXCEPTIONS[spec.factory]
  const names = w?.name ? [w.name] : [...new Set([spec.id, spec.id.replace(/-scorer$/, '')])]
  const short = names[names.length - 1]
  return {
    specs: names.map((n) => `__test__/${n}.spec.ts`),
    tables: names.map((n) => `docs/decision-tables/${n}.md`),
    rust: w?.rust === null ? null : (w?.rust ?? `${short.replace(/-/g, '_')}_http.rs`),
    rustType: w?.rustType ?? spec.factory.replace(/^create/, '').replace(/Scorer(LLM)?$/, ''),
    readme: w?.readme ?? 'row',
  }
}

/** What `spec` lacks, one line per missing artifact ([] when complete). */
export function missing(spec: Spec): string[] {
  const e = expected(spec)
  const out: string[] = []
  const specText = e.specs.map((p) => read(join(ROOT, p))).find((t) => t !== undefined)
  if (specText === undefined) out.push(`Vitest spec: none of ${e.specs.join(', ')}`)
  else if (!word(spec.factory).test(specText)) out.push(`Vitest spec: ${e.specs.join(' / ')} never calls ${spec.factory}`)
  const rustText = e.rust === null ? '' : read(join(RUST_TESTS, e.rust))
  if (e.rust === null) {
    // no HTTP test: a code scorer (EXCEPTIONS says why)
  } else if (rustText === undefined) out.push(`Rust HTTP test: no crates/oxeval-core/tests/${e.rust}`)
  else if (!word(e.rustType).test(rustText) && !rustText.includes(`"${spec.id}"`)) out.push(`Rust HTTP test: ${e.rust} names neither ${e.rustType} nor "${spec.id}"`)
  const table = e.tables.map((p) => read(join(ROOT, p))).find((t) => t !== undefined)
  if (table === undefined || !/^# \S/.test(table)) out.push(`decision table: none of ${e.tables.join(', ')} (with a "# " title)`)
  if (e.readme === 'row') {
    if (!new RegExp(`^\\| \`${escape(spec.factory)}[(\`]`, 'm').test(readme)) out.push(`docs row: no table row starting "| \`${spec.factory}("`)
  } else if (!readme.includes(`Scorer: id \`${spec.id}\``)) out.push(`docs section: no "Scorer: id \`${spec.id}\`"`)
  return out
}

describe('every registered factory has its spec, HTTP test, decision table and docs row', () => {
  it('the registry lists the factories (generated/scorers.js)', () => {
    expect(REGISTRY.length).toBeGreaterThanOrEqual(13)
    expect(new Set(REGISTRY.map((s) => s.factory)).size).toBe(REGISTRY.length)
  })

  it.each(REGISTRY)('$factory', (spec) => {
    expect(missing(spec)).toEqual([])
  })

  it('EXCEPTIONS names registered factories only, each with a reason', () => {
    const factories = new Set(REGISTRY.map((s) => s.factory))
    for (const [factory, w] of Object.entries(EXCEPTIONS)) {
      expect(factories.has(factory), factory).toBe(true)
      expect(w.why.length).toBeGreaterThan(10)
    }
  })

  it('a factory without any of them is reported four times', () => {
    expect(missing({ factory: 'createMadeUpScorer', id: 'made-up-scorer' })).toEqual([
      'Vitest spec: none of __test__/made-up-scorer.spec.ts, __test__/made-up.spec.ts',
      'Rust HTTP test: no crates/oxeval-core/tests/made_up_http.rs',
      'decision table: none of docs/decision-tables/made-up-scorer.md, docs/decision-tables/made-up.md (with a "# " title)',
      'docs row: no table row starting "| `createMadeUpScorer("',
    ])
  })

  it('files that exist but do not name the scorer are reported', () => {
    // answer relevancy's files, claimed by another factory name
    const lacks = missing({ factory: 'createAnswerRelevancyV2Scorer', id: 'answer-relevancy-scorer' })
    expect(lacks).toEqual([
      'Vitest spec: __test__/answer-relevancy-scorer.spec.ts / __test__/answer-relevancy.spec.ts never calls createAnswerRelevancyV2Scorer',
      'Rust HTTP test: answer_relevancy_http.rs names neither AnswerRelevancyV2 nor "answer-relevancy-scorer"',
      'docs row: no table row starting "| `createAnswerRelevancyV2Scorer("',
    ])
  })

  it('every Rust *_http.rs scorer test belongs to a registered scorer or is infrastructure', () => {
    const claimed = new Set(REGISTRY.map((s) => expected(s).rust))
    const infrastructure = ['cache_modes_http.rs', 'providers_http.rs', 'batch_http.rs']
    const files = readdirSync(RUST_TESTS).filter((f) => f.endsWith('_http.rs'))
    expect(files.filter((f) => !claimed.has(f) && !infrastructure.includes(f))).toEqual([])
  })
})

describe('the scripted judge knows every step schema of the registry', () => {
  it.each(REGISTRY)('$factory: its step schemas have a default reply', (spec) => {
    const schemas = stepSchemasOf(spec)
    // an LLM scorer sends at least one structured step; code scorers send none
    if ((spec.kind ?? 'llm') === 'llm') expect(schemas.length, `${spec.id}: no step schema in the registry's steps`).toBeGreaterThan(0)
    expect(schemas.filter((s) => !DEFAULT_REPLIES.has(s))).toEqual([])
  })

  it("known schemas: the registry steps' schema names (function and free-text steps have none)", () => {
    const withSteps: Spec[] = [
      {
        factory: 'createX',
        id: 'answer-relevancy-scorer',
        steps: [
          { name: 'preprocess', type: 'prompt', schema: 'x_statements' },
          { name: 'generateScore', type: 'function' },
          { name: 'generateReason', type: 'prompt' },
        ],
      },
      { factory: 'createY', id: 'y', kind: 'code', steps: [{ name: 'generateScore', type: 'function' }] },
    ]
    expect([...knownSchemas(withSteps)]).toEqual(['x_statements'])
    // a stale generated file (no steps) is an error, not an empty list
    expect(() => stepSchemasOf({ factory: 'createZ', id: 'z' })).toThrow(/has no steps; run npm run generate/)
  })

  it('every registry scorer lists its steps and run fields', () => {
    for (const s of REGISTRY) {
      expect(Array.isArray(s.steps), s.id).toBe(true)
      expect(Array.isArray(s.runFields), s.id).toBe(true)
    }
  })
})

describe('the scripted judge answers each registry step schema in every wire format', () => {
  const DATA = { input: 'Where is Paris?', output: 'Paris is in France. It is big.', text: 'Paris is in France.', statements: ['Paris is in France.'], claims: ['Paris is in France.'], context: ['Paris is the capital of France.'], ground_truth: 'Paris is in France.', candidate_answer: 'Paris', reference_answer: 'Paris' }
  const user = `Judge this.\nDATA: ${JSON.stringify(DATA)}`
  /** A request body naming `schema` natively in each wire format. */
  const bodies = (schema: string) => ({
    openai: { messages: [{ role: 'user', content: user }], response_format: { type: 'json_schema', json_schema: { name: schema, schema: { type: 'object' } } } },
    anthropic: { max_tokens: 100, messages: [{ role: 'user', content: user }], tools: [{ name: schema, input_schema: { type: 'object' } }], tool_choice: { type: 'tool', name: schema } },
    google: { contents: [{ role: 'user', parts: [{ text: user }] }], generationConfig: { responseJsonSchema: { title: schema, type: 'object' } } },
  })

  it.each([...knownSchemas()])('%s: the family default reply, whichever wire format names it', (schema) => {
    const want = DEFAULT_REPLIES.get(schema)!(DATA, { schema, format: undefined, req: undefined as Any })
    expect(want.status).toBeUndefined()
    for (const [api, body] of Object.entries(bodies(schema))) {
      expect(heuristicJudge({ api, body, text: user, user, system: '' } as Any), api).toEqual(want)
    }
  })

  it("createTestJudge routes a Gemini step by its schema title (the wire formats' native name)", async () => {
    const judge = await createTestJudge()
    try {
      const res = await fetch(`${judge.server.origin}/v1beta/models/gemini-x:generateContent`, { method: 'POST', body: JSON.stringify(bodies('faithfulness_claims').google) })
      expect(res.status).toBe(200)
      const text = (await res.json()).candidates[0].content.parts[0].text
      expect(JSON.parse(text)).toEqual({ claims: ['Paris is in France.', 'It is big.'] })
      expect(judge.requestsFor('faithfulness_claims')).toHaveLength(1)
    } finally {
      await judge.close()
    }
  })
})
