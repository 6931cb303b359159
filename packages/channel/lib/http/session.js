// @ts-check
// One MessagePort between a caller thread and an application carries every
// http-port connection between them. Frames written in one event-loop turn, on
// any connection, leave in ONE postMessage at the end of the turn (setImmediate,
// after the poll phase has run every socket callback of the turn): each post
// wakes the peer thread, the cost of a call (D-one-post-per-turn). At low
// concurrency it also batches a turn's requests into one convoy (D-44-c10).
//
// A message is a flat array of (connection id, payload) pairs:
//   string      data (latin1, one byte per char: the cheapest thing to post)
//   Uint8Array  data above STRING_LIMIT, at most FRAME_BYTES, in a transferred
//               FRAME_BYTES buffer that the reader copies out and hands back (id 0)
//   ArrayBuffer (connection id 0) a frame buffer handed back, for the writer to fill again
//   n > 0       credit: the peer's reader consumed n bytes
//   FIN         the sender ended its side of that connection (half-close)
//   RESET       that connection is gone here: data sent to it went nowhere (a TCP RST)
//   OPEN        (caller to callee) a new connection with this id
//   GOAWAY      (callee to caller, connection id 0) the worker is stopping: open no
//               new connection; those open finish (HTTP/2's GOAWAY, for the drop-in)
//   PING, PONG  (connection id 0) "answer if your event loop runs", and the answer:
//               the drop-in asks a worker that went silent (route.js)
//   REFUSED     (callee to caller) a request that began after GOAWAY was not given to
//               the server: the caller may send it to another worker (HTTP/2's
//               REFUSED_STREAM; port-socket.js moves the connection)
// A closed port (crash, stop, restart, terminate) resets every connection on it.
import { ChannelError, CODES } from '../errors.js'

export const FIN = -1
export const RESET = -2
export const OPEN = -3
export const GOAWAY = -4
export const PING = -5
export const PONG = -6
export const REFUSED = -7
/**
 * Above this, data travels as a transferred buffer: a string is copied four times,
 * twice onto a V8 heap where it waits for a GC (D-string-limit).
 */
export const STRING_LIMIT = 16 * 1024
/**
 * Data above STRING_LIMIT travels in frames of at most this many bytes, each in a buffer
 * of exactly this size that the reader copies out of and hands back at once, for the
 * writer to fill again: no fresh allocation per frame for the reader's GC (D-frame-handback).
 */
export const FRAME_BYTES = 64 * 1024

/**
 * What a session needs from a connection.
 * @typedef {object} SessionSocket
 * @property {(payload: unknown) => void} onFrame
 * @property {(err: Error) => void} onSessionLost
 * @property {boolean} referenced
 * @property {number} window  bytes it may have in flight per direction
 */

/**
 * Another live session of the same application for a connection to move to (null: none),
 * told why: 'refused' (a stopping worker did not take the request) or 'crashed'.
 * @typedef {(why: 'refused' | 'crashed') => Promise<PortSession | null>} Relocate
 */

let liveConnections = 0

/**
 * When a turn's frames leave: 'turn' (default) in one post at its end; 'callback' at the
 * end of each callback, which breaks a low-concurrency convoy for more CPU per call (D-44-c10).
 * @typedef {'turn' | 'callback'} Flush
 */

/** The flush the handshake meta asks for: 'callback' only when named, else the default. @param {unknown} meta @returns {Flush} */
export const flushOf = (meta) => (/** @type {{ flush?: unknown }} */ (meta)?.flush === 'callback' ? 'callback' : 'turn')

/** @param {number} window */
const framesIn = (window) => Math.ceil(window / FRAME_BYTES)

/** http-port connections open in this thread, both sides (for metrics, and leak tests). */
export function openConnections () {
  return liveConnections
}

export class PortSession {
  /**
   * @param {import('node:worker_threads').MessagePort} port
   * @param {{ application: string, onOpen?: (id: number) => void, onClose?: () => void, onGoAway?: () => void, relocate?: Relocate, flush?: Flush }} options
   *   onOpen: callee side, a caller opened connection `id`; onGoAway: caller side, the callee is stopping;
   *   relocate: caller side, where a connection whose request this worker did not serve may go instead
   */
  constructor (port, { application, onOpen, onClose, onGoAway, relocate, flush = 'turn' }) {
    this.port = port
    this.application = application
    this.onOpen = onOpen
    this.onClose = onClose
    this.onGoAway = onGoAway
    this.relocate = relocate
    /** @type {Map<number, SessionSocket>} */
    this.sockets = new Map()
    this.nextId = 1
    /** @type {unknown[]} */
    this.outbox = []
    /** @type {ArrayBuffer[]} */
    this.transfer = []
    /**
     * Frame buffers the peer handed back, at most as many as the open connections'
     * windows can have in flight (`spareLimit`): the hand-backs of a turn that filled
     * every window return in one burst (D-spare-frames).
     * @type {ArrayBuffer[]}
     */
    this.spare = []
    this.spareLimit = 0
    this.flushQueued = false
    this.schedule = flush === 'callback' ? queueMicrotask : setImmediate
    this.closed = false
    /** messages received so far: whether the peer's event loop ran since a look (route.js) */
    this.heard = 0
    /** Callee side: GOAWAY sent, the worker is stopping (port-socket.js keeps connections for late requests). */
    this.draining = false
    /** Callee side: while draining, refuse requests that begin (serve.js) */
    this.refuseWhenDraining = false
    this.referenced = true
    /** connections that want the thread kept alive */
    this.refs = 0
    this.flush = this.flush.bind(this)
    port.on('message', (message) => this.onMessage(message))
    port.on('close', () => this.lost(new ChannelError(application, CODES.CLOSED, 'the connection closed before the answer completed (application stopped, crashed or restarted)')))
    this.updateRef()
  }

  /**
   * @param {number} id
   * @param {SessionSocket} socket
   */
  add (id, socket) {
    const old = this.sockets.get(id)
    if (!old) {
      liveConnections++
      this.spareLimit += framesIn(socket.window)
    } else if (old.referenced) this.refs--
    if (socket.referenced) this.refs++
    this.sockets.set(id, socket)
    this.updateRef()
  }

  /** @param {number} id */
  remove (id) {
    const socket = this.sockets.get(id)
    if (socket) {
      this.sockets.delete(id)
      liveConnections--
      this.spareLimit -= framesIn(socket.window)
      if (socket.referenced) this.refs--
    }
    // what the open connections cannot use is left to the GC; an idle session
    // (undici closes idle connections) pins no frame buffers
    if (this.spare.length > this.spareLimit) this.spare.length = this.spareLimit
    this.updateRef()
  }

  /**
   * Connection `id` now wants the thread kept alive, or no longer does. Counted, not
   * looked up: undici refs a connection for each request and unrefs it when idle, and
   * a scan of the open connections at each of those grew with them (16 per service
   * after a `seed` load). The throughput change was within the bench's noise.
   * @param {number} id
   * @param {SessionSocket} socket
   * @param {boolean} referenced
   */
  setReferenced (id, socket, referenced) {
    if (socket.referenced === referenced) return
    socket.referenced = referenced
    if (this.sockets.get(id) !== socket) return
    this.refs += referenced ? 1 : -1
    this.updateRef()
  }

  /** The port keeps the thread alive only while a connection wants it (undici unrefs idle sockets). */
  updateRef () {
    const wanted = this.refs > 0
    if (wanted === this.referenced || this.closed) return
    this.referenced = wanted
    if (wanted) this.port.ref()
    else this.port.unref()
  }

  /**
   * Queues one frame; the turn's frames leave together.
   * @param {number} id
   * @param {unknown} payload
   * @param {ArrayBuffer} [transfer]
   */
  send (id, payload, transfer) {
    if (this.closed) return
    this.outbox.push(id, payload)
    if (transfer) this.transfer.push(transfer)
    if (!this.flushQueued) {
      this.flushQueued = true
      this.schedule(this.flush)
    }
  }

  /** Asks the peer to answer as soon as its event loop runs (it answers PONG, which counts as heard). */
  ping () {
    this.send(0, PING)
  }

  /** A FRAME_BYTES buffer to write one data frame into: one the peer handed back when there is one. */
  frameBuffer () {
    return this.spare.pop() ?? Buffer.allocUnsafeSlow(FRAME_BYTES).buffer
  }

  /**
   * Hands a received frame's buffer back to the peer, once its bytes were copied out.
   * @param {ArrayBuffer} buffer
   */
  handBack (buffer) {
    if (buffer.byteLength === FRAME_BYTES) this.send(0, buffer, buffer)
  }

  flush () {
    this.flushQueued = false
    if (this.closed || this.outbox.length === 0) return
    const outbox = this.outbox
    const transfer = this.transfer
    this.outbox = []
    this.transfer = []
    this.port.postMessage(outbox, transfer)
  }

  /** @param {unknown} message */
  onMessage (message) {
    if (this.closed) return
    if (!Array.isArray(message) || message.length % 2 !== 0) return this.protocolError(`a message that is not frame pairs (${typeof message})`)
    this.heard++
    let reset = false
    for (let i = 0; i < message.length && !this.closed; i += 2) {
      const id = message[i]
      const payload = message[i + 1]
      if (typeof id !== 'number') return this.protocolError(`a connection id of type ${typeof id}`)
      const socket = this.sockets.get(id)
      if (socket) socket.onFrame(payload)
      else if (id === 0 && payload instanceof ArrayBuffer) {
        if (payload.byteLength === FRAME_BYTES && this.spare.length < this.spareLimit) this.spare.push(payload)
      } else if (id === 0 && payload === GOAWAY) this.onGoAway?.()
      else if (id === 0 && payload === PING) this.send(0, PONG)
      else if (payload === OPEN) {
        if (!this.onOpen || !Number.isSafeInteger(id) || id <= 0) return this.protocolError(`an unexpected open of connection ${id}`)
        this.onOpen(id)
      } else if (typeof payload === 'string' || payload instanceof Uint8Array) {
        // Data for a connection closed here: the writer must learn it is gone, as from
        // a TCP RST. Other late frames (credit, end, reset) are dropped.
        if (payload instanceof Uint8Array) this.handBack(/** @type {ArrayBuffer} */ (payload.buffer))
        this.send(id, RESET)
        reset = true
      }
    }
    // At once, not at the turn's end: a stopping worker's port may close before that
    // (Watt closes its messaging), and the writer would wait for an answer forever.
    if (reset) this.flush()
  }

  /** @param {string} what */
  protocolError (what) {
    this.lost(new ChannelError(this.application, CODES.PROTOCOL, `malformed http-port message: ${what}`))
  }

  /**
   * Every connection on the session fails with `err`; the port is closed.
   * @param {Error} err
   */
  lost (err) {
    // Also after a close() here: connections still open then must fail, not wait.
    this.close()
    for (const socket of [...this.sockets.values()]) socket.onSessionLost(err)
    liveConnections -= this.sockets.size
    this.sockets.clear()
    this.refs = 0
    this.spareLimit = 0
    this.spare.length = 0
  }

  close () {
    if (this.closed) return
    this.flush()
    this.closed = true
    this.port.close()
    this.onClose?.()
  }
}
