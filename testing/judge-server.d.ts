// Type declarations for judge-server.mjs: a local fake LLM judge for tests, demos and
// benchmarks. It speaks OpenAI Chat Completions (POST */chat/completions), Azure OpenAI
// (POST */openai/deployments/{d}/chat/completions?api-version=…), Anthropic Messages
// (POST */messages) and Google Gemini (POST */models/{m}:generateContent); replies and
// faults are scripted once and rendered in the wire format of each request. It also speaks
// the four batch APIs (OpenAI and Azure files + batches, Anthropic Message Batches, Gemini
// batchGenerateContent), answering each line as the direct request of its format.

import type { IncomingHttpHeaders, Server } from 'node:http'

/** Faults a scripted reply can request via `fault`. */
export type ScriptedFault = 'reset' | 'hang' | 'truncate' | 'empty'

/** Faults the seeded random injector (`options.faults`) can produce. */
export type RandomFaultKind =
  | '429'
  | '500'
  | '502'
  | '503'
  | 'reset'
  | 'hang'
  | 'truncate'
  | 'invalid-json'
  | 'schema-invalid'
  | 'empty'
  | 'length'

/** All random fault kinds, in the order used when `faults.kinds` is omitted. */
export declare const RANDOM_FAULT_KINDS: readonly RandomFaultKind[]

export interface Usage {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
}

/** One OpenAI chat message as sent by the client. */
export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | (string & {})
  content: string | Array<{ type: string; text?: string; [key: string]: unknown }> | null
  [key: string]: unknown
}

/** OpenAI Chat Completions request body (fields the fake judge looks at). */
export interface ChatCompletionRequestBody {
  model?: string
  messages: ChatMessage[]
  temperature?: number
  max_tokens?: number
  max_completion_tokens?: number
  response_format?:
    | { type: 'text' }
    | { type: 'json_object' }
    | { type: 'json_schema'; json_schema: { name?: string; schema?: unknown; strict?: boolean; description?: string } }
  stream?: boolean
  stream_options?: { include_usage?: boolean }
  [key: string]: unknown
}

/** The wire formats the fake judge speaks, chosen by the request path. */
export type JudgeApi = 'openai' | 'azure' | 'anthropic' | 'google' | EmbeddingsApi

/**
 * The embeddings endpoints: OpenAI `POST …/embeddings`, Azure OpenAI
 * `POST …/deployments/{d}/embeddings?api-version=…`, Gemini `POST …/models/{m}:batchEmbedContents`.
 */
export type EmbeddingsApi = 'openai-embeddings' | 'azure-embeddings' | 'google-embeddings'

/** Everything recorded about one HTTP request (including faulted/invalid ones). */
export interface RecordedRequest {
  /** 0-based arrival index (restarts at 0 after `reset()`). */
  index: number
  method: string
  /** URL pathname, e.g. "/v1/chat/completions". */
  path: string
  /** URL query parameters, e.g. `{ 'api-version': '2024-10-21' }` (Azure). */
  query: Record<string, string>
  /** The wire format of the path; null when no route matches (answered 404). */
  api: JudgeApi | null
  /** Request headers, lowercased names. */
  headers: IncomingHttpHeaders
  /**
   * Parsed JSON body when it is a JSON object, else null (see `raw`). The OpenAI shape is
   * typed; Anthropic and Gemini bodies are their own shapes (read them through `text`,
   * `system`, `user`, `schemaName`). Requests without `messages` (Gemini: `contents`), an
   * Anthropic request without `max_tokens` and an Azure request without `api-version` are
   * answered 400.
   */
  body: ChatCompletionRequestBody | null
  /** Raw request body text. */
  raw: string
  /** All message contents (parts normalized to strings; Anthropic `system` and Gemini `systemInstruction` first) joined with '\n'. */
  text: string
  /** System (and 'developer') message contents, Anthropic `system`, Gemini `systemInstruction`, joined with '\n'. */
  system: string
  /** User message contents joined with '\n'. */
  user: string
  /**
   * The step schema the request names: natively (OpenAI `response_format.json_schema.name`,
   * Anthropic's forced tool `tool_choice.name`, Gemini's `responseJsonSchema.title`), else the
   * system message's `Output schema name: <name>` line; null for free-text requests.
   */
  schemaName: string | null
  /** Date.now() when the body had been fully received. */
  receivedAt: number
  /** `body.stream === true` (OpenAI and Azure only). */
  stream: boolean
  /** Fault applied to this request (random kind or scripted fault), else null. */
  fault: RandomFaultKind | ScriptedFault | null
  /** HTTP status written, or null while pending / when no response was sent (reset, hang). */
  status: number | null
  /** A batch line: the id of the batch it came in (its answer was given when the batch ended). */
  batch?: string
  /** A batch line: its `custom_id` (Gemini: its `metadata.key`). */
  customId?: string
  /** An embeddings request: the texts it carried, in order (`text` is them joined with '\n'). */
  texts?: string[]
}

/**
 * The reply to an embeddings request (`server.onEmbeddings`): `embeddings` as given (one per
 * text, or deliberately not), an HTTP error (`status` >= 400 with `content`), a raw `body`, a
 * connection `fault`, or `content` as the raw body; `{}` answers the default vectors.
 */
export interface EmbeddingsReply {
  embeddings?: unknown[]
  status?: number
  content?: string
  body?: string
  fault?: ScriptedFault
  headers?: Record<string, string>
  delayMs?: number
  usage?: Record<string, number>
}

/** A reply described as an object. */
export interface ReplyObject {
  /** Assistant content. For `status >= 400` it becomes the error message. */
  content?: string
  /** Assistant content as `JSON.stringify(json)` (takes precedence over `content`). */
  json?: unknown
  /**
   * finish_reason, default 'stop'. Rendered per wire format: 'stop' → Anthropic 'end_turn' (or
   * 'tool_use') / Gemini 'STOP'; 'length' → 'max_tokens' / 'MAX_TOKENS'; 'content_filter' →
   * Anthropic 'refusal' / Gemini 'SAFETY' (a blocked candidate has no content). Native values
   * ('refusal', 'SAFETY', …) pass through.
   */
  finishReason?: string
  /** Overrides the estimated usage (missing total_tokens is recomputed). */
  usage?: Partial<Usage>
  /**
   * HTTP status. >= 400 answers the format's error body with `content` as the message:
   * OpenAI/Azure `{error: {message, type, param, code}}`, Anthropic `{type: 'error', error:
   * {type, message}}` (529: 'overloaded_error'), Gemini `{error: {code, message, status}}`.
   */
  status?: number
  /** OpenAI/Azure error replies: `error.param` (default null), e.g. 'temperature'. */
  param?: string | null
  /** OpenAI/Azure error replies: `error.code` (default from the status), e.g. 'unsupported_value'. */
  errorCode?: string
  /** Extra response headers, e.g. `{'retry-after': '1'}`. */
  headers?: Record<string, string>
  /** Wait this long before answering (added to `options.latencyMs`). */
  delayMs?: number
  /**
   * 'reset': destroy the socket without answering; 'hang': never answer (until the client
   * leaves or `close()`, or `hangMs` elapses, then reset); 'truncate': promise the full
   * content-length, write half the body, destroy the socket; 'empty': 200 with content ''.
   */
  fault?: ScriptedFault
  /** For `fault: 'hang'`: reset the socket after this many ms instead of hanging forever. */
  hangMs?: number
  /** Raw response body override (sent as-is with `status` or 200). */
  body?: string
  /** A batch line only: the line is not answered but `expired` / `canceled` in the results. */
  batchLine?: 'expired' | 'canceled'
}

/**
 * What the next created batch does (`server.scriptBatch`): refuse the create, end otherwise
 * than `completed`, never end, or take its own time.
 */
export interface BatchScript {
  /** The create is refused with this HTTP status and message (in the provider's error shape). */
  createStatus?: number
  createMessage?: string
  /** The batch ends `failed` (no results), `expired` or `cancelled` (the first `answered` lines answered, the rest not). */
  final?: 'failed' | 'expired' | 'cancelled'
  /** With `final: 'failed'`: the provider's message. */
  message?: string
  answered?: number
  /** The batch stays running forever (until cancelled). */
  neverEnds?: boolean
  /** From creation to the end, ms (default: the server's `batchDelayMs`). */
  delayMs?: number
}

/** A reply function, called with the recorded request; may be async or return another function. */
export type ReplyFunction = (req: RecordedRequest) => Reply | Promise<Reply>

/** Assistant content string, reply object, or reply function. */
export type Reply = string | ReplyObject | ReplyFunction

/** Substring of `req.text`, RegExp tested against `req.text`, or predicate. */
export type Matcher = string | RegExp | ((req: RecordedRequest) => boolean)

export interface RuleOptions {
  /** Remove the rule after it has answered this many requests (default: unlimited). */
  times?: number
}

export interface FaultOptions {
  /** Probability (0..1) that a chat request gets a random fault. */
  rate: number
  /** mulberry32 seed: same seed + same request order => same faults. */
  seed: number
  /** Kinds to draw from (default: all of RANDOM_FAULT_KINDS). */
  kinds?: RandomFaultKind[]
}

export interface JudgeServerOptions {
  /** Keep only the latest N requests in `requests` (default: all); for long benchmark/soak judges. */
  maxRecorded?: number
  /** Default reply when no rule/queue entry applies (typically a function, e.g. heuristicJudge). */
  handler?: Reply
  /** Delay added to every answer, ms (default 0). */
  latencyMs?: number
  /** Seeded random fault injection; wraps whatever reply would otherwise be chosen. */
  faults?: FaultOptions
  /** Upper bound of a random 'hang' before the socket is reset, ms (default 30000). */
  hangMs?: number
  /**
   * Batch APIs (OpenAI/Azure files + batches, Anthropic Message Batches, Gemini
   * batchGenerateContent): a batch ends this long after its creation, through its provider's
   * statuses (default 0).
   */
  batchDelayMs?: number
  /** Results files list the lines in reverse submission order (default: 'reverse'). */
  batchOrder?: 'reverse' | 'input'
  /** Answer a batch's lines from its creation on (ready the moment its delay ends; benchmarks). */
  batchPrepare?: boolean
  /** The dimension of the default embedding vectors (default 16). */
  embeddingDimensions?: number
}

export interface JudgeServer {
  /**
   * Base URL for an OpenAI-compatible client: `http://127.0.0.1:<port>/v1`. Also the base of
   * the Anthropic (`{url}/messages`) and Gemini (`{url}/models/{m}:generateContent`) routes.
   */
  readonly url: string
  /** `http://127.0.0.1:<port>`; Azure OpenAI's base URL is `${origin}/openai`. */
  readonly origin: string
  readonly port: number
  /** The underlying node:http server. */
  readonly httpServer: Server
  /** Live array of recorded requests (cleared in place by `reset()`). */
  readonly requests: RecordedRequest[]
  /** Requests currently open and unanswered. */
  readonly inFlight: number
  /** Highest `inFlight` seen since start / last `reset()`. */
  readonly maxInFlight: number
  /** Number of replies still waiting in the FIFO queue. */
  readonly queued: number
  /** Adds a rule (checked in insertion order, before the queue). Chainable. */
  on(matcher: Matcher, reply: Reply, options?: RuleOptions): JudgeServer
  /** Appends replies to the FIFO queue. Chainable. */
  enqueue(...replies: Reply[]): JudgeServer
  /**
   * Answers the embeddings requests matching `matcher` (tested on `text`, the texts joined by
   * '\n', or a predicate of the record) with `reply`, before the default vectors. Chainable.
   */
  onEmbeddings(
    matcher: string | RegExp | ((req: RecordedRequest) => boolean),
    reply: EmbeddingsReply | ((req: RecordedRequest) => EmbeddingsReply | Promise<EmbeddingsReply>),
    options?: RuleOptions,
  ): JudgeServer
  /**
   * The vector every embeddings request answers for `text` instead of the default one (a
   * bag of seeded hashed word vectors: deterministic, exact in float32, `embeddingDimensions` long).
   */
  scriptEmbedding(text: string, vector: number[]): JudgeServer
  /** The recorded embeddings requests (each with `texts`): count texts per request from them. */
  readonly embeddingRequests: RecordedRequest[]
  /** Scripts the next created batch (one script per batch, in order). Chainable. */
  scriptBatch(script: BatchScript): JudgeServer
  /** The batches created since start / last `reset()`, by id (`lines`: `{ id, path, body }` in submission order). */
  readonly batches: Map<string, { id: string; api: 'openai' | 'anthropic' | 'google'; lines: Array<{ id: string; path: string; body: unknown }>; cancelled: boolean; [key: string]: unknown }>
  /**
   * Resolves with a snapshot of `requests` once at least `n` have been received;
   * rejects after `timeoutMs` (default 5000) or when the server closes.
   */
  waitForRequests(n: number, timeoutMs?: number): Promise<RecordedRequest[]>
  /** Clears rules, queue, records and counters; reseeds the fault PRNG. */
  reset(): void
  /** Destroys all sockets (including hanging ones) and resolves when closed. Idempotent. */
  close(): Promise<void>
}

/** Starts the fake judge on 127.0.0.1 with an ephemeral port. */
export declare function startJudgeServer(options?: JudgeServerOptions): Promise<JudgeServer>

/**
 * Deterministic stand-in for an LLM judge on oxeval's prompts. Picks the schema from the
 * request's native schema name (OpenAI `response_format.json_schema.name`, Anthropic
 * `tool_choice.name`, Gemini schema `title`) or an `Output schema name: <name>` prompt marker,
 * reads the last `DATA: {...}` line, and answers:
 * - answer_relevancy_statements: `{statements: string[]}` (sentences of DATA.output)
 * - answer_relevancy_verdicts: `{results: {result: 'yes'|'no'|'unsure', reason}[]}`
 * - factual_correctness_claims: `{claims: string[]}` (sentences of DATA.text)
 * - factual_correctness_verdicts: `{statements: {statement, reason, verdict: 0|1}[]}`
 * - nv_rating_0_2_4 / nv_rating_0_1_2: `{rating}`
 * - no schema: a one-sentence plain-text reason (`The score is <DATA.score> because ...`).
 * Missing/unparseable DATA or an unknown schema yields `{status: 500}` with a message.
 */
export declare function heuristicJudge(req: RecordedRequest): ReplyObject

/** The JSON schema a request asks for (any wire format, or written into the prompt). */
export declare function requestSchema(req: RecordedRequest): Record<string, unknown> | undefined

/** A valid instance of `schema`, shaped by the prompt's DATA (see the source for the rules). */
export declare function schemaInstance(schema: Record<string, unknown>, data?: Record<string, unknown>): unknown
