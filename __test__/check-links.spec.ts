// scripts/check-links.mjs (a step of `npm test`): GitHub's anchor slugs, and a broken relative
// link or #anchor found with its file and line; the repository's own pages pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// @ts-expect-error: an .mjs script without types
import { check, pages, readPage, slug } from '../scripts/check-links.mjs'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'oxeval-links-'))
  mkdirSync(join(dir, 'docs', 'sub'), { recursive: true })
  writeFileSync(join(dir, 'README.md'), [
    '# Title',
    '[ok](docs/a.md#the-eval-loop-oxeval-init-a-config) [self](#title) [dir](docs/sub) [web](https://example.com/x#y)',
    '[missing file](docs/nope.md) [missing anchor](docs/a.md#nope)',
    '',
    '![image](docs/sub/pic.png)',
  ].join('\n'))
  writeFileSync(join(dir, 'docs', 'a.md'), '# A\n\n## The eval loop: `oxeval init`, a config\n\n## Repeat\n\n## Repeat\n\n[back](../README.md#title) [second](#repeat-1) [third](#repeat-2)\n')
  writeFileSync(join(dir, 'docs', 'sub', 'b.md'), '<a id="custom"></a>\n\n[up](../a.md#a) [own](#custom) [gone](../../ARCHITECTURE.md) [out](../../../x.md)\n')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('check-links', () => {
  it("slugs headings as GitHub does", () => {
    expect(slug("Mastra's agent and safety scorers")).toBe('mastras-agent-and-safety-scorers')
    expect(slug('Quick start in your own project (offline, today)')).toBe('quick-start-in-your-own-project-offline-today')
    expect(slug('Batch mode: half the judge bill, at any size')).toBe('batch-mode-half-the-judge-bill-at-any-size')
    expect(slug('runEvals and agents')).toBe('runevals-and-agents')
    expect(slug('Vitest (oxeval/vitest)')).toBe('vitest-oxevalvitest')
    expect([...readPage('## The eval loop: `oxeval init`\n\n## A\n\n## A\n').anchors]).toEqual(['the-eval-loop-oxeval-init', 'a', 'a-1'])
  })

  it('finds each broken link with its file, line and reason, and each orphan page, and nothing else', () => {
    const { broken, checked } = check(pages(dir), dir)
    expect(pages(dir)).toEqual(['README.md', 'docs/a.md', 'docs/sub/b.md'])
    expect(broken).toEqual([
      { file: 'README.md', line: 3, url: 'docs/nope.md', why: 'no file docs/nope.md' },
      { file: 'README.md', line: 3, url: 'docs/a.md#nope', why: 'no heading #nope in docs/a.md' },
      { file: 'README.md', line: 5, url: 'docs/sub/pic.png', why: 'no file docs/sub/pic.png' },
      { file: 'docs/a.md', line: 9, url: '#repeat-2', why: 'no heading #repeat-2 in docs/a.md' },
      { file: 'docs/sub/b.md', line: 3, url: '../../ARCHITECTURE.md', why: 'no file ARCHITECTURE.md' },
      { file: 'docs/sub/b.md', line: 3, url: '../../../x.md', why: 'points outside the repository' },
      // linked only as a folder: an orphan
      { file: 'docs/sub/b.md', line: null, url: '', why: 'no other page links to it' },
    ])
    expect(checked).toBe(13)
  })

  it("the repository's README.md, ARCHITECTURE.md and docs/ have no broken link", () => {
    const files = pages()
    expect(files).toContain('README.md')
    expect(files).toContain('docs/reliability.md')
    expect(check(files).broken).toEqual([])
  })
})
