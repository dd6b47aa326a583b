'use strict'
// `oxeval/checks`: Mastra's eleven quick checks (`@mastra/evals/checks`) and the `checks`
// object; the same function objects as oxeval's named exports (the core runs them: a check
// is a `code` scorer of the registry; see crates/oxeval-core/src/scorers/code/checks).

const oxeval = require('../index.js')

module.exports = { ...oxeval.checks, checks: oxeval.checks }
