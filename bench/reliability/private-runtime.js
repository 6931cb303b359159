// @ts-check
// A runtime of our own on free loopback ports, so the checks run beside a
// user's `npm start` and other engineers' runtimes without touching them.
import { freePorts } from '../lib/ports.js'
import { startRuntime } from '../lib/runtime.js'

/**
 * @typedef {object} PrivatePorts
 * @property {number} PORT
 * @property {number} PLT_METRICS_PORT
 * @property {number} FASTIFY2_PORT
 * @property {number} NODE3_PORT
 * @property {number} TYPE1_PORT
 * @property {number} TYPE4_PORT
 */

/**
 * Free ports for the entry, the metrics server and the four services' own listeners.
 * @returns {Promise<PrivatePorts>}
 */
export async function privatePorts () {
  const [PORT, PLT_METRICS_PORT, FASTIFY2_PORT, NODE3_PORT, TYPE1_PORT, TYPE4_PORT] = await freePorts(6)
  return { PORT, PLT_METRICS_PORT, FASTIFY2_PORT, NODE3_PORT, TYPE1_PORT, TYPE4_PORT }
}

/**
 * The environment that points a runtime (or a bench that starts one) at these ports.
 * @param {PrivatePorts} ports
 * @param {Record<string, string>} [extra]
 * @returns {Record<string, string>}
 */
export function runtimeEnv (ports, extra = {}) {
  return { ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])), ...extra }
}

/**
 * @param {{ callTimeoutMs?: number }} [options]
 */
export async function startPrivateRuntime ({ callTimeoutMs } = {}) {
  const ports = await privatePorts()
  const env = runtimeEnv(ports, callTimeoutMs ? { CALL_TIMEOUT_MS: String(callTimeoutMs) } : {})
  const runtime = await startRuntime({ env, reuse: false })
  const pid = runtime.pid
  if (pid === null) throw new Error('expected a runtime of our own')
  return { ...runtime, pid, ports, callTimeoutMs: callTimeoutMs ?? 3000 }
}

/** @typedef {Awaited<ReturnType<typeof startPrivateRuntime>>} PrivateRuntime */

/**
 * The loopback port of a downstream service's own listener.
 * @param {PrivatePorts} ports
 * @param {string} service
 */
export function servicePort (ports, service) {
  return /** @type {number} */ (/** @type {Record<string, number>} */ (ports)[`${service.toUpperCase()}_PORT`])
}
