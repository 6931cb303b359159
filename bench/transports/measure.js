// @ts-check
// One measured run of one transport: the shared verified load, with the
// runtime's metrics scraped before and after it for the cost per downstream
// call. Shared by bench and bench:sweep. A failed scrape leaves the run's
// resource figures missing, and says why, rather than silently null.
import { resourceDelta, scrapeMetrics } from '../lib/metrics.js'
import { measureVerifiedLoad } from '../lib/verified-load.js'
import { costPerCall } from './cost.js'
import { entryUrl, expectedEntryBody } from './expected.js'

/**
 * @param {import('../lib/types.js').Case} kase
 * @param {Record<string, any>} flags  warmup and duration, in seconds
 * @param {import('../lib/runtime.js').Runtime} runtime
 * @param {{ tick: (s: number) => void }} progress
 */
export function measureTransport (kase, flags, runtime, progress) {
  return measureVerifiedLoad({
    load: {
      url: entryUrl(runtime.url, kase.transport, kase.size, kase.fanout, kase.fault),
      connections: kase.connections,
      pipelining: kase.pipelining,
      expectBody: expectedEntryBody(kase.transport, kase.size, kase.fanout)
    },
    warmup: flags.warmup,
    duration: flags.duration,
    progress,
    settleUrl: entryUrl(runtime.url, kase.transport, kase.size, kase.fanout),
    around: async (measure) => {
      const scrape = () => scrapeMetrics(runtime.metricsUrl).then((snapshot) => ({ snapshot, error: null }), (err) => ({ snapshot: null, error: String(err?.message ?? err) }))
      const before = await scrape()
      const load = await measure()
      const after = await scrape()
      if (before.snapshot && after.snapshot) return { load, resources: costPerCall(resourceDelta(before.snapshot, after.snapshot), load, kase.fanout) }
      return { load, resources: null, resourcesMissing: `metrics scrape failed ${before.error ? `before the run (${before.error})` : `after the run (${after.error})`}` }
    }
  })
}
