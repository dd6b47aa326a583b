export * from './judge-server.mjs'
export * from './test-judge.mjs'
