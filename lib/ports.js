// @ts-check
// Every listener's port, overridable by environment so a test runtime can run
// beside a user's `npm start`. The defaults and variable names live in
// lib/topology.js; this module only reads them.
import { ENTRY, HOST, METRICS, SERVICES } from './topology.js'

export { HOST }

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
