// @ts-check
// The data runtime (bench/data/watt.json) on free loopback ports, through the
// shared lifecycle: ready only once the datasets are readable and the
// data-source answers over the mesh and over TCP. Its `mesh-port` twin
// (watt.mesh-port.json, the same config plus the @watt-lab/channel/mesh-port
// drop-in) serves the net-mesh-port source: the mesh source's code unchanged,
// its requests carried by the drop-in.
import { relative } from 'node:path'
import { freePorts } from '../lib/ports.js'
import { PROJECT_ROOT } from '../lib/paths.js'
import { startRuntime } from '../lib/runtime.js'

export const CONFIG_FILE = relative(PROJECT_ROOT, new URL('./watt.json', import.meta.url).pathname)
export const MESH_PORT_CONFIG_FILE = relative(PROJECT_ROOT, new URL('./watt.mesh-port.json', import.meta.url).pathname)

/** @typedef {'plain' | 'mesh-port'} RuntimeKind  which config a data runtime runs */
export const CONFIG_FILES = /** @type {Record<RuntimeKind, string>} */ ({ plain: CONFIG_FILE, 'mesh-port': MESH_PORT_CONFIG_FILE })
export const API_PREFIX = '/data-api'
export const READY_PATHS = [`${API_PREFIX}/ready`]
export const DEFAULT_PORT = 3044
export const DEFAULT_SOURCE_PORT = 3045

/**
 * The data runtime's settings besides ports and dataset paths (see
 * server/config.js). Environment variables of the same name win.
 */
export const DATA_DEFAULTS = {
  PLT_LOG_LEVEL: 'warn',
  DATA_TCP_CONNECTIONS: '64',
  DATA_UPSTREAM_TIMEOUT_MS: '60000',
  DATA_SOURCE_STALL_MS: '10000',
  // the largest record the streaming variants hold (8 MiB); tests shrink it to prove the cap
  DATA_MAX_RECORD_BYTES: String(8 * 1024 * 1024),
  // the data-api worker's heap: Watt's default limit; tests shrink it to prove streaming stays bounded
  DATA_API_MAX_HEAP: '4GB',
  // Young generations below Watt's 128 MB (measured on 100 MB, 2 connections): the data-api
  // allocates fast enough to grow its young generation to the limit (64 MiB committed at
  // 128 MB), resident for nothing; 32 MB cut scan's peak RSS by ~30 MiB (stream's by ~75)
  // at the same MB/s for every mode. The data-source allocates almost no objects, so its
  // scavenges were rare and the mesh's per-chunk Buffer copies piled up (~40 MiB) until
  // V8's external-memory trigger: 2 MB makes them die within a few MB.
  DATA_API_MAX_YOUNG: '32MB',
  DATA_SOURCE_MAX_YOUNG: '2MB',
  // Watt replaces a worker whose event-loop utilisation (over the last second) is above
  // maxELU (0.99 by default) at 10 checks in a row, 30 s apart: about 5.5 min after it
  // started. The data-api is CPU-bound for as long as an answer takes (minutes at 2 GB,
  // ELU 100% while answering other requests fine), so that check cut 2 GB answers
  // mid-stream. ELU cannot tell busy from stuck here: 1 turns that criterion off (ELU
  // never exceeds 1) and keeps the heap criterion. Tests shrink the timings to prove it.
  DATA_API_MAX_ELU: '1',
  DATA_API_HEALTH_INTERVAL_MS: '30000',
  DATA_API_HEALTH_GRACE_MS: '30000',
  DATA_API_MAX_UNHEALTHY_CHECKS: '10'
}

/**
 * @typedef {import('../lib/runtime.js').Runtime & { apiUrl: string, sourcePort: number, kind: RuntimeKind }} DataRuntime
 */

/**
 * @param {{ small?: string, large?: string }} files   dataset paths
 * @param {number} port
 * @param {number} sourcePort
 * @param {Record<string, string>} [env]
 */
export function dataRuntimeEnv (files, port, sourcePort, env = {}) {
  /** @type {Record<string, string>} */
  const fromEnvironment = {}
  for (const key of Object.keys(DATA_DEFAULTS)) if (process.env[key]) fromEnvironment[key] = /** @type {string} */ (process.env[key])
  return {
    ...DATA_DEFAULTS,
    ...fromEnvironment,
    PORT: String(port),
    DATA_SOURCE_PORT: String(sourcePort),
    DATA_SMALL_FILE: files.small ?? '',
    DATA_LARGE_FILE: files.large ?? '',
    ...env
  }
}

/**
 * Starts a private data runtime (never reuses one: its datasets must be ours).
 * @param {object} options
 * @param {{ small?: string, large?: string }} options.files
 * @param {number} [options.port]          entry port (default: a free one)
 * @param {number} [options.sourcePort]    data-source's own TCP port (default: a free one)
 * @param {Record<string, string>} [options.env]  e.g. DATA_API_MAX_HEAP, DATA_SOURCE_STALL_MS
 * @param {RuntimeKind} [options.kind]     'mesh-port': the config with the drop-in
 * @returns {Promise<DataRuntime>}
 */
export async function startDataRuntime ({ files, port, sourcePort, env = {}, kind = 'plain' }) {
  const [freeEntry, freeSource] = await freePorts(2)
  const entry = port ?? freeEntry
  const source = sourcePort ?? freeSource
  const runtime = await startRuntime({
    configFile: CONFIG_FILES[kind],
    readyPaths: READY_PATHS,
    reuse: false,
    env: dataRuntimeEnv(files, entry, source, env)
  })
  return { ...runtime, apiUrl: runtime.url + API_PREFIX, sourcePort: source, kind }
}
