// Local fake LLM judge: lets code that uses oxeval be tested, demonstrated and
// benchmarked without a real model. Plain ESM, Node built-ins only. See
// judge-server.d.ts for the typed API. It speaks four wire formats, routed by path:
//   POST …/chat/completions                          OpenAI Chat Completions
//   POST …/openai/deployments/{d}/chat/completions   Azure OpenAI (needs ?api-version=)
//   POST …/messages                                  Anthropic Messages
//   POST …/models/{m}:generateContent                Google Gemini
//   POST …/embeddings, …:batchEmbedContents          embeddings (server/embeddings.mjs)
// Replies and faults are scripted once and rendered in the format of the request.
//
//   const judge = await startJudgeServer({ handler: heuristicJudge })
//   judge.url            // "http://127.0.0.1:<port>/v1" -> give to an OpenAI client
//   judge.origin         // "http://127.0.0.1:<port>"    -> Azure: `${origin}/openai`
//   judge.on(/capital/, { json: { statements: ['a'] } }, { times: 1 })
//   judge.enqueue('plain text reply', { status: 429, headers: { 'retry-after': '1' } })
//   await judge.close()
//
// Reply selection order per request: rules (server.on) -> FIFO queue
// (server.enqueue) -> options.handler -> 500 "no scripted reply".
// Random faults (options.faults) wrap whatever reply was selected.
//
// This file is the public entry (oxeval/testing); the parts live beside it:
//   server/   the HTTP server, recording, rules, queue, faults, rendering
//   wire/     one module per wire format (openai.mjs incl. Azure, anthropic.mjs, google.mjs)
//   replies/  heuristicJudge: per-family default replies, the schema names from the registry

export { RANDOM_FAULT_KINDS } from './server/faults.mjs'
export { startJudgeServer } from './server/server.mjs'
export { heuristicJudge } from './replies/index.mjs'
export { requestSchema } from './wire/index.mjs'
export { schemaInstance } from './replies/schema-instance.mjs'
