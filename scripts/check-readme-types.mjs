// The README's TypeScript snippets compile under `tsc --strict` against the package's own
// types (run by `npm test`). Each ```ts block becomes a module in __test__/types/.readme/
// with a small preamble declaring the free names a snippet leaves to the reader (a dataset,
// a retriever, Vitest's it/expect).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const dir = join(root, '__test__', 'types', '.readme')
const readme = readFileSync(join(root, 'README.md'), 'utf8')
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1])

const PREAMBLE = `import { it, expect, describe } from 'vitest'
declare const dataset: Array<{ input: string; output: string; groundTruth?: string }>
declare function myRetriever(input: unknown): string[]
`
rmSync(dir, { recursive: true, force: true })
mkdirSync(dir, { recursive: true })
const files = blocks.map((code, i) => {
  const name = `snippet-${i + 1}.mts`
  // a snippet that uses a scorer it does not create (the Vitest example) gets one declared
  const extra = /\bscorer\b/.test(code) && !/const scorer\b/.test(code)
    ? "import type { AnswerRelevancyScorer } from 'oxeval'\ndeclare const scorer: AnswerRelevancyScorer\n"
    : ''
  writeFileSync(join(dir, name), `${PREAMBLE}${extra}${code}\nexport {}\n`)
  return name
})
writeFileSync(
  join(dir, 'tsconfig.json'),
  JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', types: ['node'], skipLibCheck: false },
    files,
  }),
)
const r = spawnSync('npx', ['tsc', '-p', join(dir, 'tsconfig.json')], { cwd: root, encoding: 'utf8' })
process.stdout.write(r.stdout)
process.stderr.write(r.stderr)
console.log(`README snippets: ${blocks.length} compiled ${r.status === 0 ? 'cleanly' : 'WITH ERRORS'}`)
process.exit(r.status === 0 && blocks.length > 0 ? 0 : 1)
