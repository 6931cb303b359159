// @ts-check
// One wrk run per small-dataset variant, beside autocannon's numbers, in one
// runtime per config for all (memory is not measured here). wrk asks for one fixed id (no
// rotation) and does not check bodies: it cross-checks throughput and status
// only, like the original write-up's tool. A wrk run that completed no request
// fails. Large variants answer a handful of times per run: nothing to cross-check.
import { hasWrk, runWrk, WRK_MISSING } from '../lib/wrk.js'
import { idRotation, variantPath } from './expected.js'
import { runtimeKindOf } from './plan.js'

/**
 * @param {import('./plan.js').DataCase[]} cases
 * @param {import('./measure.js').VariantContext} context
 */
export async function crossCheckWithWrk (cases, context) {
  if (!(await hasWrk())) {
    process.stderr.write(`${WRK_MISSING}\n`)
    return { tool: 'wrk', skipped: WRK_MISSING, runs: [] }
  }
  const small = cases.filter((kase) => kase.dataset === 'small')
  if (small.length === 0) return { tool: 'wrk', skipped: 'no small-dataset variant ran; large variants are not cross-checked', runs: [] }
  const runs = []
  // one runtime per config, in the order the variants first need them
  for (const kind of new Set(small.map((kase) => runtimeKindOf(kase.source)))) {
    const runtime = await context.runtimeFor(kind)
    try {
      for (const kase of small.filter((k) => runtimeKindOf(k.source) === kind)) {
        process.stderr.write(`wrk cross-check: ${kase.target} (${kase.duration} s)\n`)
        const path = variantPath(kase.dataset, kase.source, kase.mode, idRotation(kase.dataset, context.seed)[0])
        const about = { target: kase.target, profile: kase.profile, connections: kase.connections, path }
        try {
          const result = await runWrk({ url: runtime.url + path, threads: 2, connections: kase.connections, duration: kase.duration, timeoutS: context.timeoutS })
          if (result.totalRequests === 0) runs.push({ ...result, ...about, ok: false, failures: [...result.failures, 'no request completed'] })
          else runs.push({ ...result, ...about })
        } catch (err) {
          const failure = /** @type {Error} */ (err).message
          runs.push({ ...about, ok: false, failures: [failure] })
        }
      }
    } finally {
      await context.release(runtime)
    }
  }
  return { tool: 'wrk', note: 'wrk -t2, small-dataset variants, one fixed id each, status checked but not bodies', runs }
}
