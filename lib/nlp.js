'use strict'
// The `nlp` host call: npm `compromise` (an optional peer dependency) for completeness's
// elements. The core sends `{ runId, texts }` and gets, per text, compromise's four lists as
// Mastra's scorer reads them (nouns; verbs turned into their infinitive, which changes the
// document the next two read; topics; terms). Cleaning, sets and score are the core's.

let compromise
let loadError

/** compromise, loaded once on first use; `null` when it is not installed. */
function load() {
  if (compromise === undefined) {
    try {
      const m = require('compromise')
      compromise = typeof m === 'function' ? m : m.default
    } catch (e) {
      compromise = null
      loadError = e
    }
  }
  return compromise
}

function reply(value) {
  return JSON.stringify(value)
}

/** The handler (never rejects): request `{ runId, texts }` → `{ ok, value: [[nouns, verbs, topics, terms], …] }`. */
async function nlpCaller(req) {
  const nlp = load()
  if (!nlp) {
    const why = loadError && loadError.message ? String(loadError.message).split('\n')[0] : 'not found'
    return reply({
      ok: false,
      error: {
        name: 'OxevalMissingDependency',
        message: `createCompletenessScorer needs the optional dependency 'compromise' (npm install compromise@14): ${why}`,
      },
    })
  }
  try {
    const value = req.texts.map((text) => {
      const doc = nlp(text)
      return [doc.nouns().out('array'), doc.verbs().toInfinitive().out('array'), doc.topics().out('array'), doc.terms().out('array')]
    })
    return reply({ ok: true, value })
  } catch (e) {
    return reply({ ok: false, error: { name: (e && e.name) || 'Error', message: e && e.message !== undefined ? String(e.message) : String(e) } })
  }
}

module.exports = { nlpCaller }
