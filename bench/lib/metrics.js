// @ts-check
// Resource cost from the runtime's Prometheus endpoint, scraped from one place
// before and after a run: per-application CPU seconds (thread_cpu_seconds_total
// counters), event-loop utilisation and heap, and the process RSS.
import { request } from 'undici'

/**
 * @typedef {{ cpuSeconds: number, elu: number, heapUsedBytes: number }} AppMetrics
 * @typedef {{ apps: Record<string, AppMetrics>, rssBytes: number }} Snapshot
 */

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
  const app = (/** @type {string} */ id) => (apps[id] ??= { cpuSeconds: 0, elu: 0, heapUsedBytes: 0 })
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue
    const match = LINE.exec(line)
    if (!match) continue
    const [, name, labels = '', raw] = match
    const value = Number(raw)
    if (name === 'process_resident_memory_bytes') { rssBytes = value; continue }
    const id = /applicationId="([^"]*)"/.exec(labels)?.[1]
    if (!id) continue
    if (name === 'thread_cpu_seconds_total') app(id).cpuSeconds += value
    else if (name === 'nodejs_heap_size_used_bytes') app(id).heapUsedBytes += value
    else if (name === 'nodejs_eventloop_utilization') {
      app(id).elu += value
      workers[id] = (workers[id] ?? 0) + 1
    }
  }
  for (const [id, n] of Object.entries(workers)) apps[id].elu /= n // mean across workers
  return { apps, rssBytes }
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
