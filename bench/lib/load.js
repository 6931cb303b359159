// @ts-check
// The load generator: autocannon's programmatic API, awaited, every response's
// status and body checked, and its own CPU use recorded (it shares the cores).
import autocannon from 'autocannon'

/**
 * @typedef {object} LoadOptions
 * @property {string} url                  full URL on 127.0.0.1
 * @property {number} connections
 * @property {number} pipelining
 * @property {number} duration             seconds; the run always stops by itself
 * @property {number} [workers]            autocannon worker threads (0 = none)
 * @property {string} [expectBody]         exact body every response must carry
 * @property {number} [timeoutS]           per-request timeout, seconds
 * @property {(elapsedS: number) => void} [onTick]
 */

/**
 * @typedef {object} LoadResult
 * @property {number} durationS
 * @property {number} totalRequests
 * @property {{ avg: number, stdev: number, min: number, max: number }} requestsPerSec
 * @property {{ avg: number, stdev: number, p50: number, p90: number, p99: number, max: number }} latencyMs
 * @property {{ avg: number, total: number }} throughputBytes  avg is bytes/s
 * @property {{ '2xx': number, non2xx: number, byCode: Record<string, number> }} status
 * @property {number} errors
 * @property {number} timeouts
 * @property {number} mismatches
 * @property {{ cpuSeconds: number, cpuPercent: number }} loadgen  percent of one core
 */

/**
 * @param {LoadOptions} options
 * @returns {Promise<LoadResult>}
 */
export async function runLoad ({ url, connections, pipelining, duration, workers = 0, expectBody, timeoutS = 10, onTick }) {
  const host = new URL(url).hostname
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') {
    throw new Error(`load tests target loopback only, not ${host}`)
  }
  const cpuBefore = process.cpuUsage()
  const started = process.hrtime.bigint()
  /** @type {any} */
  const options = {
    url,
    connections,
    pipelining,
    duration,
    timeout: timeoutS,
    excludeErrorStats: true, // latency and throughput of 2xx only; non-2xx fail the run anyway
    ...(workers > 0 ? { workers } : {}),
    ...(expectBody !== undefined ? { expectBody } : {})
  }
  /** @type {any} */
  const instance = autocannon(options)
  let ticks = 0
  instance.on('tick', () => onTick?.(++ticks))
  /** @type {import('autocannon').Result} */
  const result = await instance
  const wallS = Number(process.hrtime.bigint() - started) / 1e9
  const cpu = process.cpuUsage(cpuBefore)
  const cpuSeconds = (cpu.user + cpu.system) / 1e6
  /** @type {Record<string, number>} */
  const byCode = {}
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) byCode[code] = stats?.count ?? 0
  return {
    durationS: result.duration,
    totalRequests: result.requests.total,
    requestsPerSec: { avg: result.requests.average, stdev: result.requests.stddev, min: result.requests.min, max: result.requests.max },
    latencyMs: {
      avg: result.latency.average,
      stdev: result.latency.stddev,
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max
    },
    throughputBytes: { avg: result.throughput.average, total: result.throughput.total },
    status: { '2xx': result['2xx'], non2xx: result.non2xx, byCode },
    errors: result.errors,
    timeouts: result.timeouts,
    mismatches: result.mismatches,
    loadgen: { cpuSeconds, cpuPercent: (cpuSeconds / wallS) * 100 }
  }
}

/**
 * Why a run does not count, or [] when it does: any error, timeout, mismatch or
 * non-2xx response fails it.
 * @param {LoadResult} load
 * @returns {string[]}
 */
export function failuresOf (load) {
  const failures = []
  if (load.status.non2xx) {
    const codes = Object.entries(load.status.byCode).filter(([code]) => !code.startsWith('2')).map(([code, n]) => `${n}×${code}`)
    failures.push(`${load.status.non2xx} non-2xx (${codes.join(', ')})`)
  }
  if (load.errors - load.timeouts > 0) failures.push(`${load.errors - load.timeouts} errors`)
  if (load.timeouts) failures.push(`${load.timeouts} timeouts`)
  if (load.mismatches) failures.push(`${load.mismatches} body mismatches`)
  if (load.totalRequests === 0 || load.status['2xx'] === 0) failures.push('no successful response')
  return failures
}
