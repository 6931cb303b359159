// @ts-check
// `undici.interceptors: [{ "module": "@watt-lab/channel/mesh-port" }]` in watt.json.
export { default, meshPortStats } from './lib/mesh-port/index.js'
export { MESH_PORT_KIND } from './lib/mesh-port/callee.js'
export { REQUESTS_METRIC } from './lib/mesh-port/metrics.js'
