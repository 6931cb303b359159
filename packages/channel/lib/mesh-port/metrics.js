// @ts-check
// One Prometheus counter in the worker's own registry (Watt's metrics endpoint
// gathers every worker's, labelled with applicationId and workerId), so a user
// sees which path requests took: watt_lab_mesh_port_requests_total{target, path, targetWorker}.
// Made on first use: the registry exists only once the application has started.

export const REQUESTS_METRIC = 'watt_lab_mesh_port_requests_total'

/** @typedef {{ inc: () => void }} Tally */
const NONE = { inc () {} }

/** @type {any} */
let counter

/**
 * A counter child for requests to `target` over `path`, or a no-op outside Watt.
 * @param {string} target
 * @param {'http-port' | 'mesh'} path
 * @param {number | null} worker  the target worker's index (null over the mesh, which picks it)
 * @returns {Tally}
 */
export function tally (target, path, worker) {
  counter ??= makeCounter()
  if (!counter) return NONE
  return counter.labels({ target, path, targetWorker: worker === null ? '' : String(worker) })
}

function makeCounter () {
  const prometheus = /** @type {any} */ (globalThis).platformatic?.prometheus
  if (!prometheus?.client || !prometheus?.registry) return null
  const existing = prometheus.registry.getSingleMetric(REQUESTS_METRIC)
  if (existing) return existing
  return new prometheus.client.Counter({
    name: REQUESTS_METRIC,
    help: 'Requests to http://<target>.plt.local by the path the mesh-port drop-in gave them (http-port, or mesh on fallback)',
    labelNames: ['target', 'path', 'targetWorker'],
    registers: [prometheus.registry]
  })
}
