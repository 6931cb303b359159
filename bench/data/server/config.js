// @ts-check
// The data runtime's settings, read once from the environment with clear errors.
// bench/data/run.js and start.js set them; DATA_DEFAULTS in bench/data/runtime.js has the defaults.
import { DEFAULT_MAX_RECORD_BYTES } from './record-scanner.js'

/**
 * @typedef {object} DataConfig
 * @property {{ small?: string, large?: string }} files   absolute dataset paths; at least one
 * @property {number} sourcePort      the data-source's own loopback TCP port
 * @property {number} tcpConnections  keep-alive pool size towards the data-source
 * @property {number} upstreamTimeoutMs  longest silence allowed from the data-source
 * @property {number} stallMs         the data-source ends a mesh download that made no progress this long
 * @property {number} maxRecordBytes  the largest record a streaming variant holds; larger answers 502
 */

/**
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {DataConfig}
 */
export function readDataConfig (env = process.env) {
  return {
    files: datasetFiles(env),
    sourcePort: integer(env, 'DATA_SOURCE_PORT', 3045, 1, 65535),
    tcpConnections: integer(env, 'DATA_TCP_CONNECTIONS', 64, 1, 4096),
    upstreamTimeoutMs: integer(env, 'DATA_UPSTREAM_TIMEOUT_MS', 60_000, 100, 3_600_000),
    stallMs: integer(env, 'DATA_SOURCE_STALL_MS', 10_000, 100, 3_600_000),
    maxRecordBytes: integer(env, 'DATA_MAX_RECORD_BYTES', DEFAULT_MAX_RECORD_BYTES, 16, 512 * 1024 * 1024)
  }
}

/**
 * @param {NodeJS.ProcessEnv} env
 */
function datasetFiles (env) {
  const files = { small: env.DATA_SMALL_FILE || undefined, large: env.DATA_LARGE_FILE || undefined }
  if (!files.small && !files.large) {
    throw new Error('neither DATA_SMALL_FILE nor DATA_LARGE_FILE is set: start the data runtime with `npm run start:data` or bench/data/run.js, which generate the datasets and set them')
  }
  return files
}

/**
 * @param {NodeJS.ProcessEnv} env
 * @param {string} name
 * @param {number} fallback
 * @param {number} min
 * @param {number} max
 */
function integer (env, name, fallback, min, max) {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`)
  return value
}
