// @ts-check
// One run of one variant: a fresh runtime (unless shared), a checked preflight,
// warm-up, then the measured load with every response verified, while the
// serving process's peak RSS is tracked.
import { failuresOf, runLoad } from '../lib/load.js'
import { rotatingVariant } from './expected.js'
import { rssOf, trackPeakRss } from './peak-rss.js'
import { runtimeKindOf } from './plan.js'
import { preflight } from './preflight.js'

/**
 * @typedef {object} VariantContext
 * @property {Record<string, import('./dataset/cache.js').CachedDataset>} datasets
 * @property {(kind: import('./runtime.js').RuntimeKind) => Promise<import('./runtime.js').DataRuntime>} runtimeFor   a fresh or the shared runtime of that config
 * @property {(runtime: import('./runtime.js').DataRuntime) => Promise<void>} release  stops it when fresh
 * @property {number} seed
 * @property {number} timeoutS
 * @property {boolean} freshRuntime   one runtime per run (else shared by all)
 */

/**
 * @param {import('./plan.js').DataCase} kase
 * @param {VariantContext} context
 * @param {{ tick: (s: number) => void }} progress
 */
export async function measureVariant (kase, context, progress) {
  const { manifest } = context.datasets[kase.dataset]
  const rotation = rotatingVariant(kase.dataset, kase.source, kase.mode, manifest, context.seed)
  const runtime = await context.runtimeFor(runtimeKindOf(kase.source))
  try {
    const pid = /** @type {number} */ (runtime.pid)
    const rssIdleBytes = await rssOf(pid)
    // On the large dataset every request scans the whole file for seconds: one known id is enough up front.
    const wrongOnce = await preflight(runtime.url, rotation, context.timeoutS, { unknownToo: kase.dataset === 'small' })
    // a 507 is the buffered variant refusing a dataset it can never fit: by design, reported as REFUSED
    if (wrongOnce.length) return { failures: wrongOnce.map((why) => `preflight: ${why}`), rssIdleBytes, refused: wrongOnce.every((why) => / answered 507: /.test(why)) }

    const load = { url: runtime.url + rotation.paths[0], connections: kase.connections, pipelining: 1, timeoutS: context.timeoutS, rotate: rotation }
    if (kase.warmup > 0) {
      const warm = await runLoad({ ...load, duration: kase.warmup, onTick: (s) => progress.tick(s) })
      // A warm-up shorter than one answer completes nothing, and that is fine; a wrong answer is not.
      if (warm.errors || warm.timeouts || warm.status.non2xx || warm.mismatches) {
        return { failures: failuresOf(warm).map((failure) => `warm-up: ${failure}`), rssIdleBytes }
      }
    }

    const rssBeforeBytes = await rssOf(pid)
    const tracker = trackPeakRss(pid)
    const measured = await runLoad({ ...load, duration: kase.duration, onTick: (s) => progress.tick(kase.warmup + s) })
    const tracked = await tracker.stop()
    // The peak of a run includes its start: the kernel's VmHWM, reset a moment after the reading
    // above, read 250 KB under it in a CI run (RSS freed between the two, counters synced lazily).
    const peakRssBytes = Math.max(tracked.peakRssBytes, rssBeforeBytes)
    const method = tracked.method
    const failures = (measured.mismatchSamples ?? []).map((sample) => `mismatch ${sample}`)
    if (measured.status['2xx'] === 0 && !measured.errors && !measured.status.non2xx) {
      failures.push(`no answer within the ${kase.duration} s run: one answer takes longer here; raise the duration or lower the connections`)
    }
    return {
      load: measured,
      failures,
      datasetBytes: manifest.bytes,
      // how much of the dataset the variant got through per second: req/s × dataset size
      datasetMBPerSec: (measured.requestsPerSec.avg * manifest.bytes) / 1e6,
      rssIdleBytes,
      rssBeforeBytes,
      peakRssBytes,
      peakRssMethod: method,
      // only a fresh runtime's idle RSS is a baseline: a shared one carries the previous variant's memory
      memoryConsumedBytes: context.freshRuntime ? peakRssBytes - rssIdleBytes : null,
      runtimePid: pid
    }
  } finally {
    await context.release(runtime)
  }
}
