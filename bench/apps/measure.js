// @ts-check
// One measured run of one route on one path: the app's runtime for that path,
// the verified load (every answer checked against the seeded rows), the
// runtime's metrics scraped around it (CPU per request, RSS, and the drop-in's
// counter, which must show every call over http-port on mesh-port and none
// elsewhere), and for writes the table checked afterwards and put back as seeded.
import { setTimeout as sleep } from 'node:timers/promises'
import { requestDelta, resourceDelta, scrapeMetrics } from '../lib/metrics.js'
import { processCpuSeconds } from '../lib/proc-cpu.js'
import { waitUntilSettled } from '../lib/settle.js'
import { measureVerifiedLoad } from '../lib/verified-load.js'
import { readOrders, resetOrders } from './database.js'
import { routeLoad } from './expected.js'
import { DROP_IN_PATH, warmupFor } from './plan.js'
import { checkWrites } from './writes.js'

/** Far below Watt's 300 s default: a stuck call fails the run instead of stalling it. */
const REQUEST_TIMEOUT_S = 10

/**
 * @typedef {object} AppsContext
 * @property {(kase: import('./plan.js').AppCase) => Promise<import('./runtimes.js').AppRuntime>} runtimeFor
 * @property {Set<string>} wrong   app/route whose expectations are made wrong on purpose
 */

/**
 * @param {import('./plan.js').AppCase} kase
 * @param {{ round: number, progress: { tick: (s: number) => void }, flags: Record<string, any>, context: AppsContext }} options
 * @returns {Promise<import('../lib/types.js').Measurement>}
 */
export async function measureRoute (kase, { round, progress, flags, context }) {
  const runtime = await context.runtimeFor(kase)
  const route = routeLoad(kase.app, kase.route, { tag: `${kase.path}-r${round}`, wrong: context.wrong.has(`${kase.app}/${kase.route}`) })
  const settleUrl = runtime.url + route.readyPath
  /** @type {string[]} */
  const failures = []
  const rowsBefore = route.writes ? readOrders(runtime.dbFile).rows : 0
  if (rowsBefore !== 0) failures.push(`the orders table held ${rowsBefore} rows before the run, not the seeded 0`)

  const measured = await measureVerifiedLoad({
    load: { url: runtime.url + route.paths[0], connections: kase.connections, pipelining: 1, timeoutS: REQUEST_TIMEOUT_S, rotate: route },
    warmup: warmupFor(round, flags),
    duration: flags.duration,
    progress,
    settleUrl,
    around: async (measure) => {
      const before = await scrapeMetrics(runtime.metricsUrl)
      const cpuBefore = runtime.pid ? processCpuSeconds(runtime.pid) : null
      route.writes?.setPhase('m')
      const load = await measure()
      const cpuAfter = runtime.pid ? processCpuSeconds(runtime.pid) : null
      const after = await scrapeMetrics(runtime.metricsUrl)
      const answered = load.status['2xx']
      const delta = resourceDelta(before, after)
      const perRequest = (/** @type {number | null} */ seconds) => (seconds != null && answered > 0 ? (seconds * 1e6) / answered : null)
      return {
        load,
        resources: {
          // the whole runtime process (all its threads, /proc), and each application's threads (Watt's metrics)
          cpuMicrosPerRequest: perRequest(cpuBefore != null && cpuAfter != null ? cpuAfter - cpuBefore : null),
          appMicrosPerRequest: Object.fromEntries(Object.entries(delta.apps).map(([app, { cpuSeconds }]) => [app, perRequest(cpuSeconds)])),
          rssBeforeBytes: delta.rssBeforeBytes,
          rssAfterBytes: delta.rssAfterBytes
        },
        meshPort: requestDelta(before, after).meshPort
      }
    }
  })

  failures.push(...pathFailures(kase.path, measured.meshPort))
  let writes
  if (route.writes) {
    // the orders in flight when the load stopped are written before the table is read: the
    // entry answers fast GETs while inserts still queue at the db (18 rows landed after a reset at c50)
    await waitUntilSettled(settleUrl)
    await untilRowsStable(runtime.dbFile)
    const checked = checkWrites(runtime.dbFile, route.writes, rowsBefore)
    failures.push(...checked.failures)
    writes = checked.table
    resetOrders(runtime.dbFile)
  }
  return { ...measured, failures: [...failures, ...(measured.failures ?? [])], ...(writes ? { writes } : {}), runtimePid: runtime.pid }
}

/**
 * Waits until the orders table has held the same number of rows for five reads 100 ms apart (at most 20 s).
 * @param {string} file
 */
async function untilRowsStable (file) {
  let last = -1
  let same = 0
  for (const deadline = Date.now() + 20_000; same < 5 && Date.now() < deadline;) {
    const rows = readOrders(file).rows
    same = rows === last ? same + 1 : 0
    last = rows
    await sleep(100)
  }
}

/**
 * What the drop-in's counter must show for a path: on mesh-port every call over
 * http-port and none over the mesh; on the others, no drop-in at all.
 * @param {string} path
 * @param {Record<string, import('../lib/metrics.js').MeshPortCounts> | undefined} meshPort
 */
export function pathFailures (path, meshPort) {
  if (!meshPort) return [] // the load failed before the scrapes: its own failures say why
  const targets = Object.entries(meshPort)
  const overMesh = targets.reduce((sum, [, counts]) => sum + counts.mesh, 0)
  const overHttpPort = targets.reduce((sum, [, counts]) => sum + Object.values(counts.httpPort).reduce((a, b) => a + b, 0), 0)
  if (path === DROP_IN_PATH) {
    const failures = []
    if (overMesh) failures.push(`${overMesh} call(s) fell back to Watt's mesh instead of http-port`)
    if (!overHttpPort) failures.push('the drop-in\'s counter shows no call over http-port')
    return failures
  }
  return overMesh + overHttpPort ? [`the drop-in counted ${overMesh + overHttpPort} call(s) on the ${path} path, whose config has no drop-in`] : []
}
