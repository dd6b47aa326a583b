// `oxeval/checks`: Mastra's quick checks (the same functions as oxeval's named exports).
export {
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
} from '../index'
