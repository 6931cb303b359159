// @ts-check
// One run of one case: start the target (all workers answering, response
// verified), warm up, measure with autocannon, then with wrk when installed,
// check the target is still as started, and stop it with nothing left behind.
import { failuresOf, runLoad } from '../lib/load.js'
import { freePorts } from '../lib/ports.js'
import { runWrk } from '../lib/wrk.js'
import { BODY, MEASURED_PATH } from './handler.js'
import { startTarget } from './targets.js'

/**
 * @param {{ target: string, scale: number, connections: number, autocannonWorkers: number }} kase
 * @param {Record<string, any>} flags
 * @param {{ progress: { tick: (s: number) => void }, wrk: boolean }} context
 * @returns {Promise<import('../lib/types.js').Measurement>}
 */
export async function measureCase (kase, flags, { progress, wrk }) {
  const [port] = await freePorts(1)
  const target = await startTarget(kase.target, kase.scale, port, { readyTimeoutMs: flags.readyTimeout * 1000 })
  /** @type {import('../lib/types.js').Measurement | undefined} */
  let measurement
  try {
    measurement = await loadTarget(kase, flags, target, { progress, wrk })
  } finally {
    const { leftovers, forced } = await target.stop()
    if (measurement) {
      measurement.failures = [...(measurement.failures ?? []), ...leftovers.map((left) => `after stop: ${left}`)]
      measurement.stop = { clean: leftovers.length === 0, forcedPids: forced }
    } else if (leftovers.length) {
      process.stderr.write(`${kase.target}@${kase.scale} after stop: ${leftovers.join('; ')}\n`)
    }
  }
  return measurement
}

/**
 * @param {{ connections: number, autocannonWorkers: number }} kase
 * @param {Record<string, any>} flags
 * @param {import('./targets.js').StartedTarget} target
 * @param {{ progress: { tick: (s: number) => void }, wrk: boolean }} context
 */
async function loadTarget (kase, flags, target, { progress, wrk }) {
  const base = { workersSeen: target.workerIds.length, workerIds: target.workerIds, startMs: target.startMs }
  const load = {
    url: target.url + MEASURED_PATH,
    connections: kase.connections,
    pipelining: 1,
    workers: kase.autocannonWorkers,
    expectBody: BODY
  }
  if (flags.warmup > 0) {
    const warm = await runLoad({ ...load, duration: flags.warmup, onTick: (s) => progress.tick(s) })
    const failures = failuresOf(warm)
    if (failures.length) return { ...base, failures: failures.map((failure) => `warm-up: ${failure}`) }
  }
  const measured = await runLoad({ ...load, duration: flags.duration, onTick: (s) => progress.tick(flags.warmup + s) })
  // wrk is its own measurement (another tool, another profile): a failed wrk
  // run is reported as FAILED in run.wrk and its table, not as a number, and it
  // does not discard the autocannon run above (as in the transports suite).
  const wrkResult = wrk
    ? await runWrk({ url: load.url, threads: flags.wrkThreads, connections: flags.wrkConnections, duration: flags.wrkDuration })
    : undefined
  const failures = await target.problems()
  return { ...base, load: measured, failures, ...(wrkResult ? { wrk: wrkResult } : {}) }
}
