// Regenerates __test__/fixtures/ragas-semantic-similarity.jsonl: the seeded parity cases
// (scripts/ragas-semantic-cases.mjs) with ragas 0.4.3's SemanticSimilarity scores
// (scripts/ragas-semantic-anchor.py), ragas's OpenAI embeddings pointed at the scripted judge's
// /v1/embeddings (its default vectors). Python: .bench/venv (as scripts/ragas-nonllm-fixture.mjs
// makes it). `node scripts/ragas-semantic-fixture.mjs`.
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startJudgeServer } from '../testing/judge-server.mjs'
import { cases } from './ragas-semantic-cases.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const python = join(root, '.bench', 'venv', 'bin', 'python')

/** ragas's scores of `list` against embeddings served at `baseUrl` (one line each, in order). */
export function anchorScores(list, baseUrl) {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [join(root, 'scripts', 'ragas-semantic-anchor.py')], {
      env: { ...process.env, RAGAS_DO_NOT_TRACK: 'true', OPENAI_BASE_URL: baseUrl },
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`ragas-semantic-anchor.py failed (${code}): ${err}`))
      resolve(out.trim().split('\n').map((l) => JSON.parse(l)))
    })
    child.stdin.end(list.map((c) => JSON.stringify(c)).join('\n'))
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const judge = await startJudgeServer()
  try {
    const list = cases()
    const scores = await anchorScores(list, judge.url)
    const lines = list.map((c, i) => JSON.stringify({ ...c, ragas: scores[i] }))
    const out = join(root, '__test__', 'fixtures', 'ragas-semantic-similarity.jsonl')
    writeFileSync(out, `${lines.join('\n')}\n`)
    console.log(`${list.length} cases with ragas's scores (${judge.embeddingRequests.length} embeddings requests) → ${out}`)
  } finally {
    await judge.close()
  }
}
