export * from './judge-server.mjs'
