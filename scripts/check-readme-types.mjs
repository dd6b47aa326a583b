// The TypeScript snippets of README.md and of every page under docs/ compile under
// `tsc --strict` against the package's own types (run by `npm test`). Each ```ts block becomes
// a module in __test__/types/.readme/ (named after its page, e.g. strict-docs-run-evals-2.mts)
// with a small preamble declaring the free names a snippet leaves to the reader (a dataset,
// a retriever, Vitest's it/expect).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const dir = join(root, '__test__', 'types', '.readme')

/** README.md, then every .md under docs/ (sorted, recursively). */
function markdownPages() {
  const pages = [join(root, 'README.md')]
  const visit = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory()) visit(join(d, e.name))
      else if (e.name.endsWith('.md')) pages.push(join(d, e.name))
    }
  }
  visit(join(root, 'docs'))
  return pages
}

// ```ts blocks compile with skipLibCheck off; ```typescript blocks (those importing
// @mastra/core, whose own declaration files do not pass a full lib check) with it on
const blocks = markdownPages().flatMap((page) => {
  const name = relative(root, page).replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '-')
  return [...readFileSync(page, 'utf8').matchAll(/```(ts|typescript)\n([\s\S]*?)```/g)].map((m, i) => ({ lang: m[1], code: m[2], name: `${name}-${i + 1}` }))
})

const PREAMBLE = `import { it, expect, describe } from 'vitest'
declare const dataset: Array<{ input: string; output: string; groundTruth?: string }>
declare function myRetriever(input: unknown): string[]
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const storage: any
declare const data: Array<{ input: string; groundTruth?: string }>
`
rmSync(dir, { recursive: true, force: true })
mkdirSync(dir, { recursive: true })
const files = blocks.map(({ lang, code, name: page }) => {
  const name = `${lang === 'ts' ? 'strict' : 'mastra'}-${page}.mts`
  // a snippet that uses a scorer it does not create (the Vitest example) gets one declared
  const extra = /\bscorer\b/.test(code) && !/const scorer\b/.test(code)
    ? "import type { AnswerRelevancyScorer } from 'oxeval'\ndeclare const scorer: AnswerRelevancyScorer\n"
    : ''
  writeFileSync(join(dir, name), `${PREAMBLE}${extra}${code}\nexport {}\n`)
  return name
})
let ok = true
for (const [kind, skipLibCheck] of [['strict', false], ['mastra', true]]) {
  const group = files.filter((f) => f.startsWith(`${kind}-`))
  if (!group.length) continue
  const config = join(dir, `tsconfig.${kind}.json`)
  writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', types: ['node'], skipLibCheck },
      files: group,
    }),
  )
  const r = spawnSync('npx', ['tsc', '-p', config], { cwd: root, encoding: 'utf8' })
  process.stdout.write(r.stdout)
  process.stderr.write(r.stderr)
  ok &&= r.status === 0
}
console.log(`README and docs/ snippets: ${blocks.length} compiled ${ok ? 'cleanly' : 'WITH ERRORS'}`)
process.exit(ok && blocks.length > 0 ? 0 : 1)
