// Regenerates __test__/fixtures/ragas-nonllm.jsonl: the seeded parity cases
// (scripts/ragas-nonllm-cases.mjs) with ragas 0.4.3's own scores (scripts/ragas-nonllm-anchor.py),
// in the venv bench/run.mjs uses (.bench/venv, created from bench/ragas/requirements.txt when
// missing). `node scripts/ragas-nonllm-fixture.mjs`.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cases } from './ragas-nonllm-cases.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const venv = join(root, '.bench', 'venv')
const python = join(venv, 'bin', 'python')

function sh(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'inherit' })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status})`)
}

if (!existsSync(python)) {
  mkdirSync(join(root, '.bench'), { recursive: true })
  sh(process.env.PYTHON || 'python3', ['-m', 'venv', venv])
}
sh(python, ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '-r', join(root, 'bench', 'ragas', 'requirements.txt')])

/** ragas's scores of `list` (one line each, in order). */
export function anchorScores(list) {
  const r = spawnSync(python, [join(root, 'scripts', 'ragas-nonllm-anchor.py')], {
    input: list.map((c) => JSON.stringify(c)).join('\n'),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, RAGAS_DO_NOT_TRACK: 'true' },
  })
  if (r.status !== 0) throw new Error(`ragas-nonllm-anchor.py failed: ${r.stderr}`)
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l))
}

const list = cases()
const scores = anchorScores(list)
const lines = list.map((c, i) => JSON.stringify({ ...c, ragas: scores[i] }))
const out = join(root, '__test__', 'fixtures', 'ragas-nonllm.jsonl')
writeFileSync(out, `${lines.join('\n')}\n`)
console.log(`${list.length} cases with ragas's scores → ${out}`)
