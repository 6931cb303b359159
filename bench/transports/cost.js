// @ts-check
// Resource cost per downstream call, from the before/after metric scrapes.

/**
 * CPU microseconds per downstream call: the whole runtime, the entry alone, and
 * the downstream services together.
 * @param {ReturnType<typeof import('../lib/metrics.js').resourceDelta>} delta
 * @param {import('../lib/load.js').LoadResult} load
 * @param {number} fanout
 */
export function costPerCall (delta, load, fanout) {
  const calls = load.status['2xx'] * fanout
  const micros = (/** @type {number} */ seconds) => (calls > 0 ? (seconds * 1e6) / calls : null)
  const entry = delta.apps.tsfastify?.cpuSeconds ?? 0
  return {
    ...delta,
    downstreamCalls: calls,
    cpuMicrosPerCall: {
      total: micros(delta.totalCpuSeconds),
      entry: micros(entry),
      downstream: micros(delta.totalCpuSeconds - entry)
    }
  }
}
