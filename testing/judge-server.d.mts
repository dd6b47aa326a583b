export * from './judge-server.js'
