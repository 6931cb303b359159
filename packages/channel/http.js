// @ts-check
export * from './lib/http/index.js'

// Types of the options above, for TypeScript users (`import type { … } from '@watt-lab/channel/http'`).
/** @typedef {import('./lib/http/dispatcher.js').HttpPortDispatcherOptions} HttpPortDispatcherOptions */
