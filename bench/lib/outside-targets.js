// @ts-check
// What the transports that leave the runtime need started before the runtime
// (lib/topology.js `requires`): the service processes, the remote host. Starts
// them, hands the runtime their addresses as environment, measures their CPU from
// /proc, and stops them (also on Ctrl-C and failure). A requirement this machine
// cannot meet skips its transports with the reason, never half-way.
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { DOWNSTREAM_SERVICES } from '../../lib/contract.js'
import { addressEnvOf, parseAddress } from '../../lib/ports.js'
import { SERVICES, TRANSPORTS } from '../../lib/topology.js'
import { UsageError } from './cli.js'
import { namespaceSupport } from './netns.js'
import { freePorts } from './ports.js'
import { startRemoteHost } from './remote-host.js'
import { startServiceProcesses, waitForHello } from './service-processes.js'

/** The `requires` tags this module starts (lib/topology.js REQUIREMENTS). */
export const HARNESS_STARTS = ['service-processes', 'remote-host']

/**
 * Whether the harness can provide `tag` on this machine (the default transports).
 * @param {string} tag
 */
export function harnessCanStart (tag) {
  if (tag === 'service-processes') return process.platform === 'linux'
  if (tag === 'remote-host') return namespaceSupport().ok
  return false
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
    for (const placement of /** @type {const} */ (['process', 'remote'])) {
      const name = addressEnvOf(service, placement)
      if (!env[name]) continue
      const { host } = parseAddress(/** @type {string} */ (env[name]), name)
      if (!isLoopback(host) && host !== serviceHost && host !== address) {
        throw new UsageError(`${name}=${env[name]} is not on this machine: non-loopback service targets need --service-host ${host}`)
      }
    }
  }
  return address
}

/** @param {string} host */
function isLoopback (host) {
  return host === 'localhost' || host === '::1' || /^127\./.test(host)
}

/**
 * @typedef {object} OutsideTargets
 * @property {string[]} transports                              the requested transports that can run
 * @property {{ transport: string, reason: string }[]} skipped  and those that cannot, with why
 * @property {Record<string, string>} env                       for the runtime: where each target listens
 * @property {Record<string, any>} about                        per transport: what ran (emulation, RTT, namespace, pids)
 * @property {(transport: string) => { services: number | null, relay: number | null } | null} cpuSeconds  outside-runtime CPU so far
 * @property {(rttMs: number) => Promise<void>} setRtt
 * @property {() => Promise<void>} stop
 */

/**
 * Starts what the requested transports require.
 * @param {string[]} transports
 * @param {OutsideOptions} options
 * @returns {Promise<OutsideTargets>}
 */
export async function startOutsideTargets (transports, { rttMs, serviceHost }) {
  const needs = (/** @type {string} */ tag) => transports.filter((name) => TRANSPORTS.find((t) => t.name === name)?.requires === tag)
  /** @type {{ transport: string, reason: string }[]} */
  const skipped = []
  /** @type {Record<string, string>} */
  const env = {}
  /** @type {Record<string, any>} */
  const about = {}
  /** @type {Record<string, () => { services: number | null, relay: number | null }>} */
  const cpu = {}
  /** @type {(() => Promise<void>)[]} */
  const stops = []
  /** @type {(rttMs: number) => Promise<void>} */
  let setRtt = async () => {}
  const stop = async () => { for (const fn of stops.reverse()) await fn() }
  /** @param {Record<string, number | null>} values  null as soon as one process is gone */
  const sum = (values) => {
    let total = 0
    for (const value of Object.values(values)) {
      if (value === null) return null
      total += value
    }
    return total
  }

  try {
    for (const transport of needs('service-processes')) {
      const free = await freePorts(DOWNSTREAM_SERVICES.length)
      const ports = Object.fromEntries(DOWNSTREAM_SERVICES.map((service, i) => [service, free[i]]))
      const started = await startServiceProcesses({ ports })
      stops.push(started.stop)
      for (const service of DOWNSTREAM_SERVICES) env[addressEnvOf(service, 'process')] = `127.0.0.1:${ports[service]}`
      about[transport] = { placement: 'separate processes on loopback', pids: started.pids }
      cpu[transport] = () => ({ services: sum(started.cpuSeconds()), relay: null })
    }
    for (const transport of needs('remote-host')) {
      if (serviceHost !== undefined) {
        const ports = Object.fromEntries(SERVICES.map((s) => [s.name, s.defaultPort]))
        for (const service of DOWNSTREAM_SERVICES) {
          await waitForHello(service, { host: serviceHost, port: ports[service] }, { timeoutMs: 10_000, isDead: () => false, output: () => '(on another host)' })
          env[addressEnvOf(service, 'remote')] = `${serviceHost.includes(':') ? `[${serviceHost}]` : serviceHost}:${ports[service]}`
        }
        about[transport] = { placement: `another host: ${serviceHost}`, emulation: 'none (a real network)', rttMs: null }
        continue
      }
      const support = namespaceSupport()
      if (!support.ok) {
        skipped.push({ transport, reason: `${transport} skipped: it needs a network namespace, and ${support.reason}` })
        continue
      }
      const ports = Object.fromEntries(SERVICES.map((s) => [s.name, s.defaultPort]))
      const remote = await startRemoteHost({ rttMs, ports })
      stops.push(remote.stop)
      for (const service of DOWNSTREAM_SERVICES) env[addressEnvOf(service, 'remote')] = `${remote.addresses[service].host}:${remote.addresses[service].port}`
      about[transport] = {
        placement: `network namespace ${remote.namespace} behind a veth pair (${remote.hostAddress} ↔ ${remote.remoteAddress})`,
        emulation: remote.emulation,
        rttMs,
        namespace: remote.namespace
      }
      setRtt = async (next) => {
        if (remote.rttMs() === next) return
        await remote.setRtt(next)
      }
      cpu[transport] = () => {
        const { services, relay } = remote.cpuSeconds()
        return { services: sum(services), relay }
      }
    }
  } catch (err) {
    await stop()
    throw err
  }
  return {
    transports: transports.filter((name) => !skipped.some((s) => s.transport === name)),
    skipped,
    env,
    about,
    cpuSeconds: (transport) => cpu[transport]?.() ?? null,
    setRtt,
    stop
  }
}
