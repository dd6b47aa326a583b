// The link check (run by `npm test`): every relative link and image in README.md,
// ARCHITECTURE.md and docs/**/*.md must point at a file or folder of the repository, and every
// #anchor at a heading of the target page (GitHub's slugs: lowercased, punctuation dropped,
// spaces as hyphens, -1, -2 … for repeats) or an explicit `id`/`name` in its HTML; and every
// page but README.md must be linked from another page (none is an orphan). Web links
// (http:, https:, mailto:) are not fetched. Prints one line per broken link, then
// `links: N checked in M files, K broken`; exit code 0/1.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { fromMarkdown } from 'mdast-util-from-markdown'
import { gfmFromMarkdown } from 'mdast-util-gfm'
import { gfm } from 'micromark-extension-gfm'

const root = fileURLToPath(new URL('..', import.meta.url))

/** A heading's text as GitHub reads it for its anchor (code, emphasis and link text included). */
function text(node) {
  if (node.type === 'text' || node.type === 'inlineCode') return node.value
  if (node.type === 'html') return ''
  return (node.children || []).map(text).join('')
}

/** GitHub's anchor of a heading text (github-slugger's rule), without the repeat suffix. */
export function slug(heading) {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** Every node of `tree`, depth first. */
function* walk(node) {
  yield node
  for (const c of node.children || []) yield* walk(c)
}

/** `{ anchors, links }` of one Markdown text: its heading slugs (with repeats numbered) and explicit ids, and every link with its line. */
export function readPage(markdown) {
  const tree = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] })
  const anchors = new Set()
  const seen = new Map()
  const links = []
  for (const node of walk(tree)) {
    if (node.type === 'heading') {
      const base = slug(text(node))
      const n = seen.get(base) ?? 0
      seen.set(base, n + 1)
      anchors.add(n === 0 ? base : `${base}-${n}`)
    }
    if (node.type === 'html') {
      for (const m of node.value.matchAll(/\b(?:id|name)\s*=\s*["']([^"']+)["']/g)) anchors.add(m[1])
      for (const m of node.value.matchAll(/\b(?:href|src)\s*=\s*["']([^"']+)["']/g)) links.push({ url: m[1], line: node.position?.start.line })
    }
    if (node.type === 'link' || node.type === 'image' || node.type === 'definition') links.push({ url: node.url, line: node.position?.start.line })
  }
  return { anchors, links }
}

/** The Markdown pages the check covers, relative to `base`: README.md, ARCHITECTURE.md, docs/**\/*.md. */
export function pages(base = root) {
  const out = ['README.md', 'ARCHITECTURE.md'].filter((f) => existsSync(join(base, f)))
  const visit = (d) => {
    if (!existsSync(d)) return
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) visit(join(d, e.name))
      else if (e.name.endsWith('.md')) out.push(relative(base, join(d, e.name)))
    }
  }
  visit(join(base, 'docs'))
  return out.sort()
}

/** The broken links of `files` (paths relative to `base`): `{ file, line, url, why }[]`, and how many links were checked. */
export function check(files, base = root) {
  const cache = new Map()
  const page = (abs) => {
    if (!cache.has(abs)) cache.set(abs, readPage(readFileSync(abs, 'utf8')))
    return cache.get(abs)
  }
  const broken = []
  const linked = new Set()
  let checked = 0
  for (const file of files) {
    const abs = resolve(base, file)
    for (const { url, line } of page(abs).links) {
      if (!url || /^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//')) continue // web links, mailto:
      checked += 1
      const hash = url.indexOf('#')
      const path = decodeURIComponent(hash < 0 ? url : url.slice(0, hash))
      const anchor = hash < 0 ? null : decodeURIComponent(url.slice(hash + 1))
      const target = path === '' ? abs : resolve(dirname(abs), path.replace(/\?.*$/, ''))
      const say = (why) => broken.push({ file, line, url, why })
      if (!target.startsWith(resolve(base))) {
        say('points outside the repository')
        continue
      }
      if (!existsSync(target)) {
        say(`no file ${relative(base, target)}`)
        continue
      }
      if (target !== abs) linked.add(target)
      if (anchor === null || anchor === '') continue
      if (!target.endsWith('.md') || statSync(target).isDirectory()) continue // a line anchor of a source file, a folder
      if (!page(target).anchors.has(anchor)) say(`no heading #${anchor} in ${relative(base, target)}`)
    }
  }
  for (const file of files) {
    if (file !== 'README.md' && !linked.has(resolve(base, file))) broken.push({ file, line: null, url: '', why: 'no other page links to it' })
  }
  return { broken, checked }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const files = pages()
  const { broken, checked } = check(files)
  for (const b of broken) console.log(`${b.file}:${b.line ?? '?'}: ${b.url}: ${b.why}`)
  console.log(`links: ${checked} checked in ${files.length} files, ${broken.length} broken`)
  process.exit(broken.length ? 1 : 0)
}
