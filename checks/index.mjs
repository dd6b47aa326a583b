// `oxeval/checks`, ESM: re-exports the CommonJS entry.
import m from './index.js'

export const {
  includes,
  excludes,
  equals,
  matches,
  similarity,
  calledTool,
  didNotCall,
  toolOrder,
  maxToolCalls,
  usedNoTools,
  noToolErrors,
  checks,
} = m
export default m
