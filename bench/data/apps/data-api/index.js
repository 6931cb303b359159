// @ts-check
// data-api: the data runtime's entrypoint. Watt calls create(), then listens on
// the runtime's server port (see bench/data/watt.json).
import { readDataConfig } from '../../server/config.js'
import { buildDataApi } from '../../server/data-api.js'

export function create () {
  return buildDataApi(readDataConfig(), { logger: /** @type {any} */ (globalThis).platformatic?.logger })
}
