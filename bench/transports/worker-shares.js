// @ts-check
// Which downstream worker answered how many of a run's calls, per service:
// with several workers (--workers N) a share far from 1/N says the caller does
// not spread its calls. For mesh-port the drop-in's own counter is exact (it
// names the target worker of every call); for the other HTTP transports it is
// each worker's http.Server request count (Watt's metrics), which sees requests
// arriving over the mesh, TCP and http-port alike. Messaging transports and
// services outside the runtime have no such count: null.
import { DOWNSTREAM_SERVICES } from '../../lib/contract.js'

/**
 * @typedef {{ from: 'mesh-port counter' | 'http server requests', calls: Record<string, Record<string, number>>, meshFallback?: number }} WorkerCalls
 *   calls: service → workerId → calls in the measured window
 */

/**
 * @param {string} transport
 * @param {ReturnType<typeof import('../lib/metrics.js').requestDelta>} delta
 * @param {number} [workers]  workers per service: a worker that got no call counts 0
 *   (the drop-in's counter has no row for a worker it never linked)
 * @returns {WorkerCalls | null}
 */
export function workerCallsOf (transport, delta, workers = 1) {
  const all = (/** @type {Record<string, number> | undefined} */ byWorker) => ({ ...Object.fromEntries(Array.from({ length: workers }, (_, i) => [String(i), 0])), ...byWorker })
  if (transport === 'mesh-port') {
    const calls = Object.fromEntries(DOWNSTREAM_SERVICES.map((service) => [service, all(delta.meshPort[service]?.httpPort)]))
    const meshFallback = DOWNSTREAM_SERVICES.reduce((sum, service) => sum + (delta.meshPort[service]?.mesh ?? 0), 0)
    return { from: 'mesh-port counter', calls, meshFallback }
  }
  const calls = Object.fromEntries(DOWNSTREAM_SERVICES.map((service) => [service, all(delta.requests[service])]))
  const any = Object.values(calls).some((byWorker) => Object.values(byWorker).some((n) => n > 0))
  return any ? { from: 'http server requests', calls } : null
}

/**
 * Each worker's share of one service's calls, in worker order (fractions summing to 1).
 * @param {Record<string, number>} byWorker
 */
export function sharesOf (byWorker) {
  const workers = Object.keys(byWorker).sort((a, b) => Number(a) - Number(b))
  const total = workers.reduce((sum, w) => sum + byWorker[w], 0)
  return workers.map((w) => ({ worker: w, share: total > 0 ? byWorker[w] / total : 0 }))
}

/**
 * Compact: "node3 49/51%" per service with more than one worker; '' when every
 * service ran one worker (nothing to share) or nothing was counted.
 * @param {WorkerCalls | null | undefined} workerCalls
 */
export function describeShares (workerCalls) {
  if (!workerCalls) return ''
  const parts = Object.entries(workerCalls.calls)
    .filter(([, byWorker]) => Object.keys(byWorker).length > 1)
    .map(([service, byWorker]) => `${service} ${sharesOf(byWorker).map((s) => Math.round(s.share * 100)).join('/')}%`)
  return parts.join(', ')
}

/**
 * One profile's and target's calls per worker over all its passed runs (rounds
 * summed), for the tables; null when no run counted any.
 * @param {any[]} runs
 * @returns {WorkerCalls | null}
 */
export function totalWorkerCalls (runs) {
  const counted = runs.filter((r) => r.ok && r.workerCalls)
  if (counted.length === 0) return null
  /** @type {Record<string, Record<string, number>>} */
  const calls = {}
  for (const run of counted) {
    for (const [service, byWorker] of Object.entries(/** @type {WorkerCalls} */ (run.workerCalls).calls)) {
      const mine = (calls[service] ??= {})
      for (const [worker, n] of Object.entries(byWorker)) mine[worker] = (mine[worker] ?? 0) + n
    }
  }
  return { from: counted[0].workerCalls.from, calls }
}

/**
 * Lines under the closing table with --workers N: each target's shares, rounds summed.
 * @param {any} result
 */
export function sharesLines (result) {
  if ((result.config.workers ?? 1) <= 1) return ''
  const keys = [...new Set(result.runs.map((/** @type {any} */ r) => `${r.profile}\u0000${r.target}`))]
  const lines = keys.map((key) => {
    const [profile, target] = key.split('\u0000')
    const shares = describeShares(totalWorkerCalls(result.runs.filter((/** @type {any} */ r) => r.profile === profile && r.target === target)))
    return `  ${profile} · ${target}: ${shares || 'not counted (no HTTP request reaches a worker of the runtime)'}`
  })
  return `calls per worker (${result.config.workers} per service, rounds summed):\n${lines.join('\n')}`
}
