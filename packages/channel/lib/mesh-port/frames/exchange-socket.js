// @ts-check
// The socket a frames-wire exchange is to its ServerResponse: net.Socket's face, and the writes. The head
// Node stored (status, every header line, Date and keep-alive included) leaves as one frame, the body as
// data frames as credit allows, trailers as one frame.
import { EventEmitter } from 'node:events'
import { ChannelError, CODES } from '../../errors.js'
import {
  chunkedEncoding, clearNeedDrain, replaceStoreHeader, setChunkedEncoding, socketPrivates, storedHead,
  storedTrailer, storeHeader
} from '../../node-internals.js'
import { LOOPBACK, loopbackAddress } from '../../http/socket-face.js'
import { sendChunks } from '../../wire/data.js'
import { FRAME_BYTES, STRING_LIMIT } from '../../wire/signals.js'
import { StreamWindow } from '../../wire/window.js'
import { headerLines, rawHead } from './raw-head.js'

const EXCHANGE = Symbol('frames exchange')
const EMPTY = Buffer.alloc(0)

/**
 * @typedef {object} PendingWrite  a write waiting for credit
 * @property {string | Buffer} data  what of it is not sent yet
 * @property {((err?: Error | null) => void) | null} callback
 */

/**
 * Replaces ServerResponse's _storeHeader on each response (an own property: Express swaps the
 * response's prototype), so the head goes out as a frame and the body unchunked whatever the head says.
 * @this {any}
 * @param {string} firstLine
 * @param {unknown} headers
 */
function captureHead (firstLine, headers) {
  storeHeader(this, firstLine, headers)
  const socket = /** @type {ExchangeSocket} */ (this.socket ?? this[EXCHANGE])
  socket.head(this)
}

export class ExchangeSocket extends EventEmitter {
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
    /** @type {any} */
    this.res = null
    /** the head was captured and Node has not yet written it (its bytes are skipped) */
    this.headLength = -1
    this.chunked = false
    this.answered = false
    /** the answer was written raw to this socket (rawAnswer) */
    this.rawAnswered = false
    /** @type {PendingWrite[]} */
    this.pending = []
    this.pendingBytes = 0
    /** @type {NodeJS.Timeout | null} net.Socket's idle timer (setTimeout) */
    this.idleTimer = null
  }

  get writableLength () { return this.pendingBytes }

  /**
   * The response this socket carries: its head is captured as Node stores it.
   * @param {any} res
   */
  carry (res) {
    replaceStoreHeader(res, captureHead)
    res[EXCHANGE] = this
    this.res = res
  }

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
      if (callback) {
        process.nextTick(callback, new ChannelError(this.mux.peer, CODES.CLOSED, 'write after the exchange closed'))
      }
      return false
    }
    this.refreshTimeout()
    if (!this.answered) {
      const body = this.rawAnswer(data)
      if (body === null) {
        // a 1xx head, sent as a frame (rawAnswer), or anything else written before the answer: dropped
        if (callback) process.nextTick(callback)
        return true
      }
      data = body
      encoding = 'latin1'
    }
    if (this.headLength >= 0 && typeof data === 'string') {
      data = data.slice(this.headLength)
      this.headLength = -1
    }
    /** @type {string | Buffer} */
    let chunk
    if (typeof data === 'string') {
      const utf8 = encoding === undefined || encoding === 'utf8' || encoding === 'utf-8'
      const ascii = utf8 && Buffer.byteLength(data) === data.length
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

  /**
   * A head written raw to this socket, not through the response, leaves as a frame: a 1xx head (writeContinue(),
   * writeProcessing(), writeEarlyHints()), which the caller takes as undici does over HTTP; or a final answer (what
   * a 'clientError' listener writes, Fastify's among them), the rest of it its body, which ends when the exchange
   * closes (as a TCP peer reads to the close). Null for anything but a final answer.
   * @param {string | Uint8Array} data
   * @returns {string | null}  the body part (latin1)
   */
  rawAnswer (data) {
    const head = rawHead(typeof data === 'string' ? data : Buffer.from(data).toString('latin1'))
    if (head === null) return null
    this.mux.send(this.id, head.frame)
    if (head.frame.s < 200) return null
    this.answered = true
    this.rawAnswered = true
    return head.rest
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
      const frameLimit = typeof data === 'string' && data.length <= STRING_LIMIT ? STRING_LIMIT : FRAME_BYTES
      const n = Math.min(data.length, this.flow.credit, frameLimit)
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

  /** The trailers res.addTrailers() stored, as one frame; a body not sent chunked has none. */
  sendTrailers () {
    if (!this.chunked) return
    const text = storedTrailer(this.res)
    if (text !== '') this.mux.send(this.id, { t: headerLines(text) })
  }

  /**
   * net.Socket's end(): after a raw answer (a 'clientError' listener's `socket.end('HTTP/1.1 400 …')`), it
   * closes the exchange; otherwise Node's response ends the exchange, not this.
   * @param {string | Uint8Array | (() => void)} [data]
   * @param {BufferEncoding} [encoding]
   */
  end (data, encoding) {
    if (data !== undefined && typeof data !== 'function') this.write(data, encoding)
    if (this.rawAnswered) this.destroySoon()
    return this
  }

  /** Closes the exchange (Exchange's). */
  destroySoon () { return this }
  cork () {}
  uncork () {}
  /**
   * net.Socket's idle timeout (server.timeout, req.setTimeout() and res.setTimeout() set it): onIdle() after
   * `ms` with no byte in or out.
   * @param {number} ms
   * @param {() => void} [callback]
   */
  setTimeout (ms, callback) {
    this.stopTimeout()
    if (ms > 0 && !this.destroyed) {
      this.idleTimer = setTimeout(() => this.onIdle(), ms).unref()
      if (callback) this.once('timeout', callback)
    } else if (callback) this.removeListener('timeout', callback)
    return this
  }

  /** Bytes went in or out: the idle timeout starts over (refresh() re-arms one that fired, as net's). */
  refreshTimeout () {
    if (this.idleTimer !== null) this.idleTimer.refresh()
  }

  stopTimeout () {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer)
    this.idleTimer = null
  }

  /** The idle timeout fired. */
  onIdle () { this.emit('timeout') }

  setNoDelay () { return this }
  setKeepAlive () { return this }
  ref () { return this }
  unref () { return this }
  address () { return loopbackAddress() }
}
