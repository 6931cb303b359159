// @ts-check
// The request as the callee's server will see it, from undici's dispatch options without writing HTTP/1.1:
// the header lines undici's client-h1 writes, in its order, so req.headers and rawHeaders are those of the
// HTTP wire. What this cannot carry returns null, and the request takes the HTTP wire (index.js counts which).

/**
 * Methods whose empty body still gets `content-length: 0` (undici's expectsPayload).
 * @type {Set<string>}
 */
const EXPECTS_PAYLOAD = new Set(['PUT', 'POST', 'PATCH', 'QUERY', 'PROPFIND', 'PROPPATCH'])

/** Methods undici sends no content-length for, and so does not check it against the body (shouldSendContentLength). */
const NO_CONTENT_LENGTH = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'CONNECT'])

const DIGITS = /^[0-9]+$/

/** Headers that change how HTTP/1.1 frames the exchange: left to the HTTP wire. */
const FRAMING = new Set(['connection', 'keep-alive', 'upgrade', 'transfer-encoding', 'expect'])

/**
 * @typedef {object} RequestHead  what travels as the request's first frame
 * @property {string} m  method
 * @property {string} p  path (with its query)
 * @property {string[]} h  raw header lines, name then value
 * @property {string} [b]  the whole body (latin1) when it is small and known
 * @property {boolean} e  the request ends with this frame (no body frames follow)
 */

/**
 * @typedef {object} Outgoing
 * @property {RequestHead} head
 * @property {Buffer | null} buffer  a body too large to ride in the head
 * @property {AsyncIterable<unknown> | null} stream  a body read as it comes
 */

/**
 * @param {import('undici').Dispatcher.DispatchOptions} opts
 * @param {string} host  the origin's host (the Host header undici writes)
 * @param {number} inline  bodies up to this many bytes ride in the head
 * @returns {Outgoing | null}  null: the HTTP wire must carry it
 */
export function requestHead (opts, host, inline) {
  const o = /** @type {any} */ (opts)
  if (o.query || o.expectContinue || o.upgrade || typeof opts.path !== 'string' || opts.path[0] !== '/') return null
  const method = opts.method
  /** @type {string[]} */
  const lines = ['host', host, 'connection', 'keep-alive']
  /** @type {number | null} */
  let declared = null
  const add = (/** @type {string} */ name, /** @type {unknown} */ value) => {
    const lower = name.toLowerCase()
    if (lower === 'host') { lines[1] = String(value); return true }
    if (lower === 'content-length') {
      if (value === undefined) return true
      // as undici's Request: one, of digits only (else the HTTP wire's undici throws InvalidArgumentError)
      const text = Array.isArray(value) || value === null ? '' : String(value)
      if (declared !== null || !DIGITS.test(text)) return false
      declared = parseInt(text, 10)
      return true
    }
    if (FRAMING.has(lower)) return false
    if (Array.isArray(value)) for (const v of value) lines.push(name, String(v))
    else if (value !== undefined) lines.push(name, String(value))
    return true
  }
  const headers = /** @type {any} */ (opts.headers)
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length; i += 2) if (!add(String(headers[i]), headers[i + 1])) return null
  } else if (headers != null && typeof headers === 'object') {
    if (typeof headers[Symbol.iterator] === 'function') {
      for (const pair of headers) if (!add(String(pair[0]), pair[1])) return null
    } else {
      for (const name of Object.keys(headers)) if (!add(name, headers[name])) return null
    }
  }

  const body = /** @type {unknown} */ (opts.body)
  /** @type {RequestHead} */
  const head = { m: method, p: opts.path, h: lines, e: true }
  /** @type {Outgoing} */
  const out = { head, buffer: null, stream: null }
  /** @type {number | null} */
  let length
  if (body == null) length = 0
  else if (typeof body === 'string') {
    // ASCII (the usual JSON) posts as it is; other text as its UTF-8 bytes
    const bytes = Buffer.byteLength(body)
    length = bytes
    if (bytes <= inline) head.b = bytes === body.length ? body : Buffer.from(body).toString('latin1')
    else out.buffer = Buffer.from(body)
  } else if (ArrayBuffer.isView(body)) {
    const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength)
    length = bytes.length
    if (length <= inline) head.b = bytes.toString('latin1')
    else out.buffer = bytes
  } else if (typeof (/** @type {any} */ (body))[Symbol.asyncIterator] === 'function') {
    length = declared
    out.stream = /** @type {AsyncIterable<unknown>} */ (body)
  } else {
    return null // FormData, Blob and the like: undici's own encoders
  }
  // undici fails a known-length body whose content-length header differs, before sending anything
  // (RequestContentLengthMismatchError): the HTTP wire does the same with it
  if (declared !== null && length !== null && length > 0 && length !== declared && out.stream === null &&
    !NO_CONTENT_LENGTH.has(method)) return null
  if (length === 0 && !EXPECTS_PAYLOAD.has(method)) length = null
  if (length !== null) lines.push('content-length', String(length))
  else if (out.stream !== null) lines.push('transfer-encoding', 'chunked')
  if (out.buffer !== null || out.stream !== null) head.e = false
  return out
}
