// @ts-check
// What every framework server answers, and the two things each server file
// needs besides its framework: the port the runner gives it, and a clean stop.

export const HELLO = 'Hello world'
export const CONTENT_TYPE = 'text/plain; charset=utf-8'
export const CONTENT_LENGTH = String(Buffer.byteLength(HELLO))
export const HOST = '127.0.0.1'
/** The headers every server sets itself (node:http adds date, connection and keep-alive). */
export const HELLO_HEADERS = Object.freeze({ 'content-type': CONTENT_TYPE, 'content-length': CONTENT_LENGTH })

/**
 * The port from argv (`node servers/x.js 12345`): the runner picks it, so two
 * servers never race for a fixed one.
 * @param {string[]} [argv]
 */
export function portFromArgv (argv = process.argv) {
  const port = Number(argv[2])
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    process.stderr.write(`usage: node ${argv[1]} <port>\n`)
    process.exit(2)
  }
  return port
}

/**
 * On SIGINT/SIGTERM: close the server, then exit 0 (or 1 when closing failed or
 * took too long), so the runner can tell a clean stop from a crash.
 * @param {() => Promise<unknown> | unknown} close
 */
export function closeOnSignal (close) {
  const stop = () => {
    setTimeout(() => {
      process.stderr.write('close did not finish within 5 s\n')
      process.exit(1)
    }, 5000).unref()
    Promise.resolve().then(close).then(() => process.exit(0), (err) => {
      process.stderr.write(`close failed: ${err?.stack ?? err}\n`)
      process.exit(1)
    })
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

/**
 * close() for a plain node:http server: stop accepting, drop idle keep-alive sockets.
 * @param {import('node:http').Server} server
 */
export function closeHttpServer (server) {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve(undefined)))
    server.closeIdleConnections()
  })
}
