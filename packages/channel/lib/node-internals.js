// @ts-check
// Every private part of Node's http server this package touches, one name each: the frames
// wire serves a request with Node's own IncomingMessage and ServerResponse and no socket or
// parser, doing what lib/_http_server.js does. test/node-internals.test.js checks each one.
import http from 'node:http'

/** OutgoingMessage's _storeHeader, taken before anything can replace it on a response. */
const nodeStoreHeader = /** @type {any} */ (http.OutgoingMessage.prototype)._storeHeader

/**
 * `_storeHeader`: Node renders the status line and headers into `_header` with it, and
 * decides the body's framing (chunkedEncoding) and keep-alive.
 * @param {any} res  an OutgoingMessage
 * @param {string} firstLine
 * @param {unknown} headers
 */
export function storeHeader (res, firstLine, headers) {
  nodeStoreHeader.call(res, firstLine, headers)
}

/**
 * Has `res` call `store` where Node calls _storeHeader (writeHead, the first write): an own
 * property, so it holds when a framework swaps the response's prototype (Express does).
 * @param {any} res
 * @param {(this: any, firstLine: string, headers: unknown) => void} store
 */
export function replaceStoreHeader (res, store) {
  res._storeHeader = store
}

/**
 * `_header`: the head _storeHeader rendered, as Node writes it ahead of the body.
 * @param {any} res
 * @returns {string}
 */
export function storedHead (res) {
  return res._header
}

/**
 * `chunkedEncoding`: whether Node frames the body as chunks (its write_ and end read it).
 * @param {any} res
 * @returns {boolean}
 */
export function chunkedEncoding (res) {
  return res.chunkedEncoding
}

/** @param {any} res @param {boolean} chunked */
export function setChunkedEncoding (res, chunked) {
  res.chunkedEncoding = chunked
}

/**
 * `_trailer`: the lines addTrailers() stored ("Name: value\r\n" each), that end() writes
 * after the last chunk; '' when none.
 * @param {any} res
 * @returns {string}
 */
export function storedTrailer (res) {
  return typeof res._trailer === 'string' ? res._trailer : ''
}

/**
 * `_addHeaderLines`: llhttp's headers callback fills rawHeaders and headers with it.
 * @param {any} req  an IncomingMessage
 * @param {string[]} lines  name, value, name, value, …
 */
export function addHeaderLines (req, lines) {
  req._addHeaderLines(lines, lines.length)
}

/**
 * `_dumped`: set by _dump(), once the body is being read only to be discarded.
 * @param {any} req
 * @returns {boolean}
 */
export function isDumped (req) {
  return req._dumped
}

/**
 * What Node's resOnFinish does with a request body nobody read: `_dump()` it, unless it is
 * being read (`_consuming`, set by IncomingMessage's _read) or a resume() is scheduled.
 * @param {any} req
 */
export function dumpUnread (req) {
  if (!req._consuming && !req._readableState.resumeScheduled) req._dump()
}

/**
 * The options Node's server makes each ServerResponse with (parserOnIncoming): the
 * socket's highWaterMark and the server's `rejectNonStandardBodyWrites` (a body on HEAD, 204, 304).
 * @param {http.Server} server
 * @param {number} highWaterMark
 */
export function responseOptions (server, highWaterMark) {
  return { highWaterMark, rejectNonStandardBodyWrites: /** @type {any} */ (server).rejectNonStandardBodyWrites }
}

/**
 * `_keepAliveTimeout` and `shouldKeepAlive`: set by Node's server so that _storeHeader
 * writes "Connection: keep-alive" and "Keep-Alive: timeout=…" from the server's keepAliveTimeout.
 * @param {any} res
 * @param {number} timeout  ms
 */
export function keepAlive (res, timeout) {
  res._keepAliveTimeout = timeout
  res.shouldKeepAlive = true
}

/**
 * `assignSocket`: Node's server gives a response its connection with it (the response
 * then writes to it, and flushes what it buffered).
 * @param {any} res
 * @param {object} socket
 */
export function assignSocket (res, socket) {
  res.assignSocket(socket)
}

/**
 * `detachSocket`: Node's server takes the connection back from a finished response.
 * @param {any} res
 * @param {object} socket
 */
export function detachSocket (res, socket) {
  res.detachSocket(socket)
}

/**
 * The private fields of net.Socket that ServerResponse reads and writes on its socket:
 * `_httpMessage` (the response assigned to it) and `_writableState.corked` (end() uncorks fully).
 */
export function socketPrivates () {
  return { _writableState: { corked: 0 }, _httpMessage: null }
}

/**
 * `_httpMessage`: the response Node's server assigned to a connection, null between requests.
 * @param {object} socket
 * @returns {any}
 */
export function httpMessageOf (socket) {
  return /** @type {any} */ (socket)._httpMessage
}

/** @type {symbol | undefined} */
let kNeedDrain

/**
 * OutgoingMessage's kNeedDrain (behind writableNeedDrain), found by its description.
 * @param {object} res
 * @returns {symbol | undefined}
 */
export function needDrainSymbol (res) {
  kNeedDrain ??= Object.getOwnPropertySymbols(res).find((s) => s.description === 'kNeedDrain')
  return kNeedDrain
}

/**
 * Clears kNeedDrain, as Node's socketOnDrain does when the socket drains.
 * @param {any} res
 */
export function clearNeedDrain (res) {
  const symbol = needDrainSymbol(res)
  if (symbol) res[symbol] = false
}

/**
 * `_closed`: set once the response emitted 'close' (Node's emitCloseNT emits it once).
 * @param {any} res
 * @returns {boolean}
 */
export function isClosed (res) {
  return res._closed
}

/** @param {any} res */
export function markClosed (res) {
  res._closed = true
}

/**
 * The classes a server makes its requests and responses with (createServer's
 * IncomingMessage and ServerResponse options), kept by Node on symbols of the server.
 * @param {http.Server} server
 * @returns {{ IncomingMessage: typeof http.IncomingMessage, ServerResponse: typeof http.ServerResponse }}
 */
export function serverClasses (server) {
  /** @type {any} */
  const s = server
  const symbols = Object.getOwnPropertySymbols(server)
  const incoming = symbols.find((k) => k.description === 'IncomingMessage')
  const response = symbols.find((k) => k.description === 'ServerResponse')
  return {
    IncomingMessage: (incoming && s[incoming]) || http.IncomingMessage,
    ServerResponse: (response && s[response]) || http.ServerResponse
  }
}

/**
 * `_maxRequestsPerSocket` and `maxRequestsOnConnectionReached`: what Node's server sets on each response for
 * server.maxRequestsPerSocket ("Keep-Alive: timeout=…, max=N" in the head, "Connection: close" on the
 * connection's last request), here for a request that is its connection's first (a frames-wire request).
 * @param {any} res
 * @param {number} max  > 0
 */
export function requestsLimit (res, max) {
  res._maxRequestsPerSocket = max
  res.maxRequestsOnConnectionReached = max <= 1
}

/**
 * `requireHostHeader` (createServer's option, true by default): Node's server answers an HTTP/1.1
 * request without a Host header 400.
 * @param {http.Server} server
 * @returns {boolean}
 */
export function hostRequired (server) {
  return Boolean(/** @type {any} */ (server).requireHostHeader)
}

/**
 * `connectionsCheckingInterval` (createServer's option, 30 s by default): how often Node's server looks for
 * requests past its requestTimeout.
 * @param {http.Server} server
 * @returns {number}  ms
 */
export function checkingInterval (server) {
  const every = /** @type {any} */ (server).connectionsCheckingInterval
  return Number.isFinite(every) && every > 0 ? every : 30_000
}
