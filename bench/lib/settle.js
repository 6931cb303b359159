// @ts-check
// Waits until a server has drained the work a previous load left in flight.
// A load generator that stops closes its sockets with requests still queued, and
// a load started at once saw whole connections starve (D-settle).
import { request } from 'undici'

/**
 * Probes `url` one request at a time until `quiet` answers in a row are 200
 * and faster than `fastMs`. Returns how long that took and whether it settled.
 * @param {string} url
 * @param {{ fastMs?: number, quiet?: number, timeoutMs?: number }} [options]
 */
export async function waitUntilSettled (url, { fastMs = 50, quiet = 3, timeoutMs = 20_000 } = {}) {
  const started = Date.now()
  let inARow = 0
  while (Date.now() - started < timeoutMs) {
    const t0 = process.hrtime.bigint()
    let ok = false
    try {
      const { statusCode, body } = await request(url, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
      await body.dump()
      ok = statusCode === 200
    } catch {}
    const ms = Number(process.hrtime.bigint() - t0) / 1e6
    inARow = ok && ms < fastMs ? inARow + 1 : 0
    if (inARow >= quiet) return { settled: true, ms: Date.now() - started }
  }
  return { settled: false, ms: Date.now() - started }
}
