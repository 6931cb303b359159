// @ts-check
// server.requestTimeout on the frames wire. Node's server looks at its connections every
// connectionsCheckingInterval (30 s by default), and only once it listens (the check starts on 'listening'),
// and fails a request whose head and body have not all arrived requestTimeout after its head began:
// ERR_HTTP_REQUEST_TIMEOUT to 'clientError', or a 408. The same check, over the frames requests whose body
// is still arriving. (A frames head arrives whole, so headersTimeout never applies, as on the HTTP wire,
// where undici writes a head in one write.)
/** @import http from 'node:http' */
import { checkingInterval } from '../../node-internals.js'

/** @typedef {{ requestTimedOut: () => void }} Awaited  an exchange whose request body is still arriving */

/** @typedef {{ waiting: Map<Awaited, number>, timer: NodeJS.Timeout | null }} Check  per server */

/** @type {WeakMap<http.Server, Check>} */
const checks = new WeakMap()

/**
 * The body of `exchange`'s request is still to come: from now on it counts against server.requestTimeout.
 * @param {http.Server} server
 * @param {Awaited} exchange
 */
export function bodyExpected (server, exchange) {
  if (!server.listening) return
  let check = checks.get(server)
  if (check === undefined) {
    check = { waiting: new Map(), timer: null }
    checks.set(server, check)
  }
  check.waiting.set(exchange, performance.now())
  if (check.timer === null) {
    const started = check
    started.timer = setInterval(() => expire(server, started), checkingInterval(server)).unref()
  }
}

/**
 * The body arrived (or the exchange closed).
 * @param {http.Server} server
 * @param {Awaited} exchange
 */
export function bodyArrived (server, exchange) {
  checks.get(server)?.waiting.delete(exchange)
}

/**
 * @param {http.Server} server
 * @param {Check} check
 */
function expire (server, check) {
  if (check.waiting.size === 0) {
    clearInterval(/** @type {NodeJS.Timeout} */ (check.timer))
    check.timer = null
    return
  }
  const limit = server.requestTimeout
  if (!(Number.isFinite(limit) && limit > 0)) return
  const now = performance.now()
  for (const [exchange, started] of check.waiting) {
    if (now - started < limit) continue
    check.waiting.delete(exchange)
    exchange.requestTimedOut()
  }
}
