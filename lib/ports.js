// @ts-check
// Every listener's port, in one place, overridable by environment so a test
// runtime can run beside a user's `npm start`.

/** Default loopback ports of the downstream services' own TCP listeners. */
const DEFAULT_TCP_PORTS = { fastify2: 3101, node3: 3102, type1: 3103, type4: 3104 }

export const HOST = '127.0.0.1'

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
  const fallback = DEFAULT_TCP_PORTS[/** @type {keyof typeof DEFAULT_TCP_PORTS} */ (service)]
  if (fallback === undefined) throw new Error(`unknown service ${service}`)
  const raw = env[`${service.toUpperCase()}_PORT`]
  return raw ? portNumber(raw, `${service.toUpperCase()}_PORT`) : fallback
}

/** @param {NodeJS.ProcessEnv} [env] */
export function entryPort (env = process.env) {
  return env.PORT ? portNumber(env.PORT, 'PORT') : 3043
}

/** @param {NodeJS.ProcessEnv} [env] */
export function metricsPort (env = process.env) {
  return env.PLT_METRICS_PORT ? portNumber(env.PLT_METRICS_PORT, 'PLT_METRICS_PORT') : 9090
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
