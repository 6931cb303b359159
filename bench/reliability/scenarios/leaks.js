// @ts-check
// Leaks: five back-to-back seed-profile runs (every transport, c100 p10) after
// a warm-up run, then RSS and per-application heap after the fifth compared
// with after the first. mesh-port's case runs in its own runtime, over it alone.
// Each reading follows a full GC in every worker (through Watt's REPL), so it
// shows what is retained, not how much young garbage waits for a scavenge
// (each worker's young generation alone may hold 128 MB).
import { setTimeout as sleep } from 'node:timers/promises'
import { SERVER_KEEP_ALIVE_MS } from '../../../lib/downstream.js'
import { failuresOf } from '../../lib/load.js'
import { scrapeMetrics } from '../../lib/metrics.js'
import { availableTransports } from '../../../lib/topology.js'
import { PROFILES } from '../../transports/profiles.js'
import { loadUnderSeedProfile } from './load.js'

// Calls the entry gave up on (504s) hold their pooled sockets' state until the tcp
// pool's keep-alive (half the server's) lets them go: measured, that is ~15 MiB of
// entry heap for a few seconds, not a leak. The readings compared wait this out.
const QUIET_MS = SERVER_KEEP_ALIVE_MS / 2 + 1000

/**
 * @param {import('../private-runtime.js').PrivateRuntime} runtime
 * @param {import('../watt-control.js').WattControl} control
 * @param {{ runs: number, secondsPerTransport: number, maxGrowth: number, warmupRuns?: number, transports?: readonly string[], profile?: { connections: number, pipelining: number }, quietMs?: number, onTick?: (s: number) => void }} options
 *   warmupRuns: unmeasured runs first, so "after the first run" is a runtime that has seen the
 *   profile's peak concurrency (the allocator keeps its high-water mark; that is not a leak)
 *   profile: the load of each run (default the seed's, c100 p10)
 *   quietMs: idle time before each compared reading (default QUIET_MS, for the tcp pool;
 *   a caller whose runs use no tcp pool has nothing to wait out)
 */
export async function memoryAcrossRuns (runtime, control, { runs, secondsPerTransport, maxGrowth, warmupRuns = 1, transports = availableTransports(), profile = PROFILES.seed, quietMs = QUIET_MS, onTick }) {
  const failures = []
  const readings = []
  let elapsed = 0
  for (let run = 1 - warmupRuns; run <= runs; run++) {
    let requests = 0
    for (const transport of transports) {
      const offset = elapsed
      const { load } = await loadUnderSeedProfile(runtime, { transport, duration: secondsPerTransport, profile, onTick: (s) => onTick?.(offset + s) })
      elapsed += secondsPerTransport
      requests += load.totalRequests
      for (const failure of leakRunFailures(load)) failures.push(`run ${run < 1 ? 'warm-up' : run} ${transport}: ${failure}`)
    }
    const compared = run === 1 || run === runs
    if (run >= 1) readings.push({ run, requests, ...(await memoryAfterGc(runtime, control, compared ? quietMs : 0)) })
  }

  const first = readings[0]
  const last = readings[readings.length - 1]
  const growth = (/** @type {number} */ a, /** @type {number} */ b) => (b - a) / a
  const rssGrowth = growth(first.rssBytes, last.rssBytes)
  if (rssGrowth > maxGrowth) failures.push(`RSS grew ${pct(rssGrowth)} from run 1 to run ${last.run} (${mib(first.rssBytes)} → ${mib(last.rssBytes)} MiB), limit ${pct(maxGrowth)}`)
  /** @type {Record<string, number>} */
  const heapGrowth = {}
  for (const [app, bytes] of Object.entries(first.heapUsedBytes)) {
    heapGrowth[app] = growth(bytes, last.heapUsedBytes[app] ?? NaN)
    if (!(heapGrowth[app] <= maxGrowth)) failures.push(`${app} heap grew ${pct(heapGrowth[app])} (${mib(bytes)} → ${mib(last.heapUsedBytes[app])} MiB), limit ${pct(maxGrowth)}`)
  }
  return { failures, leaks: { runs, warmupRuns, transports, profile, secondsPerTransport, maxGrowth, quietMs, rssGrowth, heapGrowth, readings } }
}

/**
 * What fails one short run of a leak check. A run can end before its first answer on a busy
 * box: what it sent is still answered (the drain) and exercises memory all the same, and
 * correctness under load is the load check's job. So "no successful response" alone is no
 * failure, nor the answer failuresOf takes after any failure, which then explains nothing.
 * @param {Parameters<typeof failuresOf>[0]} load
 */
export function leakRunFailures (load) {
  const failed = failuresOf(load).filter((failure) => failure !== 'no successful response')
  return failed.some((failure) => !failure.startsWith('one answer after the run')) ? failed : []
}

/**
 * @param {import('../private-runtime.js').PrivateRuntime} runtime
 * @param {import('../watt-control.js').WattControl} control
 * @param {number} quietMs  idle time before the reading
 */
async function memoryAfterGc (runtime, control, quietMs) {
  await sleep(quietMs)
  // every worker: mesh-port's runtime runs the faulted service at two, and a heap reading sums them
  for (const app of await control.applications()) await control.collectGarbage(app.id, app.workers ?? 1)
  await sleep(200)
  const snapshot = await scrapeMetrics(runtime.metricsUrl)
  return {
    rssBytes: snapshot.rssBytes,
    heapUsedBytes: Object.fromEntries(Object.entries(snapshot.apps).map(([app, metrics]) => [app, metrics.heapUsedBytes]))
  }
}

/** @param {number} ratio */
export function pct (ratio) {
  return `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(1)}%`
}

/** @param {number | undefined} bytes */
export function mib (bytes) {
  return bytes === undefined ? '–' : (bytes / 1048576).toFixed(0)
}
