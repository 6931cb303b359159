// @ts-check
// The shapes every suite shares: a case to run, what measuring it returns, one
// run in the result file, and the result file itself (schema in docs/benchmarks.md).
export {}

/**
 * What a suite asks the runner to measure: one target under one profile, plus
 * the suite's own fields (connections, size, scale, …).
 * @typedef {{ target: string, profile: string, [field: string]: any }} Case
 */

/**
 * What a suite's measurement returns for one case: the verified load (when
 * there was one), its own failures, and any figures of its own.
 * @typedef {{ load?: import('./load.js').LoadResult, failures?: string[], [field: string]: any }} Measurement
 */

/**
 * @typedef {object} LatencyMs
 * @property {number} avg
 * @property {number} p50
 * @property {number} p90
 * @property {number} p99
 * @property {number} max
 */

/**
 * One measured (or failed) run: the case's fields, then the judged load.
 * @typedef {object} RunFields
 * @property {string} target       what was measured (a transport, a framework, a strategy, a variant)
 * @property {string} profile      the load profile (e.g. seed, latency)
 * @property {number} round
 * @property {string} [startedAt]
 * @property {boolean} ok          false when any error, timeout, mismatch or non-2xx happened
 * @property {string[]} failures   why it failed, empty when ok
 * @property {number | null} requestsPerSec  average req/s; null for a run that failed to measure
 * @property {import('./load.js').LoadResult['requestsPerSec']} [requestsPerSecStats]
 * @property {LatencyMs} [latencyMs]
 * @property {number} [throughputBytesPerSec]
 * @property {number} [totalRequests]
 * @property {{ '2xx': number, non2xx: number, byCode?: Record<string, number> }} [status]
 * @property {number} [errors]
 * @property {number} [timeouts]
 * @property {number} [mismatches]
 * @property {{ cpuSeconds: number, cpuPercent: number }} [loadgen]
 * @property {Record<string, any> | null} [resources]   transports: the runtime's cost (null: not measured)
 * @property {string} [resourcesMissing]                why resources is null (a failed metrics scrape)
 * @typedef {RunFields & Record<string, any>} Run
 */

/**
 * Median, min and max across rounds.
 * @typedef {{ median: number, min: number, max: number, n: number }} Spread
 */

/**
 * @typedef {ResultFields & Record<string, any>} Result   a suite may add its own fields (e.g. scale's ratioToNode)
 * @typedef {object} ResultFields
 * @property {string} schema        watt-transport-lab/result@N
 * @property {string} suite
 * @property {string} startedAt
 * @property {string | null} finishedAt
 * @property {boolean} complete
 * @property {boolean} failed
 * @property {boolean} interrupted
 * @property {ReturnType<typeof import('./machine.js').machineInfo>} machine   the harness's machine and packages
 * @property {import('./runtime-settings.js').RuntimeSettings} [runtime]       the runtime's own settings and versions, when the suite ran one
 * @property {Record<string, any>} config   the flags as given
 * @property {import('./quiet-machine.js').QuietResult} [quietBeforeRuns]  the wait for a quiet machine before the first run (--quiet-wait)
 * @property {Run[]} runs
 * @property {Record<string, Record<string, any>>} summary   profile → target → spread, or failed
 * @property {Record<string, any>} [crossCheck]
 */
