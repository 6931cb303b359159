// @ts-check
// `undici.interceptors: [{ "module": "@watt-lab/channel/mesh-port" }]` in watt.json.
export { default, meshPortStats } from './lib/mesh-port/index.js'
export { MESH_PORT_KIND } from './lib/mesh-port/callee.js'
export { REQUESTS_METRIC } from './lib/mesh-port/metrics.js'

// Types of the options and stats above, for TypeScript users
// (`import type { … } from '@watt-lab/channel/mesh-port'`).
/** @typedef {import('./lib/mesh-port/index.js').MeshPortOptions} MeshPortOptions */
/** @typedef {import('./lib/mesh-port/index.js').MeshPortStats} MeshPortStats */
/** @typedef {import('./lib/mesh-port/index.js').MeshPortTargetStats} MeshPortTargetStats */
