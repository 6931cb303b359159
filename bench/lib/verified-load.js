// @ts-check
// One verified, measured load on one URL: a warm-up (any failure in it ends the
// run), a wait until the server has drained what the warm-up left in flight,
// then the measured load, with the caller's observation around it (metric
// scrapes, a profiling window). Used by bench/transports and bench/profile.
import { failuresOf, runLoad } from './load.js'
import { waitUntilSettled } from './settle.js'

/**
 * @template {Record<string, any>} T
 * @param {object} options
 * @param {Omit<import('./load.js').LoadOptions, 'duration' | 'onTick'>} options.load
 * @param {number} options.warmup      seconds; 0 skips the warm-up
 * @param {number} options.duration    seconds measured
 * @param {{ tick: (s: number) => void }} options.progress
 * @param {string} [options.settleUrl]  probed until quiet before measuring (default: the load's URL)
 * @param {(measure: () => Promise<import('./load.js').LoadResult>) => Promise<T & { load: import('./load.js').LoadResult }>} [options.around]
 *   runs `measure` with whatever must happen just before and after it
 * @returns {Promise<import('./types.js').Measurement>}
 */
export async function measureVerifiedLoad ({ load, warmup, duration, progress, settleUrl = load.url, around }) {
  if (warmup > 0) {
    const failures = failuresOf(await runLoad({ ...load, duration: warmup, onTick: (s) => progress.tick(s) }))
    if (failures.length) {
      // Drain what the failed warm-up left in flight anyway: otherwise the next run starts
      // into that backlog and fails too (seen: one overloaded warm-up failed all 8 runs after it).
      const settle = await waitUntilSettled(settleUrl)
      return { failures: failures.map((failure) => `warm-up: ${failure}`), settle }
    }
  }
  // Let the server finish what the warm-up (or the previous run) left in flight.
  const settle = await waitUntilSettled(settleUrl)
  const measure = () => runLoad({ ...load, duration, onTick: (s) => progress.tick(warmup + s) })
  const measured = around ? await around(measure) : { load: await measure() }
  return { ...measured, settle }
}
