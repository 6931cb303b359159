// @ts-check
// The suite's runtimes, one per path, each from its own config file: watt.json
// (Watt's mesh), watt.tcp.json (chat and feed on loopback ports of their own,
// edge calling them there) and watt.mesh-port.json (watt.json plus the drop-in's
// undici block). All are up for the whole run, so rounds interleave the paths.
import { startAllOrNone } from '../lib/runtime-set.js'
import { relative } from 'node:path'
import { PROJECT_ROOT } from '../lib/paths.js'
import { freePorts } from '../lib/ports.js'
import { startRuntime } from '../lib/runtime.js'

/** The config file of each path, in this folder. */
export const CONFIG_OF_PATH = { ipc: 'watt.json', tcp: 'watt.tcp.json', 'mesh-port': 'watt.mesh-port.json' }
/** The loopback ports watt.tcp.json gives chat and feed. */
export const TCP_PORT_ENVS = ['REALTIME_CHAT_PORT', 'REALTIME_FEED_PORT']
/** Proves a runtime up: edge answers, and reaches chat and feed over its path. */
export const READY_PATHS = ['/ready']

/**
 * @typedef {import('../lib/runtime.js').Runtime & { path: string, configFile: string }} PathRuntime
 */

/**
 * The project-relative config file of a path.
 * @param {string} path
 */
export function configFileOf (path) {
  return relative(PROJECT_ROOT, new URL(`./${CONFIG_OF_PATH[/** @type {keyof typeof CONFIG_OF_PATH} */ (path)]}`, import.meta.url).pathname)
}

/**
 * Starts one runtime per path, side by side (a failure stops the others).
 * @param {string[]} paths
 * @returns {Promise<Map<string, PathRuntime>>}
 */
export async function startPathRuntimes (paths) {
  const perRuntime = 2 + TCP_PORT_ENVS.length
  // one call for every port: ports asked for separately could coincide before anything binds them
  const ports = await freePorts(perRuntime * paths.length)
  return startAllOrNone(paths, async (path, i) => {
    const [entry, metrics, ...tcp] = ports.slice(i * perRuntime, (i + 1) * perRuntime)
    const configFile = configFileOf(path)
    const runtime = await startRuntime({
      configFile,
      readyPaths: READY_PATHS,
      reuse: false,
      readyTimeoutMs: 150_000,
      env: {
        PORT: String(entry),
        PLT_METRICS_PORT: String(metrics),
        PLT_LOG_LEVEL: process.env.PLT_LOG_LEVEL ?? 'warn',
        ...Object.fromEntries(TCP_PORT_ENVS.map((name, j) => [name, String(tcp[j])]))
      }
    })
    return /** @type {PathRuntime} */ ({ ...runtime, path, configFile })
  })
}
