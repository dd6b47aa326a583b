// oxeval/testing: the scripted, fault-injecting judge server for your own offline tests.
export * from './judge-server.mjs'
export { createTestJudge, stepOf } from './test-judge.mjs'
