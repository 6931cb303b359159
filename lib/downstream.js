// @ts-check
// The handler every downstream service mounts: `GET /hello?size=N` over HTTP
// (mesh and TCP reach this same function) and one `hello` message handler for
// Watt messaging and the channel library alike.
import { createServer } from 'node:http'
import { serve } from '@watt-lab/channel'
import { setTimeout as sleep } from 'node:timers/promises'
import { serveHttpPortInWatt } from '@watt-lab/channel/http'
import { corruptBody, corruptHello, helloBody, helloObject, parseHelloRequest } from './contract.js'
import { answerProtocolErrorsWithJson, errorBody, missingHost } from './http-errors.js'
import { serviceBindHost, tcpPortOf } from './ports.js'

/** Server-side keep-alive, longer than every client pool's, so clients close first. */
export const SERVER_KEEP_ALIVE_MS = 10_000

/**
 * What `/hello` answers for a query: status, body, and how long to hold it back
 * (the delay fault). Synchronous so the hot path costs no promise.
 * @param {string} service
 * @param {Record<string, unknown>} query
 * @returns {{ status: number, body: Buffer, delay: number }}
 */
export function helloResponse (service, query) {
  let parsed
  try {
    parsed = parseHelloRequest(query)
  } catch (err) {
    const message = /** @type {Error} */ (err).message
    return { status: 400, body: errorBody(400, message), delay: 0 }
  }
  const { size, fault } = parsed
  const body = helloBody(service, size)
  return { status: 200, body: fault.corrupt ? corruptBody(service, size) : body, delay: fault.delay ?? 0 }
}

/**
 * A node:http request listener serving the contract.
 * @param {string} service
 * @returns {import('node:http').RequestListener}
 */
export function createHelloListener (service) {
  return function helloListener (req, res) {
    if (missingHost(req)) return send(res, 400, errorBody(400, 'missing Host header'))
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (url.pathname !== '/hello') return send(res, 404, errorBody(404, `no route ${url.pathname}`))
    if (req.method !== 'GET') return send(res, 405, errorBody(405, 'use GET'))
    const { status, body, delay } = helloResponse(service, Object.fromEntries(url.searchParams))
    if (delay) setTimeout(send, delay, res, status, body)
    else send(res, status, body)
  }
}

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {Buffer} body
 */
function send (res, status, body) {
  if (res.destroyed) return
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length })
  res.end(body)
}

/**
 * The `hello` handler for message transports: the contract's object for a
 * `{ size, delay?, corrupt? }` message. Bad input throws; the caller sees that
 * message. A delay ends early when the caller cancels (the channel library passes a
 * signal; Watt messaging passes none).
 * @param {string} service
 */
export function createHelloHandler (service) {
  return async function hello (/** @type {Record<string, unknown>} */ message, /** @type {{ signal?: AbortSignal } | undefined} */ context) {
    const { size, fault } = parseHelloRequest(message ?? {})
    if (fault.delay) await sleep(fault.delay, undefined, context?.signal instanceof AbortSignal ? { signal: context.signal } : undefined)
    return fault.corrupt ? corruptHello(service, size) : helloObject(service, size)
  }
}

/**
 * Registers the one `hello` handler in this worker for every message transport:
 * Watt messaging (`rpc`) and the channel library's `serve` (every channel kind it
 * offers, opened by the entry on first use).
 * @param {string} service
 */
export function handleHelloMessages (service) {
  const messaging = /** @type {any} */ (globalThis).platformatic?.messaging
  if (!messaging) return // running outside Watt (e.g. a unit test): nothing to register
  const hello = createHelloHandler(service)
  messaging.handle('hello', hello)
  serve({ hello }, { messaging })
}

/**
 * Closes this service's own listener when Watt stops the application, so the
 * worker exits promptly and no keep-alive socket holds it open.
 * @param {() => Promise<unknown> | void} close
 */
export function closeOnStop (close) {
  const events = /** @type {any} */ (globalThis).platformatic?.events
  if (!events) return
  events.on('close', close)
}

/**
 * A plain node:http downstream: the contract on its own loopback port (which
 * Watt's mesh reaches in-thread too), the messaging handler, and a clean close.
 * @param {string} service
 */
export function serveHello (service) {
  const server = createServer({ keepAliveTimeout: SERVER_KEEP_ALIVE_MS }, createHelloListener(service))
  answerProtocolErrorsWithJson(server, { clientErrors: true })
  server.listen({ port: tcpPortOf(service), host: serviceBindHost() })
  serveHttpPortInWatt(server) // the http-port transport: same server, connections over a MessagePort
  handleHelloMessages(service)
  closeOnStop(() => {
    server.close()
    server.closeIdleConnections()
  })
  return server
}
