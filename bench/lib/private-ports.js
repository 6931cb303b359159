// @ts-check
// Free loopback ports for every listener of a runtime started beside another one
// (tests, CI, profiling): one per entry of lib/topology.js's PORTS, keyed by the
// environment variable that sets it.
import { PORTS, SERVICES } from '../../lib/topology.js'
import { freePorts } from './ports.js'

/** @typedef {Record<string, number>} PrivatePorts  e.g. { PORT, PLT_METRICS_PORT, NODE3_PORT, … } */

/** @returns {Promise<PrivatePorts>} */
export async function privatePorts () {
  const ports = await freePorts(PORTS.length)
  return Object.fromEntries(PORTS.map(({ env }, i) => [env, ports[i]]))
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
 * The loopback port of a downstream service's own listener.
 * @param {PrivatePorts} ports
 * @param {string} service
 */
export function servicePort (ports, service) {
  const record = SERVICES.find((s) => s.name === service)
  if (!record) throw new Error(`unknown service ${service}`)
  return /** @type {number} */ (ports[record.portEnv])
}
