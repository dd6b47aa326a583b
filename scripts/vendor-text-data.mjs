// Writes the word lists the text code scorers embed (crates/oxeval-core/data/) from the npm
// packages Mastra's scorers use, so oxeval scores with exactly the same data:
//   afinn-165.tsv          sentiment 5.0.2 languages/en/labels.json (AFINN-165)
//   emoji-sentiment.tsv    sentiment 5.0.2 build/emoji.json (Emoji Sentiment Ranking 1.0)
//   sentiment-negators.txt sentiment 5.0.2 languages/en/negators.json
//   smart-stopwords-en.txt keyword-extractor 0.0.28 lib/stopwords/en.js (the SMART stop list)
// Run after an upgrade of those packages: `node scripts/vendor-text-data.mjs` (`--check`: fail
// when the committed files differ). Sources and licences: crates/oxeval-core/data/README.md.
import { createRequire } from 'node:module'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const require = createRequire(import.meta.url)
const out = join(import.meta.dirname, '..', 'crates', 'oxeval-core', 'data')
const tsv = (o) => Object.entries(o).map(([k, v]) => `${k}\t${v}`).join('\n') + '\n'
const files = {
  'afinn-165.tsv': tsv(require('sentiment/languages/en/labels.json')),
  'emoji-sentiment.tsv': tsv(require('sentiment/build/emoji.json')),
  'sentiment-negators.txt': Object.keys(require('sentiment/languages/en/negators.json')).join('\n') + '\n',
  'smart-stopwords-en.txt': require('keyword-extractor/lib/stopwords/en.js').stopwords.join('\n') + '\n',
}
const check = process.argv.includes('--check')
let stale = 0
for (const [name, text] of Object.entries(files)) {
  const path = join(out, name)
  if (check) {
    let now = ''
    try { now = readFileSync(path, 'utf8') } catch {}
    if (now !== text) { console.error(`${name} is stale: run node scripts/vendor-text-data.mjs`); stale++ }
  } else writeFileSync(path, text)
}
process.exit(stale ? 1 : 0)
