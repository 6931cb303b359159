// @ts-check
// Resource cost from the runtime's Prometheus endpoint, scraped from one place
// before and after a run: per-application CPU seconds (thread_cpu_seconds_total
// counters), event-loop utilisation and heap, and the process RSS.
import { request } from 'undici'

/**
 * @typedef {{ cpuSeconds: number, elu: number, heapUsedBytes: number }} AppMetrics
 * @typedef {Record<string, Record<string, number>>} PerWorker  application → workerId → count
 * @typedef {{ mesh: number, httpPort: Record<string, number>, retried: Record<string, number> }} MeshPortCounts
 *   requests to one target by path, and those the drop-in sent again by reason (crashed, refused)
 * @typedef {{ apps: Record<string, AppMetrics>, rssBytes: number, requests: PerWorker, meshPort: Record<string, MeshPortCounts> }} Snapshot
 *   requests: HTTP requests each worker's server answered since the previous scrape (Watt's
 *   http_request_all_summary_seconds resets on every scrape, measured on 3.67);
 *   meshPort: the drop-in's counter (cumulative), summed over calling workers, by target
 */

/** The mesh-port drop-in's counter (packages/channel/lib/mesh-port/metrics.js). */
export const MESH_PORT_METRIC = 'watt_lab_mesh_port_requests_total'
export const MESH_PORT_RETRIES_METRIC = 'watt_lab_mesh_port_retries_total'

/**
 * @param {string} metricsUrl  e.g. http://127.0.0.1:9090
 * @returns {Promise<Snapshot>}
 */
export async function scrapeMetrics (metricsUrl) {
  const { statusCode, body } = await request(`${metricsUrl}/metrics`, { headersTimeout: 5000, bodyTimeout: 5000 })
  const text = await body.text()
  if (statusCode !== 200) throw new Error(`metrics answered ${statusCode}`)
  return parsePrometheus(text)
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})?\s+(\S+)/

/**
 * Sums per application across its workers (several workers, one figure per app).
 * @param {string} text
 * @returns {Snapshot}
 */
export function parsePrometheus (text) {
  /** @type {Record<string, AppMetrics>} */
  const apps = {}
  /** @type {Record<string, number>} */
  const workers = {}
  let rssBytes = NaN
  /** @type {PerWorker} */
  const requests = {}
  /** @type {Record<string, MeshPortCounts>} */
  const meshPort = {}
  const app = (/** @type {string} */ id) => (apps[id] ??= { cpuSeconds: 0, elu: 0, heapUsedBytes: 0 })
  const label = (/** @type {string} */ labels, /** @type {string} */ name) => new RegExp(`(?:^|,)${name}="([^"]*)"`).exec(labels)?.[1]
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue
    const match = LINE.exec(line)
    if (!match) continue
    const [, name, labels = '', raw] = match
    const value = Number(raw)
    if (name === 'process_resident_memory_bytes') { rssBytes = value; continue }
    if (name === MESH_PORT_METRIC) {
      const target = label(labels, 'target') ?? '?'
      const counts = (meshPort[target] ??= { mesh: 0, httpPort: {}, retried: {} })
      if (label(labels, 'path') === 'mesh') counts.mesh += value
      else {
        const worker = label(labels, 'targetWorker') ?? '?'
        counts.httpPort[worker] = (counts.httpPort[worker] ?? 0) + value
      }
      continue
    }
    if (name === MESH_PORT_RETRIES_METRIC) {
      const counts = (meshPort[label(labels, 'target') ?? '?'] ??= { mesh: 0, httpPort: {}, retried: {} })
      const reason = label(labels, 'reason') ?? '?'
      counts.retried[reason] = (counts.retried[reason] ?? 0) + value
      continue
    }
    const id = /applicationId="([^"]*)"/.exec(labels)?.[1]
    if (!id) continue
    if (name === 'thread_cpu_seconds_total') app(id).cpuSeconds += value
    else if (name === 'nodejs_heap_size_used_bytes') app(id).heapUsedBytes += value
    else if (name === 'http_request_all_summary_seconds_count') {
      const worker = label(labels, 'workerId') ?? '0'
      const mine = (requests[id] ??= {})
      mine[worker] = (mine[worker] ?? 0) + value
    } else if (name === 'nodejs_eventloop_utilization') {
      app(id).elu += value
      workers[id] = (workers[id] ?? 0) + 1
    }
  }
  for (const [id, n] of Object.entries(workers)) apps[id].elu /= n // mean across workers
  return { apps, rssBytes, requests, meshPort }
}

/**
 * What a run cost: CPU seconds per app (after − before), ELU and heap as seen
 * at the end (ELU resets on every scrape, so "after" covers the run), RSS both sides.
 * @param {Snapshot} before
 * @param {Snapshot} after
 */
export function resourceDelta (before, after) {
  /** @type {Record<string, AppMetrics>} */
  const apps = {}
  let totalCpuSeconds = 0
  for (const [id, end] of Object.entries(after.apps)) {
    const cpuSeconds = Math.max(0, end.cpuSeconds - (before.apps[id]?.cpuSeconds ?? 0))
    totalCpuSeconds += cpuSeconds
    apps[id] = { cpuSeconds, elu: end.elu, heapUsedBytes: end.heapUsedBytes }
  }
  return { apps, totalCpuSeconds, rssBeforeBytes: before.rssBytes, rssAfterBytes: after.rssBytes }
}

/**
 * What a run asked of each worker: the requests each one's HTTP server answered
 * (the "after" scrape alone: the "before" scrape reset Watt's summary), and the
 * drop-in's requests by target and path (after − before; empty without the drop-in).
 * @param {Snapshot} before
 * @param {Snapshot} after
 */
export function requestDelta (before, after) {
  /** @type {Record<string, MeshPortCounts>} */
  const meshPort = {}
  for (const [target, end] of Object.entries(after.meshPort ?? {})) {
    const start = before.meshPort?.[target]
    const since = (/** @type {Record<string, number>} */ now, /** @type {Record<string, number> | undefined} */ then) => Object.fromEntries(Object.entries(now).map(([key, n]) => [key, Math.max(0, n - (then?.[key] ?? 0))]))
    meshPort[target] = { mesh: Math.max(0, end.mesh - (start?.mesh ?? 0)), httpPort: since(end.httpPort, start?.httpPort), retried: since(end.retried ?? {}, start?.retried) }
  }
  return { requests: after.requests ?? {}, meshPort }
}
