'use strict'
// oxeval's public entry point (CommonJS; index.mjs re-exports it for ESM, index.d.ts types it):
// a thin facade over the generated napi binding. Rust owns the run contract (argument checks
// and their messages, runId, deadline, the failure shape); the JS side is lib/, one file per
// job (see ARCHITECTURE.md). The factory list is generated from the core's scorer registry
// (generated/scorers.js, `npm run generate`).

const SCORERS = require('./generated/scorers.js')
const { Scorer, factory } = require('./lib/scorer.js')
const { ScorerRunError, AbortError } = require('./lib/errors.js')
const { runEvals, summarizeItems } = require('./lib/evals.js')
const { estimateCost } = require('./lib/estimate.js')
const { createScorer, notScorable, isNotScorable } = require('./lib/custom.js')

for (const spec of SCORERS) exports[spec.factory] = factory(spec)
// Mastra's `checks` namespace: the same function objects as the named exports
exports.checks = Object.freeze(Object.fromEntries(SCORERS.filter((s) => s.check).map((s) => [s.factory, exports[s.factory]])))
exports.runEvals = runEvals
exports.summarizeItems = summarizeItems
exports.estimateCost = estimateCost
exports.ScorerRunError = ScorerRunError
exports.AbortError = AbortError
exports.Scorer = Scorer
exports.createScorer = createScorer
exports.notScorable = notScorable
exports.isNotScorable = isNotScorable
/** `oxeval.config.ts`'s default export: the config as it is (typed by index.d.ts). */
exports.defineConfig = (config) => config
