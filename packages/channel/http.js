// @ts-check
export * from './lib/http/index.js'
