// @ts-check
// Starts lib/topology.js REQUIREMENTS['mesh-port-runtime']: a second Watt runtime
// from watt.mesh-port.json (watt.json plus the mesh-port drop-in) on free loopback
// ports, with WATT_LAB_MESH_PORT=1 so that its entry serves /tsfastify/mesh-port.
// The drop-in sends every *.plt.local request of its runtime over http-port, so
// mesh-port is measured here and the other transports in the plain runtime
// (where the same route answers 503). Stopped after the run, on failure and on
// Ctrl-C (startRuntime's child is tracked).
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { DOWNSTREAM_SERVICES } from '../../lib/contract.js'
import { MESH_PORT_RUNTIME, routeOf } from '../../lib/topology.js'
import { scrapeMetrics } from '../lib/metrics.js'
import { privatePorts, runtimeEnv } from '../lib/private-ports.js'
import { startRuntime } from '../lib/runtime.js'
import { readRuntimeSettings } from '../lib/runtime-settings.js'

/**
 * @param {NodeJS.ProcessEnv} env
 * @param {{ transports: string[], configFileFor?: (base: string) => string, nodeFlags?: readonly string[] }} options
 *   configFileFor: the config actually started for a base config (e.g. with --workers applied)
 *   nodeFlags: the runtime's Node/V8 flags (bench/lib/node-flags.js)
 * @returns {Promise<import('./targets.js').StartedRequirement>}
 */
export async function startMeshPortRuntimeRequirement (env, options) {
  return startDropInRuntime(MESH_PORT_RUNTIME, 'mesh-port', env, options)
}

/**
 * @param {{ configFile: string, env: string }} own  the runtime's committed config and its variable
 * @param {string} readyTransport  whose route says the runtime is ready
 * @param {NodeJS.ProcessEnv} env
 * @param {{ transports: string[], configFileFor?: (base: string) => string, nodeFlags?: readonly string[] }} options
 * @returns {Promise<import('./targets.js').StartedRequirement>}
 */
async function startDropInRuntime (own, readyTransport, env, { transports, configFileFor = (base) => base, nodeFlags }) {
  const ports = await privatePorts()
  const configFile = configFileFor(own.configFile)
  const route = routeOf(readyTransport)
  const runtime = await startRuntime({
    env: { ...env, ...runtimeEnv(ports, { [own.env]: '1' }) },
    reuse: false,
    configFile,
    readyPaths: [route],
    readyTimeoutMs: 150_000,
    nodeFlags
  })
  try {
    await untilOverHttpPort(runtime.url + route, runtime.metricsUrl)
    const settings = await readRuntimeSettings(runtime)
    const about = {
      placement: `a second runtime from ${configFile} (the mesh-port drop-in) at ${runtime.url}, pid ${runtime.pid}`,
      config: configFile,
      // the committed config it was made from (config is a generated copy with --workers)
      baseConfig: own.configFile,
      url: runtime.url,
      metricsUrl: runtime.metricsUrl,
      runtime: settings
    }
    return {
      // nothing for the plain runtime: it must not get WATT_LAB_MESH_PORT
      env: {},
      about: Object.fromEntries(transports.map((t) => [t, about])),
      runtimeFor: (transport) => transports.includes(transport) ? runtime : null,
      stop: runtime.stop
    }
  } catch (err) {
    await runtime.stop()
    throw err
  }
}

/**
 * The drop-in opens its links on the first request to each service, which
 * itself takes the mesh: wait until the entry has sent each service a request
 * over http-port, so a measured run starts on the path it measures.
 * @param {string} url
 * @param {string} metricsUrl
 * @param {{ timeoutMs?: number }} [options]
 */
export async function untilOverHttpPort (url, metricsUrl, { timeoutMs = 30_000 } = {}) {
  const deadline = Date.now() + timeoutMs
  let missing = [...DOWNSTREAM_SERVICES]
  while (Date.now() < deadline) {
    const { body } = await request(url, { headersTimeout: 5000, bodyTimeout: 5000 })
    await body.dump()
    const { meshPort } = await scrapeMetrics(metricsUrl)
    missing = DOWNSTREAM_SERVICES.filter((service) => !Object.values(meshPort[service]?.httpPort ?? {}).some((n) => n > 0))
    if (missing.length === 0) return
    await sleep(100)
  }
  throw new Error(`the mesh-port runtime did not reach ${missing.join(', ')} over http-port within ${timeoutMs} ms (its requests stayed on the mesh: see its log at PLT_LOG_LEVEL=info)`)
}
