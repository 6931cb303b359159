// @ts-check
// Every listener's port, overridable by environment so a test runtime can run
// beside a user's `npm start`. The defaults and variable names live in
// lib/topology.js; this module only reads them.
import { ENTRY, HOST, METRICS, SERVICES } from './topology.js'

export { HOST }

/**
 * Where a downstream service binds its own listener: 127.0.0.1 unless told
 * otherwise (`SERVICE_BIND_HOST`), e.g. inside a container, or on the remote
 * namespace's own address when netem (not a relay) emulates the network.
 * @param {NodeJS.ProcessEnv} [env]
 */
export function serviceBindHost (env = process.env) {
  return env.SERVICE_BIND_HOST || HOST
}

/**
 * Where the entry finds a service for the transports that leave the runtime:
 * `process` (the service as its own process on loopback, default port + 10) and
 * `remote` (the service on another host, by default the first address the
 * harness gives its network namespace). `<SERVICE>_PROCESS_ADDR` and
 * `<SERVICE>_REMOTE_ADDR` (host:port) override them; the harness sets them.
 * @param {string} service
 * @param {'process' | 'remote'} placement
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {{ host: string, port: number }}
 */
export function serviceAddressOf (service, placement, env = process.env) {
  const name = `${service.toUpperCase()}_${placement.toUpperCase()}_ADDR`
  const raw = env[name]
  if (raw) return parseAddress(raw, name)
  const port = DEFAULT_TCP_PORTS[/** @type {keyof typeof DEFAULT_TCP_PORTS} */ (service)]
  if (port === undefined) throw new Error(`unknown service ${service}`)
  return placement === 'process' ? { host: HOST, port: port + PROCESS_PORT_OFFSET } : { host: DEFAULT_REMOTE_HOST, port }
}

/** Service processes on loopback listen 10 above the in-runtime listeners (3111 … 3114). */
export const PROCESS_PORT_OFFSET = 10
/** The remote namespace's address in the harness's first /30 (bench/lib/netns.js). */
export const DEFAULT_REMOTE_HOST = '10.213.0.2'

/**
 * `host:port` (a hostname, an IPv4 address or a bracketed IPv6 address).
 * @param {string} raw
 * @param {string} name  what to call it in the error
 */
export function parseAddress (raw, name) {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$/.exec(raw)
  if (!match) throw new RangeError(`${name} must be host:port, got ${JSON.stringify(raw)}`)
  return { host: match[1].replace(/^\[|\]$/g, ''), port: portNumber(match[2], name) }
}

/**
 * @param {string} service
 * @param {NodeJS.ProcessEnv} [env]
 */
export function tcpPortOf (service, env = process.env) {
  const record = SERVICES.find((s) => s.name === service)
  if (record === undefined) throw new Error(`unknown service ${service}`)
  return portFrom(env, record.portEnv, record.defaultPort)
}

/** @param {NodeJS.ProcessEnv} [env] */
export function entryPort (env = process.env) {
  return portFrom(env, ENTRY.portEnv, ENTRY.defaultPort)
}

/** @param {NodeJS.ProcessEnv} [env] */
export function metricsPort (env = process.env) {
  return portFrom(env, METRICS.portEnv, METRICS.defaultPort)
}

/**
 * @param {NodeJS.ProcessEnv} env
 * @param {string} name
 * @param {number} fallback
 */
function portFrom (env, name, fallback) {
  const raw = env[name]
  return raw ? portNumber(raw, name) : fallback
}

/**
 * @param {string} raw
 * @param {string} name
 */
function portNumber (raw, name) {
  const port = Number(raw)
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(`${name} must be a TCP port, got ${raw}`)
  return port
}
