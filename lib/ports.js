// @ts-check
// Every listener's port, overridable by environment so a test runtime can run
// beside a user's `npm start`. The defaults and variable names live in
// lib/topology.js; this module only reads them.
import { ENTRY, HOST, METRICS, OUTSIDE, SERVICES } from './topology.js'

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
 * Where the entry finds a service for the transports that leave the runtime
 * (lib/topology.js OUTSIDE): `process` (the service as its own process),
 * `remote` (on another host) and `container` (in a Docker container, through its
 * published port). `<SERVICE>_PROCESS_ADDR` / `_REMOTE_ADDR` / `_CONTAINER_ADDR`
 * (host:port) say where; the harness sets them once it started the targets.
 * @param {string} service
 * @param {import('./topology.js').Placement} placement
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {{ host: string, port: number }}
 */
export function serviceAddressOf (service, placement, env = process.env) {
  const record = SERVICES.find((s) => s.name === service)
  if (record === undefined) throw new Error(`unknown service ${service}`)
  const name = addressEnvOf(service, placement)
  const raw = env[name]
  if (raw) return parseAddress(raw, name)
  return { host: OUTSIDE[placement].defaultHost, port: record.defaultPort + OUTSIDE[placement].portOffset }
}

/**
 * The variable that tells the entry where a service outside the runtime listens.
 * @param {string} service
 * @param {import('./topology.js').Placement} placement
 */
export function addressEnvOf (service, placement) {
  return `${service.toUpperCase()}_${placement.toUpperCase()}_ADDR`
}

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
