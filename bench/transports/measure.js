// @ts-check
// One measured run of one transport: the shared verified load, with the
// runtime's metrics scraped before and after it for the cost per downstream
// call. Shared by bench and bench:sweep. A failed scrape leaves the run's
// resource figures missing, and says why, rather than silently null.
import { schedstatDelta, schedstatByApplication } from '../lib/core-waits.js'
import { requestDelta, resourceDelta, scrapeMetrics } from '../lib/metrics.js'
import { measureVerifiedLoad } from '../lib/verified-load.js'
import { coreWaitPerCall, costPerCall } from './cost.js'
import { entryLoad, entryUrl } from './expected.js'
import { workerCallsOf } from './worker-shares.js'

/**
 * @param {import('../lib/types.js').Case} kase
 * @param {Record<string, any>} flags  warmup and duration, in seconds; workers per downstream service
 * @param {import('../lib/runtime.js').Runtime} runtime
 * @param {{ tick: (s: number) => void }} progress
 * @param {{ setRtt: (rttMs: number) => Promise<void>, cpuSeconds: (transport: string) => import('../outside/targets.js').OutsideCpu | null, runtimeFor?: (transport: string) => { url: string, metricsUrl: string, pid?: number | null } | null }} [outside]
 *   what was started outside the runtime (bench/lib/requirements.js), for its RTT and CPU,
 *   and the runtime of its own a transport is measured in (mesh-port's), entry and metrics alike
 */
export async function measureTransport (kase, flags, runtime, progress, outside) {
  if (kase.rttMs !== undefined && outside) await outside.setRtt(kase.rttMs)
  const target = outside?.runtimeFor?.(kase.transport) ?? runtime
  return measureVerifiedLoad({
    load: entryLoad(target.url, kase),
    warmup: flags.warmup,
    duration: flags.duration,
    progress,
    settleUrl: entryUrl(target.url, kase.transport, kase.size, kase.fanout),
    around: async (measure) => {
      const scrape = () => scrapeMetrics(target.metricsUrl).then((snapshot) => ({ snapshot, error: null }), (err) => ({ snapshot: null, error: String(err?.message ?? err) }))
      const before = await scrape()
      const outsideBefore = outside?.cpuSeconds(kase.transport) ?? null
      const schedBefore = target.pid ? schedstatByApplication(target.pid) : null
      const load = await measure()
      const schedAfter = target.pid ? schedstatByApplication(target.pid) : null
      const waits = schedstatDelta(schedBefore?.waits ?? null, schedAfter?.waits ?? null)
      const slices = schedstatDelta(schedBefore?.slices ?? null, schedAfter?.slices ?? null)
      const outsideAfter = outside?.cpuSeconds(kase.transport) ?? null
      const after = await scrape()
      const outsideCpu = outsideBefore && outsideAfter ? outsideDelta(outsideBefore, outsideAfter) : null
      if (before.snapshot && after.snapshot) {
        const workerCalls = workerCallsOf(kase.transport, requestDelta(before.snapshot, after.snapshot), flags.workers ?? 1)
        // a mesh-port run whose calls took the mesh measured the wrong thing
        const failures = workerCalls?.meshFallback ? [`${workerCalls.meshFallback} call(s) fell back to Watt's mesh instead of http-port`] : []
        const resources = costPerCall(resourceDelta(before.snapshot, after.snapshot), load, kase.fanout, outsideCpu)
        return { load, failures, workerCalls, resources: waits ? { ...resources, coreWait: coreWaitPerCall(waits, load, kase.fanout, slices) } : resources }
      }
      return { load, resources: null, resourcesMissing: `metrics scrape failed ${before.error ? `before the run (${before.error})` : `after the run (${after.error})`}` }
    }
  })
}

/**
 * CPU seconds the processes outside the runtime spent in the measured window.
 * @param {import('../outside/targets.js').OutsideCpu} before
 * @param {import('../outside/targets.js').OutsideCpu} after
 */
function outsideDelta (before, after) {
  const delta = (/** @type {number | null | undefined} */ a, /** @type {number | null | undefined} */ b) => (a == null || b == null ? null : b - a)
  return { servicesCpuSeconds: delta(before.services, after.services), relayCpuSeconds: delta(before.relay, after.relay), engineCpuSeconds: delta(before.engine, after.engine) }
}
