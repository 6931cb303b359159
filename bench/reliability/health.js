// @ts-check
// Is the runtime still whole? Its process alive, no application restarted behind
// our back (Watt's own restart counter), every transport answering.
import { request } from 'undici'
import { waitUntilSettled as settleOn } from '../lib/settle.js'
import { readyPaths } from '../../lib/topology.js'

/** @param {number} pid */
export function isAlive (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM'
  }
}

/**
 * Restarts per application, from `platformatic_application_restarts_total`.
 * @param {string} metricsUrl
 * @returns {Promise<Record<string, number>>}
 */
export async function restartCounts (metricsUrl) {
  const { statusCode, body } = await request(`${metricsUrl}/metrics`, { headersTimeout: 5000, bodyTimeout: 5000 })
  const text = await body.text()
  if (statusCode !== 200) throw new Error(`metrics answered ${statusCode}`)
  /** @type {Record<string, number>} */
  const counts = {}
  for (const match of text.matchAll(/^platformatic_application_restarts_total\{[^}]*applicationId="([^"]+)"[^}]*\}\s+(\S+)/gm)) {
    counts[match[1]] = Number(match[2])
  }
  return counts
}

/**
 * Status of one GET, or the error code when there is no answer.
 * @param {string} url
 * @param {number} [timeoutMs]
 * @returns {Promise<number | string>}
 */
export async function statusOf (url, timeoutMs = 5000) {
  try {
    const { statusCode, body } = await request(url, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
    await body.dump()
    return statusCode
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code ?? 'error'
  }
}

/**
 * Every transport route's status; all 200 means the entry and every path to the
 * services work.
 * @param {string} baseUrl
 * @param {readonly string[]} [routes]  the runtime's routes (default: those the plain runtime serves)
 */
export async function transportStatuses (baseUrl, routes = readyPaths()) {
  const statuses = await Promise.all(routes.map((route) => statusOf(`${baseUrl}${route}`)))
  return Object.fromEntries(routes.map((route, i) => [route.slice(route.lastIndexOf('/') + 1), statuses[i]]))
}

/**
 * Waits until the runtime is quiet again (bench/lib/settle.js: a fan-out over the
 * mesh to all four services answers fast several times in a row), or throws.
 * The next scenario must not start on the backlog the last load left in flight.
 * Resolves with the ms waited.
 * @param {string} baseUrl
 * @param {{ timeoutMs?: number }} [options]
 */
export async function waitUntilSettled (baseUrl, { timeoutMs = 60_000 } = {}) {
  const { settled, ms } = await settleOn(`${baseUrl}/tsfastify/ipc?fanout=4`, { timeoutMs })
  if (!settled) throw new Error(`the runtime did not settle within ${timeoutMs} ms (a fan-out never answered fast enough several times in a row)`)
  return ms
}
