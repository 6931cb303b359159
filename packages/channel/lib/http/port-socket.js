// @ts-check
// One http-port connection, on which node:http's server and undici's client run their real HTTP/1.1: its
// bytes travel as a stream of a PortMux (../wire/) with the core's credit window. The caller's and the
// callee's ends differ in caller-socket.js and callee-socket.js; net.Socket's face is socket-face.js.
import { ChannelError, CODES } from '../errors.js'
import { receiveBytes, sendChunks } from '../wire/data.js'
import { DEFAULT_WINDOW, FIN, FRAME_BYTES, RESET } from '../wire/signals.js'
import { StreamWindow } from '../wire/window.js'
import { SocketFace } from './socket-face.js'

export { DEFAULT_WINDOW }

/**
 * @typedef {object} PortSocketOptions
 * @property {string} application  the peer application, named in every error
 * @property {number} [window]  bytes in flight per direction
 */

export class PortSocket extends SocketFace {
  finReceived = false
  /** The end of stream is in the readable buffer (after all waiting data). */
  endPushed = false
  finSent = false
  referenced = true
  /** @type {{ chunks: Buffer[], callback: (err?: Error | null) => void } | null} */
  blocked = null
  /** Switched protocols (a 101): a raw byte stream from then on, never refused, replayed or moved. */
  upgraded = false
  /** @type {Buffer[]} data received and not yet in the readable buffer (a socket's kernel buffer) */
  waiting = []
  waitingBytes = 0
  pushQueued = false

  /**
   * @param {import('../wire/port-mux.js').PortMux} mux
   * @param {number} id
   * @param {PortSocketOptions} options
   * @param {boolean} [allowHalfOpen]  as net.Socket's: the callee's is the server's (true, node:http ends it
   *   itself); the caller's is net.connect()'s (false: the peer's end ends this side, so an upgraded
   *   connection closes once the server ends it, as a WebSocket's closing handshake waits for)
   */
  constructor (mux, id, { application, window = DEFAULT_WINDOW }, allowHalfOpen = true) {
    super({ allowHalfOpen, readableHighWaterMark: 64 * 1024, writableHighWaterMark: 64 * 1024 })
    this.application = application
    this.mux = mux
    this.id = id
    this.flow = new StreamWindow(window)
    this.windowSize = window
    this.pushWaiting = this.pushWaiting.bind(this)
    mux.add(id, this)
  }

  /** @param {unknown} payload  one frame for this connection */
  onFrame (payload) {
    if (this.destroyed) return
    const data = receiveBytes(this.mux, payload)
    if (data !== null) this.onData(data)
    else if (payload === FIN) {
      if (this.finReceived) return this.protocolError('a second end of stream')
      this.finReceived = true
      this.pushWaiting()
    } else if (payload === RESET) this.destroy(this.resetError('reset by the peer'))
    else if (typeof payload === 'number' && !this.onSignal(payload)) {
      if (!this.flow.grant(payload)) return this.protocolError(`bad credit ${payload}`)
      this.sendBlocked()
    } else if (typeof payload !== 'number') this.protocolError(`an unexpected ${typeof payload} frame`)
  }

  /**
   * A signal only one side takes (REFUSED on the caller's): true when taken.
   * @param {number} _signal
   */
  onSignal (_signal) { return false }

  /**
   * Data arrived; false when this side refuses it (a stopping worker's new request).
   * @param {Buffer} _data
   */
  admit (_data) { return true }

  /** @param {Buffer} data */
  onData (data) {
    const length = data.length
    if (this.finReceived) return this.protocolError('data after the end of the stream')
    if (!this.admit(data)) return
    if (!this.flow.receive(length)) {
      return this.protocolError(`peer sent ${this.flow.unreturned + length} bytes on a ${this.flow.size}-byte window`)
    }
    this.bytesRead += length
    this.refreshTimeout()
    if (this.waiting.length === 0 && length <= this.readableHighWaterMark - this.readableLength) this.push(data)
    else {
      this.waiting.push(data)
      this.waitingBytes += length
      this.fill()
    }
    this.returnCredit()
  }

  /**
   * Moves waiting data into the readable buffer up to a high-water mark, the last chunk cut
   * at the mark (a view, not a copy): a read() returns at most a mark, as one read of a TCP
   * socket does (D-read-mark), and a reader waiting in read(n) always gets the room filled.
   */
  fill () {
    while (this.waiting.length > 0) {
      const room = this.readableHighWaterMark - this.readableLength
      if (room <= 0) return
      const data = this.waiting[0]
      if (data.length <= room) {
        this.waiting.shift()
        this.waitingBytes -= data.length
        this.push(data)
      } else {
        this.waiting[0] = data.subarray(room)
        this.waitingBytes -= room
        this.push(data.subarray(0, room))
      }
    }
  }

  /** Waiting data into the readable buffer, then the end of stream once all of it is in. */
  pushWaiting () {
    this.pushQueued = false
    if (this.destroyed) return
    this.fill()
    if (this.waiting.length === 0 && this.finReceived && !this.endPushed) {
      this.endPushed = true
      // As a net.Socket, the connection closes (autoDestroy) once its consumer read this
      // end and its own end was sent; closed at arrival, it dropped data not yet read.
      this.push(null)
    }
    this.returnCredit()
  }

  /** @param {Error} err  the whole port is gone (crash, stop, restart) or broken */
  onMuxLost (err) {
    if (this.destroyed) return
    // Both ends were sent, so nothing is lost: data not yet read is still read, as from a
    // closed TCP socket, and the connection closes itself after (pushWaiting).
    if (this.finReceived && this.finSent) return
    this.destroy(this.lostError(err))
  }

  /**
   * What this side fails with when the port is lost.
   * @param {Error} err
   * @returns {Error}
   */
  lostError (err) { return err }

  /**
   * What a reset fails this side with.
   * @param {string} why
   * @returns {Error}
   */
  resetError (why) {
    return new ChannelError(this.application, CODES.CLOSED, `the connection was ${why} before the answer completed`)
  }

  /** @param {string} what */
  protocolError (what) {
    this.destroy(new ChannelError(this.application, CODES.PROTOCOL, `malformed http-port frame: ${what}`))
  }

  /** Returns consumed bytes to the peer once half a window has been read. */
  returnCredit () {
    if (this.finReceived) return // the peer sends nothing more
    const credit = this.flow.returnable(this.readableLength + this.waitingBytes)
    if (credit > 0) this.mux.send(this.id, credit)
  }

  /**
   * The consumer wants more: waiting data goes in, never within this call (a push during
   * _read lands in the read() that called it), about a high-water mark per read.
   */
  _read () {
    this.schedulePush()
  }

  schedulePush () {
    if (this.waiting.length === 0 || this.pushQueued) return
    this.pushQueued = true
    queueMicrotask(this.pushWaiting)
  }

  /**
   * Credit goes back as the consumer takes data out: Node calls _read again only after the
   * next push, and a peer out of credit pushes nothing (a paused consumer stalled both sides).
   * @param {number} [size]
   */
  read (size) {
    const chunk = super.read(size)
    if (this.waiting.length > 0 && this.readableLength < this.readableHighWaterMark) this.schedulePush()
    if (this.flow.unreturned > 0 && !this.destroyed) this.returnCredit()
    return chunk
  }

  /**
   * @param {Buffer} chunk
   * @param {BufferEncoding} _encoding
   * @param {(err?: Error | null) => void} callback
   */
  _write (chunk, _encoding, callback) {
    this.blocked = { chunks: [chunk], callback }
    this.sendBlocked()
  }

  /**
   * Writes buffered while corked (node:http and undici cork each message) become one frame.
   * @param {Array<{ chunk: Buffer }>} writes
   * @param {(err?: Error | null) => void} callback
   */
  _writev (writes, callback) {
    const chunks = new Array(writes.length)
    for (let i = 0; i < writes.length; i++) chunks[i] = writes[i].chunk
    this.blocked = { chunks, callback }
    this.sendBlocked()
  }

  /** Sends as much of the waiting write as the credit allows; completes it when all is out. */
  sendBlocked () {
    const blocked = this.blocked
    if (!blocked || this.flow.credit === 0 || this.destroyed) return
    const { chunks } = blocked
    let total = 0
    for (let i = 0; i < chunks.length; i++) total += chunks[i].length
    if (total === 0) chunks.length = 0 // node:http writes empty chunks (an empty body): nothing to send
    else this.refreshTimeout()
    while (total > 0 && this.flow.credit > 0) {
      const size = Math.min(total, this.flow.credit, FRAME_BYTES)
      this.flow.credit -= size
      this.bytesWritten += size
      total -= size
      this.sent(sendChunks(this.mux, this.id, chunks, size))
    }
    if (chunks.length === 0) {
      this.blocked = null
      blocked.callback()
    }
  }

  /**
   * Bytes went out: the string sent, or null when they went as a buffer.
   * @param {string | null} _text
   */
  sent (_text) {}

  /** @param {(err?: Error | null) => void} callback */
  _final (callback) {
    this.finSent = true
    this.mux.send(this.id, FIN)
    callback()
  }

  /**
   * @param {Error | null} err
   * @param {(err?: Error | null) => void} callback
   */
  _destroy (err, callback) {
    this.stopTimeout()
    this.waiting.length = 0
    // As close(2) on a TCP socket, with or without an error: the peer reads the end of the
    // stream (a 400 written just before Node destroys the socket must arrive; an undici
    // abort reaches the server as that end). Late data to it is answered with RESET (port-mux.js).
    if (!this.finSent) this.mux.send(this.id, FIN)
    this.mux.remove(this.id)
    const blocked = this.blocked
    this.blocked = null
    if (blocked) {
      blocked.callback(err ?? new ChannelError(this.application, CODES.CLOSED,
        'connection destroyed while a write waited for credit'))
    }
    callback(err)
  }

  // net.Socket's ref() and unref(): the port keeps the thread alive while a connection wants it
  ref () { this.mux.setReferenced(this.id, this, true); return this }
  unref () { this.mux.setReferenced(this.id, this, false); return this }
}
