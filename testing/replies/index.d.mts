import type { RecordedRequest, ReplyObject } from '../judge-server.js'

export type DefaultReply = (data: Record<string, unknown>, ctx: { schema: string; format: unknown; req: RecordedRequest }) => ReplyObject
/** Per family, schema name → its default reply. */
export declare const FAMILY_REPLIES: Readonly<Record<string, Readonly<Record<string, DefaultReply>>>>
/** Schema name → its family's default reply. */
export declare const DEFAULT_REPLIES: ReadonlyMap<string, DefaultReply>
/** The schema names the registry's judge steps send. */
export declare const KNOWN_SCHEMAS: ReadonlySet<string>
export declare function heuristicJudge(req: RecordedRequest): ReplyObject
