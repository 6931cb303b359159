// @ts-check
// The runtime's own settings, read from the runtime itself (Watt's management
// API on its unix socket, the way `wattpm ps` and `wattpm env` read them): the
// entry's CALL_TIMEOUT_MS and CALLS_IN_FLIGHT_PER_SERVICE, the workers per
// application, and the Node and Watt versions the runtime runs on (not the
// harness's: a bench launched from Node 20 still runs Watt on the project's
// Node 24). Also what the harness would start a runtime with, to refuse a
// reused runtime whose settings differ.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Agent, request } from 'undici'
import { SETTINGS } from '../../lib/topology.js'
import { execFileSync } from 'node:child_process'
import { packageVersion } from './machine.js'
import { managementSocketPath } from './management-dir.js'
import { PROJECT_NODE } from './paths.js'

/** The entry's tunables that change what a run measures (lib/topology.js; the log level does not). */
export const SETTINGS_ENV = SETTINGS.map((setting) => setting.env).filter((name) => name !== 'PLT_LOG_LEVEL')

/**
 * @typedef {object} RuntimeSettings
 * @property {boolean} reused                  true when the bench found it already listening
 * @property {number | null} pid
 * @property {string} source                   where the figures come from
 * @property {{ node: string | null, watt: string | null }} versions
 * @property {Record<string, string | null>} env   SETTINGS_ENV as the entry sees them
 * @property {Record<string, number>} workers  application → workers
 * @property {string[] | null} nodeFlags      the flags its Node process was started with (null where /proc cannot tell)
 */

/**
 * @param {number} pid
 * @param {string} path  under /api/v1
 */
async function management (pid, path) {
  const agent = new Agent({ connect: { socketPath: managementSocketPath(pid) } })
  try {
    const { statusCode, body } = await request(`http://localhost/api/v1${path}`, { dispatcher: agent, headersTimeout: 10_000, bodyTimeout: 10_000 })
    const text = await body.text()
    if (statusCode !== 200) throw new Error(`management API GET ${path} answered ${statusCode}`)
    return JSON.parse(text)
  } finally {
    await agent.close()
  }
}

/** The version of the Node binary the harness starts runtimes with. */
function projectNodeVersion () {
  try {
    return execFileSync(PROJECT_NODE, ['-p', 'process.version'], { encoding: 'utf8' }).trim()
  } catch {
    return null
  }
}

/**
 * The flags between the node binary and the script on a process's command line,
 * read from /proc: what it runs with, not what we meant to start it with.
 * @param {number} pid
 * @returns {string[] | null}
 */
export function nodeFlagsOf (pid) {
  try {
    const [, ...args] = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    const script = args.findIndex((arg) => !arg.startsWith('-'))
    return script === -1 ? args : args.slice(0, script)
  } catch {
    return null
  }
}

/** Pids of every runtime on this machine with a management socket. */
function runtimePids () {
  try {
    return readdirSync(join(managementSocketPath(0), '..', '..')).filter((name) => /^\d+$/.test(name)).map(Number)
  } catch {
    return []
  }
}

/**
 * Finds the runtime whose entry answers at `url` (its pid unknown when reused).
 * @param {string} url  http://127.0.0.1:PORT
 */
async function findPid (url) {
  for (const pid of runtimePids()) {
    try {
      const metadata = await management(pid, '/metadata')
      if (sameEntry(metadata.url, url)) return pid
    } catch {}
  }
  return null
}

/** @param {string | null | undefined} a @param {string} b */
function sameEntry (a, b) {
  if (!a) return false
  const port = (/** @type {string} */ u) => new URL(u).port
  return port(a) === port(b)
}

/**
 * Reads the settings of the runtime answering at `url`.
 * @param {{ url: string, pid: number | null, started: boolean }} runtime
 * @param {{ entry?: string }} [options]
 * @returns {Promise<RuntimeSettings>}
 */
export async function readRuntimeSettings (runtime, { entry = 'tsfastify' } = {}) {
  const pid = runtime.pid ?? await findPid(runtime.url)
  if (pid === null) throw new Error(`no Watt management socket answers for the runtime at ${runtime.url}: its settings cannot be read`)
  const [metadata, config, env] = await Promise.all([
    // /metadata reads the project's package.json: a generated config elsewhere (bench:profile's) has none
    management(pid, '/metadata').catch(() => null),
    management(pid, '/config'),
    management(pid, `/applications/${entry}/env`)
  ])
  // workers actually running per application (the config may give a range)
  const ids = (config.applications ?? []).map((/** @type {{ id: string }} */ app) => app.id)
  const details = await Promise.all(ids.map((/** @type {string} */ id) => management(pid, `/applications/${id}`)))
  /** @type {Record<string, number>} */
  const workers = Object.fromEntries(ids.map((/** @type {string} */ id, /** @type {number} */ i) => [id, details[i].workers]))
  return {
    reused: !runtime.started,
    pid,
    source: metadata
      ? 'Watt management API (metadata, applications, the entry\'s env)'
      : 'Watt management API (applications, the entry\'s env); versions from the Node binary and wattpm package that started it (no /metadata for this config)',
    versions: metadata
      ? { node: metadata.nodeVersion ?? null, watt: metadata.platformaticVersion ?? null }
      : { node: projectNodeVersion(), watt: packageVersion('wattpm') },
    env: Object.fromEntries(SETTINGS_ENV.map((name) => [name, env[name] ?? null])),
    workers,
    nodeFlags: nodeFlagsOf(pid)
  }
}

/**
 * What a runtime started by the harness would get: the topology's defaults
 * (watt.env is generated from them), the caller's environment winning (as
 * `wattpm start --env watt.env` does).
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {Record<string, string | null>}
 */
export function expectedSettings (env = process.env) {
  return Object.fromEntries(SETTINGS_ENV.map((name) => [name, env[name] ?? String(SETTINGS.find((s) => s.env === name)?.default ?? '') ?? null]))
}

/**
 * Differences between what a runtime runs with and what was asked, [] when none.
 * @param {RuntimeSettings} settings
 * @param {Record<string, string | null>} expected
 */
export function settingsDiffer (settings, expected) {
  return SETTINGS_ENV.filter((name) => String(settings.env[name]) !== String(expected[name]))
    .map((name) => `${name} is ${settings.env[name]} in the running runtime, ${expected[name]} was asked`)
}

/** @param {RuntimeSettings} settings */
export function describeSettings (settings) {
  const workers = Object.entries(settings.workers).map(([app, n]) => `${app} ${n}`).join(', ')
  const flags = settings.nodeFlags === null ? 'flags unknown' : `flags [${settings.nodeFlags.join(' ')}]`
  return `Node ${settings.versions.node} (${flags}), Watt ${settings.versions.watt}, ${SETTINGS_ENV.map((name) => `${name}=${settings.env[name]}`).join(', ')}, workers: ${workers}`
}
