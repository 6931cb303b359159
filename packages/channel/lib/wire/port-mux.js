// @ts-check
// One MessagePort between a caller thread and a worker carries every stream between them (format: signals.js).
// A turn's frames leave in ONE postMessage at its end (setImmediate, after the poll's socket callbacks): each
// post wakes the peer thread, the cost of a call (D-one-post-per-turn). The first frames after the peer thread
// went idle leave at once instead, so an idle peer starts work while this thread goes on (D-wake, D-44-c10).
import { ChannelError, CODES } from '../errors.js'
import { FRAME_BYTES, GOAWAY, OPEN, PING, PONG, RESET } from './signals.js'
import { atWork, claimWake, idleFlag, watchLoad } from './wake.js'

/**
 * What the mux needs from a stream (an HTTP connection).
 * @typedef {object} Stream
 * @property {(payload: unknown) => void} onFrame
 * @property {(err: Error) => void} onMuxLost  the whole port is gone or broken
 * @property {boolean} referenced
 * @property {number} windowSize  bytes it may have in flight per direction
 */

/**
 * Another live mux of the same application for a stream to move to (null: none), told why:
 * 'refused' (a stopping worker did not take the request) or 'crashed'.
 * @typedef {(why: 'refused' | 'crashed') => Promise<PortMux | null>} Relocate
 */

/**
 * @typedef {object} PortMuxOptions
 * @property {string} peer  the application (or caller) at the other end, named in errors
 * @property {(id: number) => void} [accept]  callee side: the caller opened stream `id` (OPEN)
 * @property {() => void} [onClose]
 * @property {() => void} [onGoAway]  caller side: the callee is stopping
 * @property {Relocate} [relocate]  caller side: where a refused or orphaned request may go instead
 */

let liveStreams = 0

/** Streams open in this thread, both sides (for metrics, and leak tests). */
export function openStreams () {
  return liveStreams
}

/** @param {number} window */
const framesIn = (window) => Math.ceil(window / FRAME_BYTES)

export class PortMux {
  /**
   * @param {import('node:worker_threads').MessagePort} port
   * @param {PortMuxOptions} options
   */
  constructor (port, { peer, accept, onClose, onGoAway, relocate }) {
    this.port = port
    this.peer = peer
    this.accept = accept
    this.onClose = onClose
    this.onGoAway = onGoAway
    this.relocate = relocate
    /** @type {Map<number, Stream>} */
    this.streams = new Map()
    this.nextId = 1
    /** @type {unknown[]} */
    this.outbox = []
    /** @type {ArrayBuffer[]} */
    this.transfer = []
    /**
     * Frame buffers the peer handed back, at most as many as the open streams' windows can
     * have in flight: the hand-backs of a turn that filled every window come in one burst (D-spare-frames).
     * @type {ArrayBuffer[]}
     */
    this.spare = []
    this.spareLimit = 0
    this.flushQueued = false
    /** @type {Int32Array | null} the peer thread's idle flag once sent (an older peer never does) */
    this.peerIdle = null
    this.soonQueued = false
    this.flushSoon = this.flushSoon.bind(this)
    this.closed = false
    /** messages received so far: whether the peer's event loop ran since a look (stall.js) */
    this.heard = 0
    /** callee side: GOAWAY sent, the worker is stopping */
    this.draining = false
    /** closes once its last stream is removed (closeWhenIdle) */
    this.closing = false
    this.referenced = true
    /** streams that want the thread kept alive */
    this.refs = 0
    this.flush = this.flush.bind(this)
    port.on('message', (message) => this.onMessage(message))
    port.on('close', () => this.lost(new ChannelError(peer, CODES.CLOSED,
      'the connection closed before the answer completed (application stopped, crashed or restarted)')))
    this.toldIdle = false // this thread's idle flag goes with the first post
    watchLoad()
    this.updateRef()
  }

  /**
   * @param {number} id
   * @param {Stream} stream
   */
  add (id, stream) {
    const old = this.streams.get(id)
    if (!old) {
      liveStreams++
      this.spareLimit += framesIn(stream.windowSize)
    } else if (old.referenced) this.refs--
    if (stream.referenced) this.refs++
    this.streams.set(id, stream)
    this.updateRef()
  }

  /** @param {number} id */
  remove (id) {
    const stream = this.streams.get(id)
    if (stream) {
      this.streams.delete(id)
      liveStreams--
      this.spareLimit -= framesIn(stream.windowSize)
      if (stream.referenced) this.refs--
    }
    // an idle mux (undici closes idle connections) pins no frame buffers
    if (this.spare.length > this.spareLimit) this.spare.length = this.spareLimit
    this.updateRef()
    if (this.closing && this.streams.size === 0) this.close()
  }

  /** Closes once no stream is open (the upgraded connections a closed pool leaves): at once if none is. */
  closeWhenIdle () {
    this.closing = true
    if (this.streams.size === 0) this.close()
  }

  /**
   * Stream `id` now wants the thread kept alive, or no longer does: counted, not looked up
   * (undici refs a connection per request, and a scan grew with the connections).
   * @param {number} id
   * @param {Stream} stream
   * @param {boolean} referenced
   */
  setReferenced (id, stream, referenced) {
    if (stream.referenced === referenced) return
    stream.referenced = referenced
    if (this.streams.get(id) !== stream) return
    this.refs += referenced ? 1 : -1
    this.updateRef()
  }

  /** The port keeps the thread alive only while a stream wants it (undici unrefs idle sockets). */
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
    if (this.peerIdle !== null && !this.soonQueued && claimWake(this.peerIdle)) {
      this.soonQueued = true
      queueMicrotask(this.flushSoon)
    }
    if (!this.flushQueued) {
      this.flushQueued = true
      setImmediate(this.flush)
    }
  }

  /** Asks the peer to answer as soon as its event loop runs (its PONG counts as heard). */
  ping () {
    this.send(0, PING)
  }

  /** Callee side: the worker stops. Callers open no new stream here; those open finish. */
  goAway () {
    this.draining = true
    this.send(0, GOAWAY)
    this.flush() // now: the sooner callers know, the fewer requests race the stop
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

  /** What the current callback queued, now: this post wakes the idle peer thread (D-wake). */
  flushSoon () { this.soonQueued = false; this.post() }

  flush () { this.flushQueued = false; this.post() }

  post () {
    if (this.closed || this.outbox.length === 0) return
    const outbox = this.outbox
    const transfer = this.transfer
    if (!this.toldIdle) {
      this.toldIdle = true
      outbox.push(0, idleFlag())
    }
    this.outbox = []
    this.transfer = []
    try {
      this.port.postMessage(outbox, transfer)
    } catch (err) {
      // Runs from setImmediate or a microtask: a throw here would be uncaught. Every frame is a string,
      // number, plain head or buffer, so this is a bug or a detached buffer: fail the streams.
      const why = /** @type {Error} */ (err).message
      this.lost(new ChannelError(this.peer, CODES.PROTOCOL, `a message could not be posted: ${why}`))
    }
  }

  /** @param {unknown} message */
  onMessage (message) {
    if (this.closed) return
    if (!Array.isArray(message) || message.length % 2 !== 0) {
      return this.protocolError(`a message that is not frame pairs (${typeof message})`)
    }
    this.heard++
    atWork()
    let reset = false
    for (let i = 0; i < message.length && !this.closed; i += 2) {
      const id = message[i]
      const payload = message[i + 1]
      if (typeof id !== 'number') return this.protocolError(`a stream id of type ${typeof id}`)
      const stream = this.streams.get(id)
      if (stream) stream.onFrame(payload)
      else if (id === 0) this.onControl(payload)
      else if (payload === OPEN) {
        if (this.accept === undefined || !Number.isSafeInteger(id) || id <= 0) {
          return this.protocolError(`an unexpected open of stream ${id}`)
        }
        this.accept(id)
      } else if (typeof payload === 'string' || payload instanceof Uint8Array) {
        // Data for a stream closed here: the writer must learn it is gone, as from a TCP
        // RST. Other late frames (credit, end, reset) are dropped.
        if (payload instanceof Uint8Array) this.handBack(/** @type {ArrayBuffer} */ (payload.buffer))
        this.send(id, RESET)
        reset = true
      }
    }
    // At once, not at the turn's end: a stopping worker's port may close before that
    // (Watt closes its messaging), and the writer would wait for an answer forever.
    if (reset) this.flush()
  }

  /** @param {unknown} payload  a frame on stream 0 */
  onControl (payload) {
    if (payload instanceof ArrayBuffer) {
      if (payload.byteLength === FRAME_BYTES && this.spare.length < this.spareLimit) this.spare.push(payload)
    } else if (payload instanceof SharedArrayBuffer) {
      this.peerIdle = new Int32Array(payload)
    } else if (payload === GOAWAY) this.onGoAway?.()
    else if (payload === PING) this.send(0, PONG)
  }

  /** @param {string} what */
  protocolError (what) {
    this.lost(new ChannelError(this.peer, CODES.PROTOCOL, `malformed http-port message: ${what}`))
  }

  /**
   * Every stream on the mux fails with `err`; the port is closed.
   * @param {Error} err
   */
  lost (err) {
    // Also after a close() here: streams still open then must fail, not wait.
    this.close()
    for (const stream of [...this.streams.values()]) stream.onMuxLost(err)
    liveStreams -= this.streams.size
    this.streams.clear()
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
