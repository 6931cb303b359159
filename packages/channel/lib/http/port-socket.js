// @ts-check
// One http-port connection: a Duplex shaped enough like a net.Socket that
// node:http's server and undici's client run their real HTTP/1.1 on it. Its
// bytes travel as frames of a PortSession (session.js has the wire format).
//
// Flow control is credit based: each side may have at most `window` bytes sent
// and not yet consumed by the peer's reader, so neither side buffers without
// bound. Credit goes back in batches of half a window, so small request and
// answer pairs never cost a credit frame.
import { Duplex } from 'node:stream'
import { ChannelError, CODES, connectionReset } from '../errors.js'
import { FIN, FRAME_BYTES, OPEN, REFUSED, RESET, STRING_LIMIT } from './session.js'

export const DEFAULT_WINDOW = 1024 * 1024
/** How long a stopping worker keeps a connection its caller has not ended (see destroy). */
export const DRAIN_MS = 2000
/**
 * A caller keeps (by reference: latin1 strings, no copy) what it wrote since it last
 * heard from the peer, up to this many bytes: the request a stopping worker may refuse,
 * sent again on another worker's connection. A larger request cannot move.
 */
export const REPLAY_BYTES = 64 * 1024
/** Moves one request may make (refused by one stopping worker, then another). */
const MAX_MOVES = 3

/**
 * @typedef {object} PortSocketOptions
 * @property {string} application  the peer application, named in every error
 * @property {'client' | 'server'} side  decides the error a reset raises:
 *   a ChannelError naming the application on the caller, ECONNRESET on the callee (as TCP)
 * @property {number} [window]  bytes in flight per direction
 */

export class PortSocket extends Duplex {
  /**
   * @param {import('./session.js').PortSession} session
   * @param {number} id
   * @param {PortSocketOptions} options
   */
  constructor (session, id, { application, side, window = DEFAULT_WINDOW }) {
    super({ allowHalfOpen: true, readableHighWaterMark: 64 * 1024, writableHighWaterMark: 64 * 1024 })
    this.application = application
    this.side = side
    /** Loopback-like peer facts, for code that logs or checks them (light-my-request does the same). */
    this.remoteAddress = '127.0.0.1'
    this.remoteFamily = 'IPv4'
    this.remotePort = 0
    this.localAddress = '127.0.0.1'
    this.localPort = 0
    this.bytesRead = 0
    this.bytesWritten = 0
    this.connecting = false
    this.session = session
    this.id = id
    this.window = window
    /** Bytes we may still send before the peer returns credit. */
    this.credit = window
    /** Bytes received and not yet returned as credit. */
    this.unreturned = 0
    this.finReceived = false
    /** The end of stream is in the readable buffer (after all waiting data). */
    this.endPushed = false
    this.finSent = false
    this.referenced = true
    /** @type {{ chunks: Buffer[], callback: (err?: Error | null) => void } | null} */
    this.blocked = null
    /** @type {Buffer[]} data received and not yet in the readable buffer (a socket's kernel buffer) */
    this.waiting = []
    this.waitingBytes = 0
    this.pushQueued = false
    this.pushWaiting = this.pushWaiting.bind(this)
    /** @type {NodeJS.Timeout | null} */
    this.idleTimer = null
    /** @type {NodeJS.Timeout | undefined} */
    this.drainTimer = undefined
    this.timeout = 0
    /** Caller side: what was written since the peer last sent data (null: too much, or not kept). */
    /** @type {string[] | null} */
    this.unheard = side === 'client' ? [] : null
    this.unheardBytes = 0
    /** Caller side: times the current request moved to another worker. */
    this.moves = 0
    /** Callee side: bytes came in since this side last sent any (a request under way). */
    this.receivedSinceSent = false
    session.add(id, this)
  }

  /** @param {unknown} payload  one frame for this connection */
  onFrame (payload) {
    if (this.destroyed) return
    if (typeof payload === 'string') {
      this.onData(Buffer.from(payload, 'latin1'))
    } else if (payload instanceof Uint8Array) {
      // copied out into this thread's memory; the frame's buffer goes back to the writer (session.js)
      const data = Buffer.allocUnsafe(payload.byteLength)
      data.set(payload)
      this.session.handBack(/** @type {ArrayBuffer} */ (payload.buffer))
      this.onData(data)
    } else if (payload === FIN) {
      if (this.finReceived) return this.protocolError('a second end of stream')
      this.finReceived = true
      this.pushWaiting()
    } else if (payload === RESET) {
      this.destroy(this.resetError('reset by the peer'))
    } else if (payload === REFUSED && this.side === 'client') {
      this.move('refused')
    } else if (typeof payload === 'number') {
      if (!Number.isSafeInteger(payload) || payload <= 0 || this.credit + payload > this.window) return this.protocolError(`bad credit ${payload}`)
      this.credit += payload
      this.sendBlocked()
    } else {
      this.protocolError(`an unexpected ${typeof payload} frame`)
    }
  }

  /** @param {Buffer} data */
  onData (data) {
    const length = data.length
    if (this.finReceived) return this.protocolError('data after the end of the stream')
    if (this.side === 'client') {
      this.unheard = []
      this.unheardBytes = 0
      this.moves = 0
    } else {
      if (this.session.draining && this.session.refuseWhenDraining && !this.receivedSinceSent && !(/** @type {any} */ (this))._httpMessage) return this.refuse()
      this.receivedSinceSent = true
    }
    if (this.unreturned + length > this.window) return this.protocolError(`peer sent ${this.unreturned + length} bytes on a ${this.window}-byte window`)
    this.unreturned += length
    this.bytesRead += length
    if (this.idleTimer) this.idleTimer.refresh()
    if (this.waiting.length === 0 && length <= this.readableHighWaterMark - this.readableLength) this.push(data)
    else {
      this.waiting.push(data)
      this.waitingBytes += length
      this.fill()
    }
    this.returnCredit()
  }

  /**
   * Moves waiting data into the readable buffer up to a high-water mark, the last
   * chunk cut at the mark (a view, not a copy). A read() then returns at most a
   * mark, as one read of a TCP socket does (D-read-mark), and the room is always
   * filled: a reader waiting in read(n) for bytes beyond what is buffered gets them
   * (holding back a frame that did not fit whole left it waiting for good).
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

  /**
   * Moves waiting data into the readable buffer until it holds a high-water mark,
   * then the end of stream once all of it is in. Runs when the end arrives and
   * after the consumer took data out (schedulePush).
   */
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
  onSessionLost (err) {
    if (this.destroyed) return
    // Both ends were sent, so nothing is lost: data not yet read is still read, as
    // from a closed TCP socket, and the connection closes itself after (pushWaiting).
    if (this.finReceived && this.finSent) return
    this.destroy(this.side === 'client' || /** @type {ChannelError} */ (err).code === CODES.PROTOCOL ? err : this.resetError('connection reset: the caller is gone'))
  }

  /** @param {string} why */
  resetError (why) {
    if (this.side === 'client') return new ChannelError(this.application, CODES.CLOSED, `the connection was ${why} before the answer completed`)
    return connectionReset(`connection ${why}`)
  }

  /** @param {string} what */
  protocolError (what) {
    this.destroy(new ChannelError(this.application, CODES.PROTOCOL, `malformed http-port frame: ${what}`))
  }

  /** Returns consumed bytes to the peer once half a window has been read. */
  returnCredit () {
    if (this.finReceived) return // the peer sends nothing more
    const consumed = this.unreturned - this.readableLength - this.waitingBytes
    if (consumed >= this.window / 2) {
      this.unreturned -= consumed
      this.session.send(this.id, consumed)
    }
  }

  /**
   * The consumer wants more: waiting data goes in, but never within this call (a
   * push during _read lands in the read() that called it). Pushed all at once on
   * arrival, a lagging consumer's read() (undici reads with no size) got up to a
   * whole window joined into one chunk, a second copy of each byte; now it gets
   * about a high-water mark per read, as from a TCP socket (http-semantics test).
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
   * Credit goes back as the consumer takes data out of the buffer. Counting in
   * _read is not enough: Node calls _read again only after the next push, and a
   * peer out of credit pushes nothing, so a consumer that paused with a full
   * window (a slow downstream) stalled both sides for good.
   * @param {number} [size]
   */
  read (size) {
    const chunk = super.read(size)
    // not only from _read: Node calls it again only after a push, and none comes while data waits here
    if (this.waiting.length > 0 && this.readableLength < this.readableHighWaterMark) this.schedulePush()
    if (this.unreturned > 0 && !this.destroyed) this.returnCredit()
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
    if (!blocked || this.credit === 0 || this.destroyed) return
    const { chunks } = blocked
    let total = 0
    for (let i = 0; i < chunks.length; i++) total += chunks[i].length
    if (total === 0) chunks.length = 0 // node:http writes empty chunks (an empty body): nothing to send
    else if (this.idleTimer) this.idleTimer.refresh()
    while (total > 0 && this.credit > 0) {
      const size = Math.min(total, this.credit, FRAME_BYTES)
      this.credit -= size
      this.bytesWritten += size
      total -= size
      this.receivedSinceSent = false
      if (size <= STRING_LIMIT) {
        const text = takeLatin1(chunks, size)
        this.session.send(this.id, text)
        this.keep(text)
      } else {
        this.unheard = null
        const buffer = this.session.frameBuffer()
        const out = new Uint8Array(buffer, 0, size)
        takeBytes(chunks, out)
        this.session.send(this.id, out, buffer)
      }
    }
    if (chunks.length === 0) {
      this.blocked = null
      blocked.callback()
    }
  }

  /**
   * While its worker stops (GOAWAY sent), a plain destroy of a server-side
   * connection the peer has not ended waits for the peer to end it, at most
   * DRAIN_MS. node:http's server.close() destroys the connections it sees idle,
   * and a caller may have a request on one still in the port: destroyed, that
   * request failed (and, when the port closed first, never learnt it). The
   * caller ends its idle connections at the GOAWAY, so the wait is short.
   * @param {Error | null} [err]
   */
  destroy (err) {
    if (!err && this.side === 'server' && this.session.draining && !this.finReceived && !this.destroyed) {
      this.drainTimer ??= setTimeout(() => super.destroy(), DRAIN_MS).unref()
      return this
    }
    if (this.drainTimer) clearTimeout(this.drainTimer)
    return super.destroy(err ?? undefined)
  }

  /**
   * Caller side: keeps a string sent since the peer last spoke, while the total fits REPLAY_BYTES.
   * @param {string} text
   */
  keep (text) {
    const unheard = this.unheard
    if (unheard === null) return
    if (this.unheardBytes + text.length > Math.min(REPLAY_BYTES, this.window)) {
      this.unheard = null
      return
    }
    unheard.push(text)
    this.unheardBytes += text.length
  }

  /**
   * Callee side, while its worker stops: a request that begins now is not given to a
   * server that would not serve it (a closing Fastify answers it 503); the caller is
   * told, and may send it to another worker. The connection ends here without a FIN.
   */
  refuse () {
    this.finSent = true
    this.session.send(this.id, REFUSED)
    this.session.flush()
    super.destroy()
  }

  /**
   * Caller side: a stopping worker did not serve the current request (any method): it
   * moves, with its connection, to another worker of the application, sent again.
   * undici sees one socket throughout.
   * @param {'refused'} why
   */
  move (why) {
    const from = this.session
    const unheard = this.unheard
    const fail = () => this.destroy(new ChannelError(this.application, CODES.REFUSED, `worker stopping: the request was refused and ${unheard === null ? `is larger than ${REPLAY_BYTES} bytes, so it could not move` : 'no other worker could take it'}`))
    if (unheard === null || this.finSent || this.moves >= MAX_MOVES || !from.relocate) return fail()
    this.moves++
    // Detached now: nothing more from the old worker reaches this connection.
    from.remove(this.id)
    this.credit = 0
    from.relocate(why).then((to) => {
      if (this.destroyed) return
      if (to === null || to.closed) return fail()
      this.session = to
      this.id = to.nextId++
      to.send(this.id, OPEN)
      to.add(this.id, this)
      this.credit = this.window - this.unheardBytes
      this.unreturned = 0
      for (const text of unheard) to.send(this.id, text)
      this.sendBlocked()
    }, fail)
  }

  /** @param {(err?: Error | null) => void} callback */
  _final (callback) {
    this.finSent = true
    this.session.send(this.id, FIN)
    callback()
  }

  /**
   * @param {Error | null} err
   * @param {(err?: Error | null) => void} callback
   */
  _destroy (err, callback) {
    if (this.idleTimer) clearTimeout(this.idleTimer)
    this.idleTimer = null
    this.waiting.length = 0
    // As close(2) on a TCP socket, with or without an error: the peer reads the
    // end of the stream (node:http destroys right after writing a 400, which must
    // arrive; an undici abort reaches the server as that end). Data the peer
    // still sends to this connection is answered with RESET (session.js), as a RST.
    if (!this.finSent) this.session.send(this.id, FIN)
    this.session.remove(this.id)
    const blocked = this.blocked
    this.blocked = null
    if (blocked) blocked.callback(err ?? new ChannelError(this.application, CODES.CLOSED, 'connection destroyed while a write waited for credit'))
    callback(err)
  }

  // --- the parts of net.Socket that node:http and undici call -------------

  /**
   * Idle timeout as net.Socket's: 'timeout' after `ms` without reads or writes.
   * @param {number} ms
   * @param {() => void} [listener]
   */
  setTimeout (ms, listener) {
    this.timeout = ms
    if (this.idleTimer) clearTimeout(this.idleTimer)
    this.idleTimer = null
    if (ms > 0 && !this.destroyed) {
      this.idleTimer = setTimeout(() => this.emit('timeout'), ms).unref()
      if (listener) this.once('timeout', listener)
    } else if (listener) {
      this.removeListener('timeout', listener)
    }
    return this
  }

  setNoDelay () { return this }
  setKeepAlive () { return this }
  ref () { this.session.setReferenced(this.id, this, true); return this }
  unref () { this.session.setReferenced(this.id, this, false); return this }
  address () { return { address: this.localAddress, family: 'IPv4', port: 0 } }
}

/**
 * Removes the first `size` bytes from `chunks` (and the empty chunks after them).
 * @param {Buffer[]} chunks
 * @param {number} size
 * @param {(chunk: Buffer) => void} take
 */
function shiftBytes (chunks, size, take) {
  let left = size
  while (left > 0) {
    const chunk = chunks[0]
    if (chunk.length <= left) {
      take(chunk)
      left -= chunk.length
      chunks.shift()
    } else {
      take(chunk.subarray(0, left))
      chunks[0] = chunk.subarray(left)
      left = 0
    }
  }
  while (chunks.length > 0 && chunks[0].length === 0) chunks.shift()
}

/**
 * @param {Buffer[]} chunks
 * @param {number} size
 */
function takeLatin1 (chunks, size) {
  if (chunks.length === 1 && chunks[0].length === size) return /** @type {Buffer} */ (chunks.pop()).toString('latin1')
  let text = ''
  shiftBytes(chunks, size, (chunk) => { text += chunk.toString('latin1') })
  return text
}

/**
 * Moves the first `out.length` bytes of `chunks` into `out`.
 * @param {Buffer[]} chunks
 * @param {Uint8Array} out
 */
function takeBytes (chunks, out) {
  let offset = 0
  shiftBytes(chunks, out.length, (chunk) => { out.set(chunk, offset); offset += chunk.length })
}
