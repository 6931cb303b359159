// @ts-check
// Whether the Watt running this worker is one the drop-in supports; on any other it stands aside (every call
// stays on the mesh) rather than risk an app. What it reads later (the ITC, messaging) is checked where it is
// used, and its absence sends that target to the mesh.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import {
  configuredApplications, events, platformatic, runtimeRoot,
  workerApplicationId, workerData as wattWorkerData, workerIndex
} from '../watt/globals.js'

/** The oldest release `npm run compat` passes on (the oldest wattpm 3 the registry serves here). */
export const OLDEST_SUPPORTED = '3.41.0'
/** Watt's next major moves to undici 8 and a new mesh interceptor: not tested. */
const NEXT_MAJOR = 4

/**
 * @typedef {object} Support
 * @property {boolean} supported
 * @property {string} version  the running Watt runtime's version (its package's), or 'unknown'
 * @property {string} reason   why not, or empty when supported
 */

/**
 * The decision, from what the worker shows.
 * @param {{ version: string | null, workerData: any, platformatic: any }} seen
 *   version: the running Watt runtime package's (null when it cannot be read);
 *   workerData and platformatic: the worker's, when Watt calls the interceptor's factory
 * @returns {Support}
 */
export function supportOf ({ version, workerData, platformatic }) {
  const shown = version ?? 'unknown'
  const no = (/** @type {string} */ reason) => ({ supported: false, version: shown, reason })
  if (version !== null) {
    const release = parseVersion(version)
    if (release === null) return no(`cannot read the version ${JSON.stringify(version)}`)
    if (release[0] >= NEXT_MAJOR) return no(`only Watt 3 is supported, from ${OLDEST_SUPPORTED}`)
    const oldest = /** @type {number[]} */ (parseVersion(OLDEST_SUPPORTED))
    if (compare(release, oldest) < 0) return no(`older than ${OLDEST_SUPPORTED}, the oldest release tested`)
  }
  // An unknown version is judged by what the drop-in needs alone.
  if (!configuredApplications(workerData) || typeof workerApplicationId(workerData) !== 'string') {
    return no('the worker has no runtime config listing its applications (workerData.config.applications)')
  }
  if (typeof events(platformatic)?.once !== 'function') {
    return no('the worker has no runtime events (globalThis.platformatic.events)')
  }
  return { supported: true, version: shown, reason: '' }
}

/** The decision for this worker. @returns {Support} */
export function checkSupport () {
  return supportOf({ version: runtimeVersion(), workerData: wattWorkerData(), platformatic: platformatic() })
}

/**
 * The version of the Watt runtime package that started this worker: Watt starts every worker from its
 * lib/worker/main.js, the worker's process.argv[1]; failing that, the copy the app resolves from the
 * runtime's root (workerData.dirname, where Watt resolves the interceptors themselves).
 * @returns {string | null}
 */
export function runtimeVersion () {
  const fromWorkerFile = process.argv[1] ? join(dirname(process.argv[1]), '..', '..', 'package.json') : null
  /** @type {(string | null)[]} */
  const candidates = [fromWorkerFile]
  try {
    const root = runtimeRoot()
    if (typeof root === 'string') {
      candidates.push(createRequire(join(root, 'package.json')).resolve('@platformatic/runtime/package.json'))
    }
  } catch {}
  for (const file of candidates) {
    if (file === null) continue
    try {
      const manifest = JSON.parse(readFileSync(file, 'utf8'))
      if (manifest?.name === '@platformatic/runtime' && typeof manifest.version === 'string') return manifest.version
    } catch {}
  }
  return null
}

/** @param {string} version  e.g. 3.67.0 or 3.68.0-alpha.1 @returns {number[] | null} */
function parseVersion (version) {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version)
  return match ? match.slice(1).map(Number) : null
}

/** @param {number[]} a @param {number[]} b */
function compare (a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i]
  return 0
}

/**
 * The interceptor on a Watt the drop-in does not support: every dispatch goes on
 * unchanged, to the mesh, and no callee is installed. One warning per application
 * (from its first worker), not one per worker.
 * @param {Support} support
 * @param {import('./log.js').Log} log
 * @returns {import('undici').Dispatcher.DispatcherComposeInterceptor}
 */
export function standAside (support, log) {
  if (!(Number(workerIndex()) > 0)) {
    log.warn(`mesh-port: Watt ${support.version} is not supported (${support.reason}): every call stays on Watt's mesh`)
  }
  return (dispatch) => dispatch
}
