// @ts-check
// Resource cost per downstream call, from the before/after metric scrapes.
import { ENTRY } from '../../lib/topology.js'

/**
 * CPU microseconds per downstream call: the whole runtime, the entry alone, and
 * the downstream services together. For targets outside the runtime, the service
 * processes' own CPU (from /proc) is theirs: `services` and in `total`; the
 * delay relay that emulates the network is `relay`, apart and not in `total`
 * (it stands in for a network, it is not the transport's cost); the container
 * engine's own processes (docker-proxy, containerd-shim) are `engine`, also apart:
 * the price of the published port, shown beside the services' rather than hidden in them.
 * @param {ReturnType<typeof import('../lib/metrics.js').resourceDelta>} delta
 * @param {import('../lib/load.js').LoadResult} load
 * @param {number} fanout
 * @param {{ servicesCpuSeconds: number | null, relayCpuSeconds: number | null, engineCpuSeconds?: number | null } | null} [outside]
 */
export function costPerCall (delta, load, fanout, outside = null) {
  const calls = load.status['2xx'] * fanout
  const micros = (/** @type {number | null} */ seconds) => perCall(seconds, calls)
  const entry = delta.apps[ENTRY.name]?.cpuSeconds ?? 0
  const inRuntime = delta.totalCpuSeconds - entry
  const outsideServices = outside?.servicesCpuSeconds ?? null
  return {
    ...delta,
    downstreamCalls: calls,
    ...(outside ? { outside } : {}),
    cpuMicrosPerCall: {
      total: micros(delta.totalCpuSeconds + (outsideServices ?? 0)),
      entry: micros(entry),
      downstream: micros(inRuntime),
      // who answered the calls: the service processes when outside, else the runtime's services
      services: micros(outsideServices ?? inRuntime),
      ...(outside ? { serviceProcesses: micros(outsideServices), relay: micros(outside.relayCpuSeconds), engine: micros(outside.engineCpuSeconds ?? null) } : {})
    }
  }
}

/**
 * The run's waits for a core (bench/lib/core-waits.js): seconds per application,
 * the share of the measured time the entry thread stood in line, and µs per
 * downstream call for the entry and the services (the runtime's threads only);
 * with the times put on a core, those per call too (how often a call wakes a thread).
 * @param {Record<string, number>} waits
 * @param {import('../lib/load.js').LoadResult} load
 * @param {number} fanout
 * @param {Record<string, number> | null} [slices]
 */
export function coreWaitPerCall (waits, load, fanout, slices = null) {
  const calls = load.status['2xx'] * fanout
  const entryAndServices = (/** @type {Record<string, number>} */ byApp) => ({
    entry: byApp[ENTRY.name] ?? 0,
    services: Object.entries(byApp).reduce((sum, [app, n]) => (app === ENTRY.name ? sum : sum + n), 0)
  })
  const { entry, services } = entryAndServices(waits)
  const onCore = slices ? entryAndServices(slices) : null
  return {
    seconds: waits,
    entryPercent: load.durationS > 0 ? (entry / load.durationS) * 100 : null,
    microsPerCall: { entry: perCall(entry, calls), services: perCall(services, calls) },
    ...(onCore ? { slicesPerCall: { entry: calls > 0 ? onCore.entry / calls : null, services: calls > 0 ? onCore.services / calls : null } } : {})
  }
}

/** Seconds as µs per call; null without calls or seconds. @param {number | null} seconds @param {number} calls */
function perCall (seconds, calls) {
  return calls > 0 && seconds !== null ? (seconds * 1e6) / calls : null
}
