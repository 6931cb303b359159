// @ts-check
// One measured run of one transport: warm-up, metrics before, verified load,
// metrics after, cost per downstream call. Shared by bench and bench:sweep.
import { failuresOf, runLoad } from '../lib/load.js'
import { resourceDelta, scrapeMetrics } from '../lib/metrics.js'
import { waitUntilSettled } from '../lib/settle.js'
import { costPerCall } from './cost.js'
import { entryUrl, expectedEntryBody } from './expected.js'

/**
 * @param {any} kase
 * @param {Record<string, any>} flags  warmup and duration, in seconds
 * @param {import('../lib/runtime.js').Runtime} runtime
 * @param {{ tick: (s: number) => void }} progress
 * @param {{ setRtt: (rttMs: number) => Promise<void>, cpuSeconds: (transport: string) => { services: number | null, relay: number | null } | null }} [outside]
 *   what was started outside the runtime (bench/lib/requirements.js), for its RTT and CPU
 */
export async function measureTransport (kase, flags, runtime, progress, outside) {
  if (kase.rttMs !== undefined && outside) await outside.setRtt(kase.rttMs)
  const load = {
    url: entryUrl(runtime.url, kase.transport, kase.size, kase.fanout, kase.fault),
    connections: kase.connections,
    pipelining: kase.pipelining,
    expectBody: expectedEntryBody(kase.transport, kase.size, kase.fanout)
  }
  if (flags.warmup > 0) {
    const warm = await runLoad({ ...load, duration: flags.warmup, onTick: (s) => progress.tick(s) })
    const failures = failuresOf(warm)
    if (failures.length) return { failures: failures.map((failure) => `warm-up: ${failure}`) }
  }
  // Let the runtime finish what the warm-up (or the previous run) left in flight.
  const settle = await waitUntilSettled(entryUrl(runtime.url, kase.transport, kase.size, kase.fanout))
  const before = await scrapeMetrics(runtime.metricsUrl).catch(() => null)
  const outsideBefore = outside?.cpuSeconds(kase.transport) ?? null
  const measured = await runLoad({ ...load, duration: flags.duration, onTick: (s) => progress.tick(flags.warmup + s) })
  const outsideAfter = outside?.cpuSeconds(kase.transport) ?? null
  const after = await scrapeMetrics(runtime.metricsUrl).catch(() => null)
  const outsideCpu = outsideBefore && outsideAfter ? outsideDelta(outsideBefore, outsideAfter) : null
  return { load: measured, settle, resources: before && after ? costPerCall(resourceDelta(before, after), measured, kase.fanout, outsideCpu) : null }
}

/**
 * CPU seconds the processes outside the runtime spent in the measured window.
 * @param {{ services: number | null, relay: number | null }} before
 * @param {{ services: number | null, relay: number | null }} after
 */
function outsideDelta (before, after) {
  const delta = (/** @type {number | null} */ a, /** @type {number | null} */ b) => (a === null || b === null ? null : b - a)
  return { servicesCpuSeconds: delta(before.services, after.services), relayCpuSeconds: delta(before.relay, after.relay) }
}
