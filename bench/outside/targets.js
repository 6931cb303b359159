// @ts-check
// The starts behind lib/topology.js's 'service-processes', 'remote-host' and
// 'containers' requirements (and 'mesh-port-runtime', bench/outside/mesh-port-runtime.js) (the transports whose services run outside the
// runtime), called by bench/lib/requirements.js before the runtime: they start
// the targets, hand the runtime their addresses as environment, measure their
// CPU from /proc, and stop them (also on Ctrl-C and failure). What this machine
// cannot make is skipped with the reason, never half-way. And the checks of
// their flags (exit 2 before anything starts).
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { DOWNSTREAM_SERVICES } from '../../lib/contract.js'
import { addressEnvOf, parseAddress } from '../../lib/ports.js'
import { PLACEMENTS, SERVICES } from '../../lib/topology.js'
import { UsageError } from '../lib/cli.js'
import { namespaceSupport } from './netns.js'
import { freePorts } from '../lib/ports.js'
import { startRemoteHost } from './remote-host.js'
import { startServiceProcesses, waitForHello } from './service-processes.js'
import { startServiceContainers } from './containers.js'
import { ensureEngine } from './docker.js'
import { startMeshPortRuntimeRequirement } from './mesh-port-runtime.js'
import { isLoopbackHost } from '../lib/loopback.js'

/**
 * Whether the harness can make a remote host on this machine (for the rtt sweep).
 */
export function remoteHostPossible () {
  return namespaceSupport().ok
}

/**
 * @typedef {object} OutsideOptions
 * @property {number} rttMs                 emulated round trip of the remote host
 * @property {string} [serviceHost]         run tcp-remote against this host instead of a namespace
 * @property {NodeJS.ProcessEnv} [env]      checked for non-loopback targets
 */

/**
 * Refuses bad flags before anything starts (exit 2): a service host that does not
 * resolve, and non-loopback targets in the environment without --service-host.
 * @param {OutsideOptions} options
 * @returns {Promise<string | undefined>} the service host's address
 */
export async function checkOutsideFlags ({ rttMs, serviceHost, env = process.env }) {
  if (!Number.isFinite(rttMs) || rttMs < 0) throw new UsageError(`--rtt-ms must be a number >= 0, got ${rttMs}`)
  let address
  if (serviceHost !== undefined) {
    if (!/^[A-Za-z0-9.:-]+$/.test(serviceHost)) throw new UsageError(`--service-host must be a host name or address, got ${JSON.stringify(serviceHost)}`)
    try {
      address = isIP(serviceHost) ? serviceHost : (await lookup(serviceHost)).address
    } catch (err) {
      throw new UsageError(`--service-host ${serviceHost}: unknown host (${/** @type {NodeJS.ErrnoException} */ (err).code ?? /** @type {Error} */ (err).message})`)
    }
  }
  for (const service of DOWNSTREAM_SERVICES) {
    for (const placement of PLACEMENTS) {
      const name = addressEnvOf(service, placement)
      if (!env[name]) continue
      const { host } = parseAddress(/** @type {string} */ (env[name]), name)
      if (!isLoopbackHost(host) && host !== serviceHost && host !== address) {
        throw new UsageError(`${name}=${env[name]} is not on this machine: non-loopback service targets need --service-host ${host}`)
      }
    }
  }
  return address
}

/**
 * What a starter hands back: the environment the runtime needs to reach what it
 * started, and how to stop it. It may also report transports it could not provide
 * here (`skipped`, with the reason: the bench skips them and says so), what it
 * started (`about`, for the report), its processes' CPU so far (`cpuSeconds`) and a
 * way to change its network round trip.
 * Start processes with bench/lib/processes.js (spawnTracked, onCleanup) so Ctrl-C stops them too.
 * @typedef {object} StartedRequirement
 * @property {Record<string, string>} [env]
 * @property {() => Promise<void>} stop
 * @property {{ transport: string, reason: string }[]} [skipped]
 * @property {Record<string, any>} [about]
 * @property {(transport: string) => OutsideCpu | null} [cpuSeconds]
 * @property {(rttMs: number) => Promise<void>} [setRtt]
 * @property {(transport: string) => { url: string, metricsUrl: string } | null} [runtimeFor]  the runtime
 *   `transport` is measured in when it is not the plain one (its entry and metrics URLs)
 * @property {(transport: string) => ServiceFaults | null} [faultsOf]  how to crash and restart one
 *   service process behind `transport` (the reliability check's process crash)
 * @typedef {{ crash: (service: string) => Promise<void>, restart: (service: string) => Promise<void> }} ServiceFaults
 * @typedef {(env: NodeJS.ProcessEnv, options: { transports: string[], [flag: string]: any }) => Promise<StartedRequirement>} Starter
 * @typedef {{ services: number | null, relay: number | null, engine?: number | null }} OutsideCpu
 *   CPU seconds so far: the services', and apart the delay relay's (a network stand-in)
 *   and the container engine's (docker-proxy, containerd-shim)
 */

/**
 * @param {Record<string, number | null>} values  null as soon as one process is gone
 */
function sum (values) {
  let total = 0
  for (const value of Object.values(values)) {
    if (value === null) return null
    total += value
  }
  return total
}

/**
 * Starts lib/topology.js REQUIREMENTS['service-processes']: the four services as
 * their own processes on free loopback ports.
 * @param {NodeJS.ProcessEnv} env
 * @param {{ transports: string[], nodeFlags?: readonly string[] }} options
 * @returns {Promise<StartedRequirement>}
 */
export async function startServiceProcessesRequirement (env, { transports, nodeFlags }) {
  const free = await freePorts(DOWNSTREAM_SERVICES.length)
  const ports = Object.fromEntries(DOWNSTREAM_SERVICES.map((service, i) => [service, free[i]]))
  const started = await startServiceProcesses({ ports, nodeFlags })
  return {
    env: Object.fromEntries(DOWNSTREAM_SERVICES.map((service) => [addressEnvOf(service, 'process'), `127.0.0.1:${ports[service]}`])),
    about: Object.fromEntries(transports.map((t) => [t, { placement: 'separate processes on loopback', pids: started.pids }])),
    cpuSeconds: (transport) => transports.includes(transport) ? { services: sum(started.cpuSeconds()), relay: null } : null,
    faultsOf: (transport) => transports.includes(transport) ? { crash: started.crash, restart: started.restart } : null,
    stop: started.stop
  }
}

/**
 * Starts lib/topology.js REQUIREMENTS['remote-host']: the four services on another
 * host, either --service-host (checked to answer) or a network namespace with an
 * emulated RTT; where namespaces cannot be made, its transports are skipped with
 * the reason.
 * @param {NodeJS.ProcessEnv} env
 * @param {{ transports: string[], rttMs?: number, serviceHost?: string, nodeFlags?: readonly string[] }} options
 * @returns {Promise<StartedRequirement>}
 */
export async function startRemoteHostRequirement (env, { transports, rttMs = 0.25, serviceHost, nodeFlags }) {
  const ports = Object.fromEntries(SERVICES.map((s) => [s.name, s.defaultPort]))
  if (serviceHost !== undefined) {
    /** @type {Record<string, string>} */
    const remoteEnv = {}
    for (const service of DOWNSTREAM_SERVICES) {
      await waitForHello(service, { host: serviceHost, port: ports[service] }, { timeoutMs: 10_000, isDead: () => false, output: () => '(on another host)' })
      remoteEnv[addressEnvOf(service, 'remote')] = `${serviceHost.includes(':') ? `[${serviceHost}]` : serviceHost}:${ports[service]}`
    }
    return {
      env: remoteEnv,
      about: Object.fromEntries(transports.map((t) => [t, { placement: `another host: ${serviceHost}`, emulation: 'none (a real network)', rttMs: null }])),
      stop: async () => {}
    }
  }
  const support = namespaceSupport()
  if (!support.ok) {
    return {
      skipped: transports.map((transport) => ({ transport, reason: `${transport} skipped: it needs a network namespace, and ${support.reason}` })),
      stop: async () => {}
    }
  }
  const remote = await startRemoteHost({ rttMs, ports, nodeFlags })
  return {
    env: Object.fromEntries(DOWNSTREAM_SERVICES.map((service) => [addressEnvOf(service, 'remote'), `${remote.addresses[service].host}:${remote.addresses[service].port}`])),
    about: Object.fromEntries(transports.map((t) => [t, {
      placement: `network namespace ${remote.namespace} behind a veth pair (${remote.hostAddress} ↔ ${remote.remoteAddress})`,
      emulation: remote.emulation,
      rttMs,
      namespace: remote.namespace
    }])),
    cpuSeconds: (transport) => {
      if (!transports.includes(transport)) return null
      const { services, relay } = remote.cpuSeconds()
      return { services: sum(services), relay }
    },
    setRtt: async (next) => {
      if (remote.rttMs() !== next) await remote.setRtt(next)
    },
    faultsOf: (transport) => transports.includes(transport) ? { crash: remote.crash, restart: remote.restart } : null,
    stop: remote.stop
  }
}

/**
 * Starts lib/topology.js REQUIREMENTS['containers']: the four services each in
 * its own Docker container, published on 127.0.0.1; where no engine can run
 * (no docker, not root, dockerd fails), its transports are skipped with the reason.
 * @param {NodeJS.ProcessEnv} env
 * @param {{ transports: string[], removeImages?: boolean, nodeFlags?: readonly string[] }} options  removeImages: `docker rmi` the lab's images after the run
 * @returns {Promise<StartedRequirement>}
 */
export async function startContainersRequirement (env, { transports, removeImages = false, nodeFlags }) {
  const skip = (/** @type {string} */ reason) => ({
    skipped: transports.map((transport) => ({ transport, reason: `${transport} skipped: it needs a Docker engine, and ${reason}` })),
    stop: async () => {}
  })
  let engine
  try {
    engine = await ensureEngine()
  } catch (err) {
    // No engine here is this machine's limit, not the bench's failure: the rest runs.
    // (An image that fails to build, or a container that fails to start, is a failure.)
    return skip(/** @type {Error} */ (err).message.split('\n')[0])
  }
  const free = await freePorts(DOWNSTREAM_SERVICES.length)
  const ports = Object.fromEntries(DOWNSTREAM_SERVICES.map((service, i) => [service, free[i]]))
  const started = await startServiceContainers({ ports, engine, removeImages, nodeFlags })
  return {
    env: Object.fromEntries(DOWNSTREAM_SERVICES.map((service) => [addressEnvOf(service, 'container'), `127.0.0.1:${ports[service]}`])),
    about: Object.fromEntries(transports.map((t) => [t, {
      placement: `a Docker container per service (engine ${started.engineVersion}${started.engineStartedHere ? ', started by the bench' : ''}), ports published on 127.0.0.1`,
      engine: started.engineVersion,
      path: started.path(),
      runId: started.runId,
      network: started.network,
      pids: started.pids
    }])),
    cpuSeconds: (transport) => {
      if (!transports.includes(transport)) return null
      const { services, engine } = started.cpuSeconds()
      return { services: sum(services), relay: null, engine }
    },
    faultsOf: (transport) => transports.includes(transport) ? { crash: started.crash, restart: started.restart } : null,
    stop: started.stop
  }
}

/**
 * How the harness starts each startable requirement of lib/topology.js, by tag.
 * @type {Readonly<Record<string, Starter>>}
 */
export const STARTERS = Object.freeze({
  'service-processes': startServiceProcessesRequirement,
  'remote-host': startRemoteHostRequirement,
  containers: startContainersRequirement,
  'mesh-port-runtime': startMeshPortRuntimeRequirement
})
