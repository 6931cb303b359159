// @ts-check
// Every listener's port, in one place, overridable by environment so a test
// runtime can run beside a user's `npm start`.

/** Default loopback ports of the downstream services' own TCP listeners. */
const DEFAULT_TCP_PORTS = { fastify2: 3101, node3: 3102, type1: 3103, type4: 3104 }

export const HOST = '127.0.0.1'

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
