// @ts-check
// JSON error bodies for what Node's HTTP server would otherwise answer bare,
// before any framework or listener sees the request: a missing Host header, an
// unsupported Expect, a malformed or oversized request.
import { STATUS_CODES } from 'node:http'

/**
 * @param {number} statusCode
 * @param {string} message
 */
export function errorBody (statusCode, message) {
  return Buffer.from(JSON.stringify({ statusCode, error: STATUS_CODES[statusCode], message }))
}

/**
 * HTTP/1.1 requires Host: reject it ourselves (Node's own check answers a bare 400).
 * @param {import('node:http').IncomingMessage} req
 */
export function missingHost (req) {
  return req.httpVersionMajor === 1 && req.httpVersionMinor === 1 && req.headers.host === undefined
}

/**
 * @param {import('node:http').Server} server
 * @param {{ clientErrors: boolean }} options  false for Fastify servers, whose own
 *   client-error handler already answers JSON
 */
export function answerProtocolErrorsWithJson (server, { clientErrors }) {
  /** @type {any} */ (server).requireHostHeader = false // checked by missingHost() in the handler instead
  server.on('checkExpectation', (req, res) => {
    const body = errorBody(417, `unsupported Expect: ${req.headers.expect}`)
    res.writeHead(417, { 'content-type': 'application/json', 'content-length': body.length, connection: 'close' })
    res.end(body)
  })
  if (!clientErrors) return
  server.on('clientError', (err, socket) => {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code
    const status = code === 'HPE_HEADER_OVERFLOW' ? 431 : code === 'HPE_URI_TOO_LONG' ? 414 : 400
    const body = errorBody(status, code === 'HPE_HEADER_OVERFLOW' ? 'request headers too large' : `malformed request (${code ?? err.message})`)
    if (socket.writable && !(/** @type {any} */ (socket))._httpMessage?.headersSent) {
      socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`)
    }
    socket.destroy()
  })
}
