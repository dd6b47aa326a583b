// Prompt text for the originality test (prompt-originality.spec.ts): the string literals of
// oxeval's Rust sources and of Mastra's installed dist files, and their 10-word shingles
// (case- and punctuation-insensitive: words are runs of letters and digits).
import { createHash } from 'node:crypto'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Every file under `dir` whose name ends with `ext`. */
export function filesUnder(dir: string, ext: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out.push(...filesUnder(p, ext))
    else if (name.endsWith(ext)) out.push(p)
  }
  return out
}

/** The contents of the Rust string literals of `src` (raw strings included), unescaped, in order. */
export function rustStrings(src: string): string[] {
  const out: string[] = []
  const re = /\/\/[^\n]*|r(#*)"([\s\S]*?)"\1|'(?:\\.|[^'\\\n])'|"((?:\\[\s\S]|[^"\\])*)"/g
  for (const m of src.matchAll(re)) {
    if (m[2] !== undefined) out.push(m[2])
    else if (m[3] !== undefined) out.push(m[3].replace(/\\\n\s*/g, '').replace(/\\n/g, '\n').replace(/\\t/g, ' ').replace(/\\(.)/g, '$1'))
  }
  return out
}

/** The contents of the JS string and template literals of `src` (a template's `${…}` parts cut out). */
export function jsStrings(src: string): string[] {
  const out: string[] = []
  const re = /`((?:\\[\s\S]|\$\{(?:[^{}]|\{[^{}]*\})*\}|[^`\\])*)`|"((?:\\.|[^"\\\n])*)"|'((?:\\.|[^'\\\n])*)'/g
  for (const m of src.matchAll(re)) {
    const t = m[1] ?? m[2] ?? m[3] ?? ''
    for (const part of t.split(/\$\{(?:[^{}]|\{[^{}]*\})*\}/)) out.push(part.replace(/\\n/g, '\n').replace(/\\(.)/g, '$1'))
  }
  return out
}

/** Lower-case words (letters and digits) of `text`. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
}

/** The `n`-word shingles of each text (a shingle never crosses from one text into the next). */
export function shingles(texts: string[], n = 10): Set<string> {
  const out = new Set<string>()
  for (const t of texts) {
    const w = words(t)
    for (let i = 0; i + n <= w.length; i++) out.add(w.slice(i, i + n).join(' '))
  }
  return out
}

export const read = (p: string) => readFileSync(p, 'utf8')

/**
 * oxeval's judge prompt texts, by file: every literal of the LLM scorers' `prompts.rs` files
 * and of their shared prompt modules (`scorers/llm/*.rs`), and the `…INSTRUCTIONS` constants
 * of their `mod.rs` (a scorer's `description`, id and error messages are Mastra's on purpose:
 * they are not prompts). A file's literals are joined: a prompt built from several is one text.
 */
export function oxevalPrompts(root: string): Map<string, string> {
  const out = new Map<string, string>()
  const llm = join(root, 'crates/oxeval-core/src/scorers/llm')
  for (const f of filesUnder(llm, '.rs')) {
    const src = read(f)
    const isPromptFile = f.endsWith('/prompts.rs') || !f.slice(llm.length + 1).includes('/')
    const parts = isPromptFile
      ? rustStrings(src.replace(/#\[cfg\(test\)\][\s\S]*$/, ''))
      : [...src.matchAll(/const [A-Z_]*INSTRUCTIONS[A-Z_]*: &str =([\s\S]*?);\n/g)].flatMap((m) => rustStrings(m[1]))
    if (parts.length) out.set(f.slice(root.length + 1), parts.join(' '))
  }
  return out
}

/**
 * Mastra's literal texts from its installed dist files (prompts, instructions and the rest):
 * @mastra/evals, and @mastra/core 1.71's classifier (it has no prompt of its own today).
 */
export function mastraTexts(root: string): string[] {
  const core = ['classifier/index.js', 'docs/references/reference-evals-create-classifier-scorer.md'].map((f) => join(root, 'node_modules/@mastra/core/dist', f))
  return [
    ...filesUnder(join(root, 'node_modules/@mastra/evals/dist'), '.js').flatMap((f) => jsStrings(read(f))),
    ...core.map(read),
  ]
}

/** Each oxeval prompt file's shingles that Mastra's texts also hold. */
export function sharedRuns(root: string, n = 10): Map<string, string[]> {
  const anchor = shingles(mastraTexts(root), n)
  const hits = new Map<string, string[]>()
  for (const [file, text] of oxevalPrompts(root)) {
    const w = words(text)
    const found: string[] = []
    for (let i = 0; i + n <= w.length; i++) {
      const s = w.slice(i, i + n).join(' ')
      if (anchor.has(s)) found.push(s)
    }
    if (found.length) hits.set(file, found)
  }
  return hits
}

/** A shingle's hash as scripts/ragas-prompt-shingles.py writes it (12 hex digits of SHA-256). */
export const shingleHash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 12)

/** Each oxeval prompt file's shingles whose hash is in `hashes` (Ragas's committed fixture). */
export function sharedHashedRuns(root: string, hashes: Set<string>, n = 10): Map<string, string[]> {
  const hits = new Map<string, string[]>()
  for (const [file, text] of oxevalPrompts(root)) {
    const w = words(text)
    const found: string[] = []
    for (let i = 0; i + n <= w.length; i++) {
      const s = w.slice(i, i + n).join(' ')
      if (hashes.has(shingleHash(s))) found.push(s)
    }
    if (found.length) hits.set(file, found)
  }
  return hits
}
