'use strict'
// `oxeval/mastra`, CommonJS: oxeval's factories returning real Mastra scorers, built over the
// CommonJS build of @mastra/core (an optional peer dependency). See core.js.
const { build, notInstalled } = require('./core.js')

let evals
let errors
try {
  evals = require('@mastra/core/evals')
  errors = require('@mastra/core/error')
} catch (e) {
  throw notInstalled(e)
}

module.exports = build({ MastraScorer: evals.MastraScorer, ScorerRunError: evals.ScorerRunError, MastraError: errors.MastraError })
