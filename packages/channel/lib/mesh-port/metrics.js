// @ts-check
// One Prometheus counter in the worker's own registry (Watt's metrics endpoint gathers every worker's), so a
// user sees which path requests took: watt_lab_mesh_port_requests_total{target, path, targetWorker}. Made on
// first use: the registry exists only once the application has started.
import { prometheus as wattPrometheus } from '../watt/globals.js'

export const REQUESTS_METRIC = 'watt_lab_mesh_port_requests_total'
/** Requests sent again to another worker: `reason` 'refused' (a stopping worker did not take it) or 'crashed'. */
export const RETRIES_METRIC = 'watt_lab_mesh_port_retries_total'

/** @typedef {{ count: number }} Tally */

/**
 * @typedef {object} TallyEntry
 * @property {number} count
 * @property {number} reported  the part of count the counter has taken
 * @property {Record<string, string>} labels
 */

/**
 * Per thread, and shared by every copy of this module loaded in it: the counter
 * in the registry reads whichever copy made it.
 * @type {Map<string, TallyEntry>}
 */
const entries = /** @type {any} */ (globalThis)[Symbol.for('watt-lab.mesh-port.tallies')] ??= new Map()
/** @type {Map<string, TallyEntry>} the same for retries, labelled { target, reason } */
const retries = /** @type {any} */ (globalThis)[Symbol.for('watt-lab.mesh-port.retries')] ??= new Map()

let registered = false

/**
 * The tally for requests to `target` over `path` (one per label set, so a restarted
 * worker's link goes on counting where the old one stopped).
 * @param {string} target
 * @param {'http-port' | 'mesh'} path
 * @param {number | null} worker  the target worker's index (null over the mesh, which picks it)
 * @returns {Tally}
 */
export function tally (target, path, worker) {
  return entryOf(entries, { target, path, targetWorker: worker === null ? '' : String(worker) })
}

/**
 * The tally of requests to `target` sent again to another worker, by reason.
 * @param {string} target
 * @param {'refused' | 'crashed'} reason
 * @returns {Tally}
 */
export function retryTally (target, reason) {
  return entryOf(retries, { target, reason })
}

/**
 * The one entry of `tallies` for a label set, made on first use.
 * @param {Map<string, TallyEntry>} tallies
 * @param {Record<string, string>} labels
 */
function entryOf (tallies, labels) {
  if (!registered) registered = register()
  const key = Object.values(labels).join('\n')
  let entry = tallies.get(key)
  if (!entry) {
    entry = { count: 0, reported: 0, labels }
    tallies.set(key, entry)
  }
  return entry
}

const REQUESTS_HELP = 'Requests to http://<target>.plt.local by the path the mesh-port drop-in gave them ' +
  '(http-port, or mesh on fallback)'
const RETRIES_HELP = 'Requests to http://<target>.plt.local that the mesh-port drop-in sent again to another worker, ' +
  'by reason (refused: a stopping worker did not take it; crashed: its worker died before answering)'

/** Registers the counters once the worker's registry exists; false outside Watt (tried again later). */
function register () {
  const prometheus = wattPrometheus()
  if (!prometheus?.client || !prometheus?.registry) return false
  counter(prometheus, REQUESTS_METRIC, REQUESTS_HELP, ['target', 'path', 'targetWorker'], entries)
  counter(prometheus, RETRIES_METRIC, RETRIES_HELP, ['target', 'reason'], retries)
  return true
}

/**
 * A counter that takes the tallies' new counts when it is read: a request only bumps a plain number, as
 * prom-client's label hashing and validation per request cost the caller thread more (D-lazy-counter).
 * @param {any} prometheus
 * @param {string} name
 * @param {string} help
 * @param {string[]} labelNames
 * @param {Map<string, TallyEntry>} tallies
 */
function counter (prometheus, name, help, labelNames, tallies) {
  if (prometheus.registry.getSingleMetric(name)) return
  // eslint-disable-next-line no-new
  new prometheus.client.Counter({
    name,
    help,
    labelNames,
    registers: [prometheus.registry],
    /** @this {any} */
    collect () {
      for (const entry of tallies.values()) {
        const delta = entry.count - entry.reported
        if (delta === 0) continue
        this.inc(entry.labels, delta)
        entry.reported = entry.count
      }
    }
  })
}
