// @ts-check
// The Watt runtime's lifecycle for benches and tests: start (or reuse one a user
// started), wait until every transport answers, stop what we started.
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { entryPort, metricsPort } from '../../lib/ports.js'
import { readyPaths } from '../../lib/topology.js'
import { spawnTracked, stopChild } from './processes.js'
import { removeStaleManagementDir } from './management-dir.js'
import { PROJECT_NODE, PROJECT_ROOT, wattpmCli } from './paths.js'
import { isListening } from './ports.js'

/**
 * @typedef {object} Runtime
 * @property {string} url          entry base URL, http://127.0.0.1:PORT
 * @property {number} port
 * @property {string} metricsUrl   Prometheus endpoint base URL
 * @property {number | null} pid   null when reusing a runtime we did not start
 * @property {boolean} started     true when this call started it (and stop() stops it)
 * @property {(options?: { graceMs?: number }) => Promise<void>} stop  SIGINT, then SIGKILL after graceMs (default 10 s)
 * @property {() => string} output  the runtime's last lines of output (empty when reused)
 */

/**
 * Starts the runtime unless one already answers on the entry port.
 * @param {{ env?: NodeJS.ProcessEnv, readyTimeoutMs?: number, reuse?: boolean, configFile?: string, readyPaths?: string[], nodeFlags?: readonly string[] }} [options]
 *   configFile: another runtime config (e.g. one generated for profiling), relative to the project root
 *   readyPaths: the routes that prove that config ready (default: every transport route available here)
 *   nodeFlags: Node/V8 flags for the runtime's process (node-flags.js), before Watt's CLI
 * @returns {Promise<Runtime>}
 */
// 120 s, a hang detector: a loaded machine was seen to start a runtime very slowly (D-ready-timeout)
export async function startRuntime ({ env = {}, readyTimeoutMs = 120_000, reuse = true, configFile = 'watt.json', readyPaths: paths, nodeFlags = [] } = {}) {
  const fullEnv = { ...process.env, ...env }
  const readyPaths = paths ?? defaultReadyPaths(fullEnv)
  const port = entryPort(fullEnv)
  const url = `http://127.0.0.1:${port}`
  const metricsUrl = `http://127.0.0.1:${metricsPort(fullEnv)}`

  if (await isListening(port)) {
    if (!reuse) throw new Error(`port ${port} is already in use; stop what listens there or set PORT`)
    await waitForReady(url, { timeoutMs: readyTimeoutMs, paths: readyPaths })
    return { url, port, metricsUrl, pid: null, started: false, stop: async () => {}, output: () => '' }
  }

  const { child, exited, output } = spawnTracked(PROJECT_NODE, [...nodeFlags, wattpmCli(), 'start', '--env', join(PROJECT_ROOT, 'watt.env'), '--config', configFile], {
    cwd: PROJECT_ROOT,
    env: fullEnv
  })
  let exitedEarly = false
  exited.then(() => { exitedEarly = true })
  // Synchronously on exit, however it comes (stop(), Ctrl-C clean-up, a crash), before
  // anyone waiting for the exit carries on.
  child.once('exit', () => { if (child.pid) removeStaleManagementDir(child.pid) })
  try {
    await waitForReady(url, { timeoutMs: readyTimeoutMs, isDead: () => exitedEarly, paths: readyPaths })
  } catch (err) {
    await stopChild(child)
    throw new Error(`${/** @type {Error} */ (err).message}\n--- runtime output ---\n${output()}`)
  }
  return {
    url,
    port,
    metricsUrl,
    pid: child.pid ?? null,
    started: true,
    stop: (options) => stopChild(child, options),
    output
  }
}

/**
 * Waits until every transport route answers 200: the mesh, the TCP listeners and
 * the messaging handlers are all up, not just the entry's socket.
 * @param {string} url
 * @param {{ timeoutMs?: number, isDead?: () => boolean, paths?: string[] }} [options]
 */
export async function waitForReady (url, { timeoutMs = 60_000, isDead = () => false, paths = defaultReadyPaths() } = {}) {
  const deadline = Date.now() + timeoutMs
  let last = 'no answer yet'
  while (Date.now() < deadline) {
    if (isDead()) throw new Error('the runtime exited before it was ready')
    const statuses = await Promise.all(paths.map((path) => probe(url + path)))
    if (statuses.every((status) => status === 200)) return
    last = paths.map((path, i) => `${path} ${statuses[i]}`).join(', ')
    await sleep(200)
  }
  throw new Error(`the runtime at ${url} was not ready within ${timeoutMs} ms (${last})`)
}

/**
 * One route per transport available in this environment (lib/topology.js).
 * @param {NodeJS.ProcessEnv} [env]
 */
export function defaultReadyPaths (env = process.env) {
  return readyPaths(env)
}

/**
 * The status a GET of `url` answers, or the error code when it answers none.
 * @param {string} url
 * @param {number} [timeoutMs]
 */
export async function probe (url, timeoutMs = 2000) {
  try {
    const { statusCode, body } = await request(url, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
    await body.dump()
    return statusCode
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code ?? 'error'
  }
}
