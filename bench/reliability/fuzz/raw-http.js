// @ts-check
// Writes raw bytes to a loopback port and reads back one HTTP answer, however
// the server ends it: a complete response, a closed socket, a reset, or silence
// (which, past the timeout, is a hang).
import { connect } from 'node:net'

/**
 * @typedef {object} RawAnswer
 * @property {'answered' | 'closed' | 'reset' | 'refused' | 'timeout'} outcome
 * @property {number} [status]
 * @property {Record<string, string>} [headers]  lower-case names
 * @property {string} [body]
 * @property {number} ms
 */

/**
 * @param {{ port: number, bytes: Buffer, timeoutMs: number, head?: boolean }} options  head: a HEAD request (no body follows)
 * @returns {Promise<RawAnswer>}
 */
export function sendRaw ({ port, bytes, timeoutMs, head = false }) {
  const started = process.hrtime.bigint()
  const ms = () => Number(process.hrtime.bigint() - started) / 1e6
  return new Promise((resolve) => {
    /** @type {Buffer[]} */
    const chunks = []
    let settled = false
    const socket = connect({ port, host: '127.0.0.1' })
    const finish = (/** @type {RawAnswer['outcome']} */ fallback) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      const parsed = parseResponse(Buffer.concat(chunks), head)
      resolve(parsed ? { outcome: 'answered', ...parsed, ms: ms() } : { outcome: fallback, ms: ms() })
    }
    const timer = setTimeout(() => finish('timeout'), timeoutMs)
    socket.on('connect', () => socket.write(bytes, () => {}))
    socket.on('data', (chunk) => {
      chunks.push(chunk)
      const parsed = parseResponse(Buffer.concat(chunks), head)
      if (parsed?.complete) finish('answered')
    })
    socket.on('end', () => finish('closed'))
    socket.on('close', () => finish('closed'))
    socket.on('error', (err) => {
      const code = /** @type {NodeJS.ErrnoException} */ (err).code
      // A server may answer and close while we still write (e.g. 431 mid-headers): keep what came back.
      finish(code === 'ECONNREFUSED' ? 'refused' : 'reset')
    })
  })
}

/**
 * The first final (non-1xx) response in the buffer, or null when there is none yet.
 * @param {Buffer} buffer
 * @param {boolean} head
 * @returns {{ status: number, headers: Record<string, string>, body: string, complete: boolean } | null}
 */
export function parseResponse (buffer, head) {
  let offset = 0
  while (offset < buffer.length) {
    const end = buffer.indexOf('\r\n\r\n', offset)
    if (end === -1) return null
    const lines = buffer.subarray(offset, end).toString('latin1').split('\r\n')
    const status = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(lines[0])
    if (!status) return null
    /** @type {Record<string, string>} */
    const headers = {}
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':')
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    const code = Number(status[1])
    const bodyStart = end + 4
    if (code >= 100 && code < 200) { offset = bodyStart; continue } // e.g. 100 Continue, then the real answer
    if (head || code === 204 || code === 304) return { status: code, headers, body: '', complete: true }
    const rest = buffer.subarray(bodyStart)
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const decoded = decodeChunked(rest)
      return { status: code, headers, body: decoded.body, complete: decoded.complete }
    }
    if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length'])
      return { status: code, headers, body: rest.subarray(0, length).toString('utf8'), complete: rest.length >= length }
    }
    return { status: code, headers, body: rest.toString('utf8'), complete: false } // until the socket closes
  }
  return null
}

/** @param {Buffer} data */
function decodeChunked (data) {
  /** @type {Buffer[]} */
  const parts = []
  let offset = 0
  while (true) {
    const lineEnd = data.indexOf('\r\n', offset)
    if (lineEnd === -1) return { body: Buffer.concat(parts).toString('utf8'), complete: false }
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16)
    if (!Number.isFinite(size)) return { body: Buffer.concat(parts).toString('utf8'), complete: false }
    if (size === 0) return { body: Buffer.concat(parts).toString('utf8'), complete: true }
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size))
    offset = lineEnd + 2 + size + 2
    if (offset > data.length) return { body: Buffer.concat(parts).toString('utf8'), complete: false }
  }
}
