// @ts-check
// The load generator: autocannon's programmatic API, awaited, every response's
// status and body checked, and its own CPU use recorded (it shares the cores).
import autocannon from 'autocannon'
import { request } from 'undici'
import { assertLoopbackUrl } from './loopback.js'

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
 * @property {AbortSignal} [signal]        ends the run early, at autocannon's next tick (what it measured so far is the result)
 * @property {RotatingPaths} [rotate]       vary the path per request and check every 2xx answer
 * @property {boolean} [remoteEntry]        allow a non-loopback URL: only the cluster load Job
 *                                          (bench/outside/load-job.js), told so explicitly
 */

/**
 * Paths used round robin across all connections (so e.g. every request asks for
 * another id), and a check of each 2xx body against the path it answers. Needs
 * pipelining 1: a response is matched to its request per connection.
 * @typedef {object} RotatingPaths
 * @property {string[]} paths                                    paths with query, e.g. /a/b?x=1
 * @property {(path: string, body: string, sent?: string) => string | null} check  null when right, else what is wrong;
 *   `sent` is the JSON body a write sent
 * @property {(path: string) => { method: string, body: string }} [write]  a write instead of a GET: its method and
 *   JSON body, built afresh for every request (e.g. each order with its own reference)
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
 * @property {string[]} [mismatchSamples]  the first few mismatches, when rotating paths
 * @property {{ cpuSeconds: number, cpuPercent: number }} loadgen  percent of one core
 * @property {string} [answerAfterFailure]  a failed load's one request afterwards: status and body's start
 */

/**
 * @param {LoadOptions} options
 * @returns {Promise<LoadResult>}
 */
export async function runLoad ({ url, connections, pipelining, duration, workers = 0, expectBody, timeoutS = 10, onTick, signal, rotate, remoteEntry = false }) {
  if (!remoteEntry) assertLoopbackUrl(url)
  const rotation = rotate ? rotatingRequests(rotate, { pipelining, workers, expectBody }) : null
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
    ...(expectBody !== undefined ? { expectBody } : {}),
    ...(rotation ? { requests: rotation.requests } : {})
  }
  /** @type {any} */
  const instance = autocannon(options)
  let ticks = 0
  instance.on('tick', () => onTick?.(++ticks))
  const stop = () => instance.stop()
  if (signal?.aborted) stop()
  else signal?.addEventListener('abort', stop, { once: true })
  /** @type {import('autocannon').Result} */
  let result
  try {
    result = await instance
  } finally {
    signal?.removeEventListener('abort', stop)
  }
  const wallS = Number(process.hrtime.bigint() - started) / 1e9
  const cpu = process.cpuUsage(cpuBefore)
  const cpuSeconds = (cpu.user + cpu.system) / 1e6
  /** @type {Record<string, number>} */
  const byCode = {}
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) byCode[code] = stats?.count ?? 0
  /** @type {LoadResult} */
  const load = {
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
    mismatches: result.mismatches + (rotation?.mismatches.count ?? 0),
    ...(rotation ? { mismatchSamples: rotation.mismatches.samples } : {}),
    loadgen: { cpuSeconds, cpuPercent: (cpuSeconds / wallS) * 100 }
  }
  // The counts say what failed, not why; the answer says why (a 502 or 504 body names the
  // service and the error, a 404 the server that answered), asked while the target still runs.
  if (failuresOf(load).length) load.answerAfterFailure = await oneAnswer(rotate ? new URL(rotate.paths[0], url).href : url)
  return load
}

/**
 * One request's status and the start of its body, or the error's code; never the whole
 * body (a data-suite answer can be gigabytes).
 * @param {string} url
 */
async function oneAnswer (url) {
  try {
    const { statusCode, body } = await request(url, { headersTimeout: 5000, bodyTimeout: 5000, reset: true })
    let text = ''
    for await (const chunk of body) {
      text += chunk
      if (text.length >= 300) break
    }
    return `${statusCode} ${text.slice(0, 300)}`
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code ?? /** @type {Error} */ (err).message
  }
}

/**
 * autocannon `requests` that rotate the path and check each 2xx body. The path
 * rides in the connection's context: with pipelining 1 the response that comes
 * back is the one for the path set up last on that connection.
 * @param {RotatingPaths} rotate
 * @param {{ pipelining: number, workers: number, expectBody?: string }} options
 */
function rotatingRequests ({ paths, check, write }, { pipelining, workers, expectBody }) {
  if (paths.length === 0) throw new Error('rotate needs at least one path')
  if (pipelining !== 1) throw new Error('rotating paths needs pipelining 1 (responses are matched to requests per connection)')
  if (workers > 0 || expectBody !== undefined) throw new Error('rotating paths cannot be combined with workers or expectBody')
  const mismatches = { count: 0, samples: /** @type {string[]} */ ([]) }
  let next = 0
  const requests = [{
    method: 'GET',
    setupRequest (/** @type {any} */ request, /** @type {any} */ context) {
      const path = paths[next++ % paths.length]
      context.path = path
      if (!write) return { ...request, path }
      const { method, body } = write(path)
      context.sent = body
      return { ...request, path, method, body, headers: { ...request.headers, 'content-type': 'application/json' } }
    },
    onResponse (/** @type {number} */ status, /** @type {string} */ body, /** @type {any} */ context) {
      if (status < 200 || status > 299) return // counted as non-2xx already
      const wrong = check(context.path, body, context.sent)
      if (wrong === null) return
      mismatches.count++
      if (mismatches.samples.length < 3) mismatches.samples.push(`${context.path}: ${wrong}`)
    }
  }]
  return { requests, mismatches }
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
  if (failures.length && load.answerAfterFailure) failures.push(`one answer after the run: ${load.answerAfterFailure}`)
  return failures
}
