// @ts-check
// The runtimes of one app, one per path, each from its own config file:
// watt.json (ipc), watt.mesh-port.json (the drop-in's undici block) and
// watt.tcp.json (the apps' loopback ports as origins). Each gets free ports and
// its own copy of the seeded database. Only one app's runtimes are up at a time.
import { startAllOrNone } from '../lib/runtime-set.js'
import { relative } from 'node:path'
import { PROJECT_ROOT } from '../lib/paths.js'
import { freePorts } from '../lib/ports.js'
import { startRuntime } from '../lib/runtime.js'

/** The config file of each path, in an app's folder. */
export const CONFIG_OF_PATH = { ipc: 'watt.json', 'mesh-port': 'watt.mesh-port.json', tcp: 'watt.tcp.json' }
/** The loopback port of each app that the tcp config points at (env names in watt.tcp.json). */
export const TCP_PORT_ENVS = ['APPS_DB_PORT', 'APPS_CATALOG_API_PORT', 'APPS_PRICING_API_PORT', 'APPS_ORDERS_API_PORT', 'APPS_GATEWAY_PORT']

/**
 * @typedef {import('../lib/runtime.js').Runtime & { app: string, path: string, dbFile: string }} AppRuntime
 */

/**
 * The project-relative config of an app's path.
 * @param {string} app
 * @param {string} path
 */
export function configFileOf (app, path) {
  return relative(PROJECT_ROOT, new URL(`./${app}/${CONFIG_OF_PATH[/** @type {keyof typeof CONFIG_OF_PATH} */ (path)]}`, import.meta.url).pathname)
}

/**
 * Starts one runtime per path for an app, all at once (a failure stops the others).
 * @param {object} options
 * @param {string} options.app
 * @param {string[]} options.paths
 * @param {string[]} options.readyPaths   routes that prove the app up
 * @param {(name: string) => string} options.dbFile  a fresh copy of the seeded database
 * @returns {Promise<Map<string, AppRuntime>>}
 */
export async function startAppRuntimes ({ app, paths, readyPaths, dbFile }) {
  const perRuntime = 2 + TCP_PORT_ENVS.length
  // one call for every port: ports asked for separately could coincide before anything binds them
  const ports = await freePorts(perRuntime * paths.length)
  return startAllOrNone(paths, async (path, i) => {
    const [entry, metrics, ...tcp] = ports.slice(i * perRuntime, (i + 1) * perRuntime)
    const file = dbFile(`${app}-${path}`)
    const runtime = await startDespiteAborts(() => startRuntime({
      configFile: configFileOf(app, path),
      readyPaths,
      reuse: false,
      readyTimeoutMs: 150_000,
      env: {
        PORT: String(entry),
        PLT_METRICS_PORT: String(metrics),
        PLT_LOG_LEVEL: process.env.PLT_LOG_LEVEL ?? 'warn',
        APPS_DB_FILE: file,
        ...Object.fromEntries(TCP_PORT_ENVS.map((name, j) => [name, String(tcp[j])]))
      }
    }), `${app} on ${path}`)
    return /** @type {AppRuntime} */ ({ ...runtime, app, path, dbFile: file })
  })
}

/**
 * A start that better-sqlite3 12 aborts (nodejs/node#65446) is tried again, saying so: the
 * project installs 13 by override, an install without it would not (D-44-sqlite). An abort
 * during a run fails that run.
 * @template T
 * @param {() => Promise<T>} start
 * @param {string} what
 * @returns {Promise<T>}
 */
async function startDespiteAborts (start, what) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start()
    } catch (err) {
      if (attempt === START_ATTEMPTS || !KNOWN_ABORT.test(String(/** @type {Error} */ (err)?.message))) throw err
      process.stderr.write(`${what}: the runtime aborted while starting (better-sqlite3 12 on Node 24, nodejs/node#65446); attempt ${attempt + 1} of ${START_ATTEMPTS}\n`)
    }
  }
}
/** At one abort in three, five attempts leave about one start in 400 failing. */
const START_ATTEMPTS = 5
const KNOWN_ABORT = /RemoveEnvironmentCleanupHook|Assertion failed: \(env\) != nullptr/
