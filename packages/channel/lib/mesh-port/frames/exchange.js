// @ts-check
// Callee side of the frames wire: one request, served by the app's own
// http.Server through Node's own IncomingMessage and ServerResponse, with no
// parser. The request's head fills an IncomingMessage as llhttp's callbacks would
// (method, url, raw headers; body pushed as it arrives), 'request' is emitted on
// the server, and the ServerResponse writes to this object as to its socket: the
// head Node stored (status, every header line it wrote, Date and keep-alive
// included) leaves as one frame, the body as data frames, trailers as one frame.
// What Node's server does around a request (parserOnIncoming, resOnFinish) is done
// here in the same order; its per-socket timeouts are not (the caller's own apply).
import { channel } from 'node:diagnostics_channel'
import { EventEmitter } from 'node:events'
/** @import http from 'node:http' */
import { ChannelError, CODES, connectionReset } from '../../errors.js'
import {
  addHeaderLines, assignSocket, chunkedEncoding, clearNeedDrain, detachSocket, dumpUnread, isClosed, isDumped,
  keepAlive, markClosed, replaceStoreHeader, responseOptions, setChunkedEncoding, socketPrivates, storedHead,
  storedTrailer, storeHeader
} from '../../node-internals.js'
import { LOOPBACK, loopbackAddress } from '../../http/socket-face.js'
import { receiveBytes, sendChunks } from '../../wire/data.js'
import { FIN, FRAME_BYTES, RESET, STRING_LIMIT } from '../../wire/signals.js'
import { StreamWindow } from '../../wire/window.js'

/**
 * Replaces ServerResponse's _storeHeader on each response (an own property: Express
 * swaps the response's prototype), so the head goes out as a frame and the body is
 * written without chunked framing whatever the head says.
 * @this {any}
 * @param {string} firstLine
 * @param {unknown} headers
 */
function captureHead (firstLine, headers) {
  storeHeader(this, firstLine, headers)
  const exchange = /** @type {Exchange} */ (this.socket ?? this[EXCHANGE])
  exchange.head(this)
}

const EXCHANGE = Symbol('frames exchange')
const EMPTY = Buffer.alloc(0)
/** What Node's server publishes per request (metrics and tracing subscribe), published here alike. */
const requestStart = channel('http.server.request.start')
const responseFinish = channel('http.server.response.finish')

export class Exchange extends EventEmitter {
  /**
   * @param {import('../../wire/port-mux.js').PortMux} mux
   * @param {number} id
   * @param {number} window
   */
  constructor (mux, id, window) {
    super()
    this.mux = mux
    this.id = id
    this.windowSize = window
    this.flow = new StreamWindow(window)
    this.referenced = true
    /** net.Socket's face, for code that reads it */
    Object.assign(this, LOOPBACK)
    this.readable = true
    this.writable = true
    this.destroyed = false
    this.connecting = false
    this.encrypted = false
    this.readableHighWaterMark = 64 * 1024
    this.writableHighWaterMark = 64 * 1024
    this.writableCorked = 0
    // the private fields of net.Socket that ServerResponse reads and writes on its socket
    Object.assign(this, socketPrivates())
    this.bytesRead = 0
    this.bytesWritten = 0
    /** @type {http.Server | null} */
    this.server = null
    /** @type {any} */
    this.req = null
    /** @type {any} */
    this.res = null
    this.paused = false
    /** the head was captured and Node has not yet written it (its bytes are skipped) */
    this.headLength = -1
    this.chunked = false
    this.answered = false
    this.ended = false
    /** @type {{ data: string | Buffer, callback: ((err?: Error | null) => void) | null }[]} writes waiting for credit */
    this.pending = []
    this.pendingBytes = 0
  }

  get writableLength () { return this.pendingBytes }

  /**
   * The request's first frame: serve it.
   * @param {http.Server} server
   * @param {import('./request-head.js').RequestHead} head
   * @param {{ IncomingMessage: typeof http.IncomingMessage, ServerResponse: typeof http.ServerResponse }} classes
   */
  serve (server, head, classes) {
    const req = /** @type {any} */ (new classes.IncomingMessage(/** @type {any} */ (this)))
    req.httpVersionMajor = 1
    req.httpVersionMinor = 1
    req.httpVersion = '1.1'
    req.url = head.p
    req.method = head.m
    req.upgrade = false
    addHeaderLines(req, head.h)
    this.req = req
    const options = responseOptions(server, this.writableHighWaterMark)
    const res = /** @type {any} */ (new (/** @type {any} */ (classes.ServerResponse))(req, options))
    keepAlive(res, server.keepAliveTimeout)
    replaceStoreHeader(res, captureHead)
    res[EXCHANGE] = this
    this.res = res
    assignSocket(res, this)
    res.on('finish', () => this.finished())
    if (typeof head.b === 'string' && head.b.length > 0) this.push(Buffer.from(head.b, 'latin1'))
    if (head.e) this.endRequest()
    this.server = server
    if (requestStart.hasSubscribers) requestStart.publish({ request: req, response: res, socket: this, server })
    server.emit('request', req, res)
  }

  /** @param {unknown} payload  a frame after the head */
  onFrame (payload) {
    if (this.destroyed) return
    const data = receiveBytes(this.mux, payload)
    if (data !== null) return this.push(data)
    if (payload === FIN) return this.endRequest()
    if (payload === RESET) return this.reset()
    if (typeof payload === 'number') {
      if (!this.flow.grant(payload)) return this.reset()
      return this.sendPending()
    }
    // the head itself (serve() ran on it) and anything unknown: nothing to do
  }

  /** @param {Buffer} data  request body */
  push (data) {
    const req = this.req
    this.bytesRead += data.length
    if (!this.flow.receive(data.length)) return this.reset() // a caller that overruns its window
    if (isDumped(req) || req.destroyed) return this.returnCredit(true)
    if (!req.push(data)) this.paused = true
    else this.returnCredit()
  }

  /** The request's body ended (FIN, or a head that carried it all). */
  endRequest () {
    const req = this.req
    if (req.complete) return
    req.complete = true
    this.readable = false
    req.push(null)
  }

  /** @param {boolean} [eager]  every consumed byte now, not half a window */
  returnCredit (eager = false) {
    if (this.ended) return
    const credit = this.flow.returnable(0, eager)
    if (credit > 0) this.mux.send(this.id, credit)
  }

  /** Called by IncomingMessage's _read (readStart) when its reader wants more. */
  resume () {
    if (!this.paused) return this
    this.paused = false
    this.returnCredit(true)
    return this
  }

  pause () { return this }

  /**
   * The head Node just stored: out as a frame, and the body unframed from now on.
   * @param {any} res
   */
  head (res) {
    const text = storedHead(res)
    this.headLength = text.length
    this.chunked = chunkedEncoding(res)
    setChunkedEncoding(res, false)
    /** @type {string[]} */
    const lines = []
    let at = text.indexOf('\r\n') + 2
    while (at < text.length - 2) {
      const eol = text.indexOf('\r\n', at)
      const colon = text.indexOf(':', at)
      lines.push(text.slice(at, colon), text.slice(colon + 2, eol))
      at = eol + 2
    }
    this.answered = true
    this.mux.send(this.id, { s: res.statusCode, r: res.statusMessage, h: lines })
  }

  /**
   * ServerResponse's writes (head and body; Node's informational heads too).
   * @param {string | Uint8Array} data
   * @param {BufferEncoding | ((err?: Error | null) => void)} [encoding]
   * @param {(err?: Error | null) => void} [callback]
   */
  write (data, encoding, callback) {
    if (typeof encoding === 'function') { callback = encoding; encoding = undefined }
    if (this.destroyed) {
      if (callback) process.nextTick(callback, new ChannelError(this.mux.peer, CODES.CLOSED, 'write after the exchange closed'))
      return false
    }
    if (!this.answered) {
      // 100 Continue, 103 Early Hints: the frames wire carries final answers only
      if (callback) process.nextTick(callback)
      return true
    }
    if (this.headLength >= 0 && typeof data === 'string') {
      data = data.slice(this.headLength)
      this.headLength = -1
    }
    /** @type {string | Buffer} */
    let chunk
    if (typeof data === 'string') {
      const ascii = (encoding === undefined || encoding === 'utf8' || encoding === 'utf-8') && Buffer.byteLength(data) === data.length
      chunk = ascii || encoding === 'latin1' || encoding === 'binary' ? data : Buffer.from(data, encoding)
    } else chunk = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    if (chunk.length === 0 && this.pending.length === 0) {
      if (callback) process.nextTick(callback)
      return true
    }
    // an empty write (end()'s) waits behind the others: its callback is the response's 'finish'
    this.bytesWritten += chunk.length
    this.pending.push({ data: chunk, callback: callback ?? null })
    this.pendingBytes += chunk.length
    this.sendPending()
    return this.pending.length === 0
  }

  /** Sends waiting writes as far as credit goes; their callbacks run once they are sent. */
  sendPending () {
    const pending = this.pending
    while (pending.length > 0) {
      const item = pending[0]
      const data = item.data
      if (data.length === 0) {
        pending.shift()
        if (item.callback) process.nextTick(item.callback)
        continue
      }
      if (this.flow.credit <= 0) break
      const n = Math.min(data.length, this.flow.credit, typeof data === 'string' && data.length <= STRING_LIMIT ? STRING_LIMIT : FRAME_BYTES)
      this.flow.credit -= n
      this.pendingBytes -= n
      // a short string goes as it is; anything else as bytes, through the wire core
      if (typeof data === 'string' && n === data.length) this.mux.send(this.id, data)
      else {
        const chunks = [typeof data === 'string' ? Buffer.from(data, 'latin1') : data]
        sendChunks(this.mux, this.id, chunks, n)
        item.data = chunks[0] ?? EMPTY
      }
      if (n === data.length) {
        pending.shift()
        if (item.callback) process.nextTick(item.callback)
      }
    }
    if (pending.length === 0 && this.flow.credit > 0) this.drained()
  }

  drained () {
    const res = this.res
    if (res === null || !res.writableNeedDrain) return
    clearNeedDrain(res)
    res.emit('drain')
  }

  /** The response ended (its last write sent or waiting for credit): trailers, FIN, then what resOnFinish does. */
  finished () {
    const res = this.res
    const req = this.req
    this.ended = true
    if (responseFinish.hasSubscribers) responseFinish.publish({ request: req, response: res, socket: this, server: this.server })
    if (this.chunked && storedTrailer(res) !== '') this.mux.send(this.id, { t: trailerLines(storedTrailer(res)) })
    this.mux.send(this.id, FIN)
    this.mux.remove(this.id)
    dumpUnread(req)
    detachSocket(res, this)
    process.nextTick(emitClose, res)
  }

  /** The caller left (abort, timeout) or its thread did: as a TCP reset on the server. */
  reset () {
    this.destroy(connectionReset('aborted'))
  }

  /** @param {Error} [err] */
  destroy (err) {
    if (this.destroyed) return this
    this.destroyed = true
    this.readable = false
    this.writable = false
    if (!this.ended) {
      this.mux.send(this.id, RESET)
      this.mux.remove(this.id)
    }
    // as Node's abortIncoming: a request whose answer did not finish is destroyed ('aborted', 'close')
    const req = this.req
    if (req !== null && !req.destroyed && !this.ended) req.destroy(err)
    process.nextTick(() => this.emit('close', err !== undefined))
    return this
  }

  destroySoon () { return this.destroy() }
  end () { return this }
  cork () {}
  uncork () {}
  /** @param {number} _ms @param {() => void} [callback] */
  setTimeout (_ms, callback) { if (callback) this.once('timeout', callback); return this }
  setNoDelay () { return this }
  setKeepAlive () { return this }
  ref () { return this }
  unref () { return this }
  address () { return loopbackAddress() }

  /** @param {Error} _err  the caller's port is gone */
  onMuxLost (_err) {
    this.ended = true // no frame can go back
    this.reset()
  }
}

/** @param {any} res */
function emitClose (res) {
  if (isClosed(res)) return
  res.destroyed = true
  markClosed(res)
  res.emit('close')
}

/**
 * `res.addTrailers()` as Node stored it ("Name: value\r\n" lines), as name/value pairs.
 * @param {string} text
 */
function trailerLines (text) {
  /** @type {string[]} */
  const lines = []
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) lines.push(line.slice(0, colon), line.slice(colon + 1).trim())
  }
  return lines
}
