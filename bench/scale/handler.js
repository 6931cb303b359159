// @ts-check
// The one handler every strategy serves: the same bytes and the same headers
// whether it runs in one process, in cluster or PM2 workers, in reusePort
// processes or in Watt worker threads.
import { threadId } from 'node:worker_threads'

export const HOST = '127.0.0.1'
export const MEASURED_PATH = '/'
// Readiness only (never measured): which process/thread answered, so a start
// can wait until all N workers accept connections, not just the first.
export const WORKER_PATH = '/__worker'

export const BODY = JSON.stringify({ hello: 'world' })
const BODY_BYTES = Buffer.from(BODY)
export const CONTENT_TYPE = 'application/json; charset=utf-8'
const HEADERS = { 'content-type': CONTENT_TYPE, 'content-length': String(BODY_BYTES.length) }

/** This process and thread, e.g. "1234:0" (thread 0 is the main thread). */
export function workerId () {
  return `${process.pid}:${threadId}`
}

/**
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 */
export function handle (req, res) {
  if (req.url === MEASURED_PATH) {
    res.writeHead(200, HEADERS)
    res.end(BODY_BYTES)
  } else if (req.url === WORKER_PATH) {
    res.writeHead(200, { 'content-type': 'text/plain' })
    res.end(workerId())
  } else {
    res.writeHead(404)
    res.end()
  }
}

/**
 * The port a server script listens on, from the environment its launcher set.
 * @param {NodeJS.ProcessEnv} [env]
 */
export function portFromEnv (env = process.env) {
  const port = Number(env.PORT)
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(`PORT must be a TCP port, got ${env.PORT}`)
  return port
}
