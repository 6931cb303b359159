// Starts a private runtime on free ports (so tests run beside a user's
// `npm start`) and stops it when the test ends.
import { freePorts } from '../../bench/lib/ports.js'
import { startRuntime } from '../../bench/lib/runtime.js'

export async function privateRuntime (t, env = {}) {
  const [port, metrics, fastify2, node3, type1, type4] = await freePorts(6)
  const ports = { PORT: port, PLT_METRICS_PORT: metrics, FASTIFY2_PORT: fastify2, NODE3_PORT: node3, TYPE1_PORT: type1, TYPE4_PORT: type4 }
  const runtime = await startRuntime({ env: { ...stringValues(ports), ...env }, reuse: false })
  t.teardown(() => runtime.stop())
  return { ...runtime, ports }
}

function stringValues (object) {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, String(value)]))
}
