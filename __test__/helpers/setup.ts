// Shared by the Vitest specs: the addon as `require` users load it, the scripted judge server
// of a spec file (testing/judge-server.mjs), scorer builders, and readers for what the judge
// was sent.
import { afterAll, afterEach, beforeAll } from 'vitest'
import { createRequire } from 'node:module'
import { inspect } from 'node:util'
import { startJudgeServer, type JudgeServer, type JudgeServerOptions, type RecordedRequest } from '../../testing/judge-server.mjs'

export { startJudgeServer }
export type { JudgeServer, RecordedRequest, ReplyObject } from '../../testing/judge-server.mjs'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Any = any

const require = createRequire(import.meta.url)
/** The package's CommonJS entry point, `../index.js`. */
export const oxeval = require('../../index.js') as typeof import('../../index.js')

/**
 * The scripted judge of one spec file: started in beforeAll, reset after each test, closed in
 * afterAll. The returned handle forwards to that server, so use it inside tests and hooks only
 * (it throws at collection time, before the server has started).
 */
export function useJudgeServer(options?: JudgeServerOptions): JudgeServer {
  let current: JudgeServer | undefined
  beforeAll(async () => {
    current = await startJudgeServer(options)
  })
  afterAll(async () => {
    await current?.close()
  })
  afterEach(() => current?.reset())
  return new Proxy({} as JudgeServer, {
    get(_target, key) {
      if (!current) throw new Error('the judge server starts in beforeAll: use it inside tests and hooks')
      return Reflect.get(current, key, current)
    },
  })
}

let modelCount = 0
/** A model id no other scorer of the spec file uses, so endpoint limiters and caches stay apart. */
export const uniqueModelId = (tag = 'test') => `openai/${tag}-${++modelCount}`

export interface ScorerDefaults {
  /** A fixed model id, for specs that assert it; by default every scorer gets `uniqueModelId(tag)`. */
  modelId?: string
  /** Prefix of the unique model ids (default 'test'). */
  tag?: string
  /** modelSettings of every scorer built, after `retryDelayMs: 1`. */
  settings?: Record<string, unknown>
}

/**
 * A builder of scorers judged by `server`:
 * `create({ model: { id, url: server.url }, modelSettings: { retryDelayMs: 1, ...defaults.settings, ...settings }, ...extra })`.
 * `extra` is spread last, so `extra.model` / `extra.modelSettings` replace the defaults whole.
 */
export function scorerBuilder<F extends (options: never) => unknown>(server: JudgeServer, create: F, defaults: ScorerDefaults = {}) {
  return (extra: Record<string, unknown> = {}, settings: Record<string, unknown> = {}): ReturnType<F> =>
    (create as unknown as (options: unknown) => ReturnType<F>)({
      model: { id: defaults.modelId ?? uniqueModelId(defaults.tag), url: server.url },
      modelSettings: { retryDelayMs: 1, ...defaults.settings, ...settings },
      ...extra,
    })
}

/** The rejection of `promise`; throws if it resolves. */
export async function failure(promise: Promise<unknown>): Promise<Any> {
  let value: unknown
  try {
    value = await promise
  } catch (e) {
    return e
  }
  throw new Error(`expected a rejection, got ${inspect(value, { depth: 2 })}`)
}

/** The error `fn` throws, or undefined when it returns. */
export function thrownBy(fn: () => unknown): Any {
  try {
    fn()
  } catch (e) {
    return e
  }
  return undefined
}

/** A phrase of each answer relevancy prompt, to route with `server.on(STEP.analyze, …)`. */
export const STEP = {
  preprocess: 'break the assistant output into statements',
  analyze: 'decide whether it is relevant',
  generateReason: 'explain an answer relevancy score',
} as const

/** Between the two prompts of a step that makes two judge calls (factual correctness, NVIDIA judges). */
export const SEP = '\n\n-----\n\n'

/** Schema name of a structured call: native response_format, or the fallback's system line. */
export function schemaName(req: RecordedRequest): string | undefined {
  const native = (req.body?.response_format as Any)?.json_schema?.name
  if (native) return native
  return /Output schema name: (\S+)/.exec(req.system)?.[1]
}

/** The last `DATA: {...}` line of the user prompt, parsed; {} when there is none. */
export function data(req: Pick<RecordedRequest, 'user'>): Record<string, unknown> {
  const line = req.user
    .split('\n')
    .filter((l) => l.startsWith('DATA: '))
    .pop()
  return line ? JSON.parse(line.slice('DATA: '.length)) : {}
}

/** A format-fallback request: it states why the previous answer was rejected. */
export const isFallback = (req: RecordedRequest) => req.user.includes('\nREJECTED: ')

/** The reason a fallback request gives (its `REJECTED: "<JSON string>"` line). */
export const rejectedBecause = (req: RecordedRequest) => JSON.parse(req.user.split('\nREJECTED: ')[1].split('\n')[0]) as string
