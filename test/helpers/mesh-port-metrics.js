// Reads the drop-in's counter from a runtime's Prometheus endpoint, summed over
// workers: { '<caller>→<target>': { 'http-port': n, mesh: n } }.
import { request } from 'undici'

const LINE = /^watt_lab_mesh_port_requests_total\{([^}]*)\}\s+(\S+)$/

/** @param {string} metricsUrl  http://127.0.0.1:PORT */
export async function meshPortCounts (metricsUrl) {
  const { statusCode, body } = await request(`${metricsUrl}/metrics`)
  const text = await body.text()
  if (statusCode !== 200) throw new Error(`/metrics answered ${statusCode}`)
  return parseMeshPortCounts(text)
}

/** @param {string} text  Prometheus exposition */
export function parseMeshPortCounts (text) {
  const counts = {}
  for (const line of text.split('\n')) {
    const match = LINE.exec(line)
    if (!match) continue
    const labels = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]))
    const key = `${labels.applicationId}→${labels.target}`
    counts[key] ??= { 'http-port': 0, mesh: 0 }
    counts[key][labels.path] += Number(match[2])
  }
  return counts
}

/**
 * What happened between two readings.
 * @param {ReturnType<typeof parseMeshPortCounts>} before
 * @param {ReturnType<typeof parseMeshPortCounts>} after
 */
export function countsSince (before, after) {
  const out = {}
  for (const [key, now] of Object.entries(after)) {
    const then = before[key] ?? { 'http-port': 0, mesh: 0 }
    out[key] = { 'http-port': now['http-port'] - then['http-port'], mesh: now.mesh - then.mesh }
  }
  return out
}
