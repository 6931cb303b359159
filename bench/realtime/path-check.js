// @ts-check
// What the drop-in's counter (watt_lab_mesh_port_requests_total, by target and
// path) must show over a run: on mesh-port every call edge made over http-port
// and none left to Watt's mesh; on the mesh and tcp paths no drop-in at all.
// A WebSocket opened over the drop-in counts as one call.
import { DROP_IN_PATH } from './plan.js'

/**
 * @param {string} path
 * @param {Record<string, import('../lib/metrics.js').MeshPortCounts> | undefined} meshPort  the run's delta (metrics.js requestDelta)
 * @param {string} what  the calls, for the message ("WebSocket upgrades", "SSE streams")
 * @returns {string[]}
 */
export function dropInFailures (path, meshPort, what) {
  if (!meshPort) return []
  const targets = Object.entries(meshPort)
  const overMesh = targets.reduce((sum, [, counts]) => sum + counts.mesh, 0)
  const overHttpPort = targets.reduce((sum, [, counts]) => sum + Object.values(counts.httpPort).reduce((a, b) => a + b, 0), 0)
  if (path === DROP_IN_PATH) {
    const failures = []
    if (overMesh) failures.push(`the drop-in left ${overMesh} of edge's calls (${what}) to Watt's mesh (counter path="mesh"): ${targets.filter(([, c]) => c.mesh).map(([t, c]) => `${t} ${c.mesh}`).join(', ')}`)
    if (!overHttpPort && !overMesh) failures.push(`the drop-in's counter shows no call (${what}) over http-port`)
    return failures
  }
  return overMesh + overHttpPort ? [`the drop-in counted ${overMesh + overHttpPort} call(s) on the ${path} path, whose config has no drop-in`] : []
}
