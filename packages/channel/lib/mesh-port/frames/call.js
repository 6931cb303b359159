// @ts-check
// Caller side of the frames wire: one request as a stream of a link's PortMux
// (ids shared with the HTTP wire's connections), whose answer feeds undici's
// handler callbacks (the old API: onConnect, onHeaders, onData, onComplete,
// onError) straight from frames, with no HTTP parser on either side.
//
// Frames of a call (../../wire/ carries them, one postMessage per turn):
//   caller → callee  RequestHead object (request-head.js), body data, FIN, credit, RESET
//   callee → caller  { s, r, h } the answer's head, body data, { t } trailers, FIN,
//                    credit, RESET (the server dropped it), REFUSED (a stopping worker)
// Body data and flow control are the wire core's, as for the HTTP wire (wire/data.js,
// wire/window.js).
import { errors } from 'undici'
import { ChannelError, CODES } from '../../errors.js'
import { receiveBytes, sendChunks } from '../../wire/data.js'
import { FIN, FRAME_BYTES, REFUSED, REPLAY_BYTES, RESET } from '../../wire/signals.js'
import { StreamWindow } from '../../wire/window.js'

/**
 * @typedef {object} CallOptions
 * @property {string} application
 * @property {number} window
 */

/**
 * A refused request's failure.
 * @param {string} application
 * @param {string} [why]
 */
const REFUSAL = (application, why = 'no other worker could take it') => new ChannelError(application, CODES.REFUSED, `worker stopping: the request was refused and ${why}`)

export class FramesCall {
  /**
   * @param {import('../../wire/port-mux.js').PortMux} mux
   * @param {import('../pool-handler.js').OldApiView} handler
   * @param {import('./request-head.js').Outgoing} outgoing
   * @param {CallOptions} options
   * @param {import('./client.js').FramesClient | null} [client]  where a refused request asks to move
   * @param {number} [moves]  times this request moved already
   */
  constructor (mux, handler, outgoing, { application, window }, client = null, moves = 0) {
    this.mux = mux
    this.client = client
    this.moves = moves
    /** refused, and waiting for another worker: an abort meanwhile ends it (client.js) */
    this.moving = false
    /** @type {Error | null} */
    this.abortedWhileMoving = null
    /** the body is being sent (pump) */
    this.pumping = false
    /** refused while its body was being sent: the rest is kept, not sent */
    this.collecting = false
    /** @type {Buffer[] | null} body bytes sent before any answer (null: too many, or answered) */
    this.kept = []
    this.keptBytes = 0
    this.handler = handler
    this.outgoing = outgoing
    this.application = application
    this.windowSize = window
    this.flow = new StreamWindow(window)
    this.referenced = true
    this.id = 0
    this.done = false
    this.paused = false
    this.answered = false
    /** @type {unknown[]} frames held while the handler is paused */
    this.held = []
    /** @type {(() => void) | null} the body pump waiting for credit */
    this.wake = null
    /** @type {string[] | undefined} the answer's trailers, once it completed */
    this.trailers = undefined
    this.resume = this.resume.bind(this)
  }

  start () {
    const { mux, handler } = this
    // undici's client passes no context (core/request.js onConnect)
    handler.onConnect((reason) => this.abort(reason), /** @type {any} */ (undefined))
    if (this.done) return
    if (mux.closed) {
      return this.fail(new ChannelError(this.application, CODES.CLOSED,
        'the connection closed before the answer completed (application stopped, crashed or restarted)'))
    }
    this.id = mux.nextId++
    mux.add(this.id, this)
    this.client?.started()
    mux.send(this.id, this.outgoing.head)
    const { buffer, stream } = this.outgoing
    if (buffer !== null) this.pump([buffer])
    else if (stream !== null) {
      // A Readable stays open when the answer completes before its end (the server did not
      // read it all): only an abort destroys it, as undici does.
      const readable = /** @type {any} */ (stream)
      this.pump(typeof readable.iterator === 'function' ? readable.iterator({ destroyOnReturn: false }) : stream)
    }
  }

  /**
   * Sends the request body as credit allows, then FIN.
   * @param {Iterable<unknown> | AsyncIterable<unknown>} body
   */
  async pump (body) {
    this.pumping = true
    try {
      for await (const chunk of body) {
        if (this.done && !this.collecting) break
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : ArrayBuffer.isView(chunk) ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : null
        if (bytes === null) throw new ChannelError(this.application, CODES.BAD_PAYLOAD, `a request body chunk of type ${typeof chunk}`)
        let offset = 0
        while (offset < bytes.length && !this.done) {
          while (this.flow.credit <= 0 && !this.done) await new Promise((resolve) => { this.wake = () => resolve(undefined) })
          if (this.done) break
          const n = Math.min(bytes.length - offset, this.flow.credit, FRAME_BYTES)
          this.keep(bytes, offset, n)
          this.flow.credit -= n
          sendChunks(this.mux, this.id, [bytes.subarray(offset, offset + n)], n)
          offset += n
        }
        // refused meanwhile: the rest of the body is kept, to be sent again elsewhere
        if (this.collecting && !this.keep(bytes, offset, bytes.length - offset)) return this.cannotMove()
        if (this.done && !this.collecting) break
      }
      this.pumping = false
      if (this.collecting) return this.moveWithBody()
      if (!this.done) this.mux.send(this.id, FIN)
    } catch (err) {
      this.pumping = false
      if (this.collecting) return this.cannotMove()
      this.abort(/** @type {Error} */ (err))
    }
  }

  /**
   * Keeps a copy of body bytes sent before the answer began, up to REPLAY_BYTES (as the
   * HTTP wire does): a stopping worker may refuse the request, which then moves with them.
   * @param {Buffer} bytes
   * @param {number} offset
   * @param {number} n
   * @returns {boolean}  false: too large to keep (it cannot move)
   */
  keep (bytes, offset, n) {
    if (this.kept === null || n === 0) return this.kept !== null
    if (this.keptBytes + n > REPLAY_BYTES || this.answered) {
      this.kept = null
      return false
    }
    this.kept.push(Buffer.from(bytes.subarray(offset, offset + n)))
    this.keptBytes += n
    return true
  }

  /** @param {unknown} payload  one frame of the answer */
  onFrame (payload) {
    if (this.done) return
    if (typeof payload === 'number' && payload > 0) {
      if (!this.flow.grant(payload)) return this.fail(new ChannelError(this.application, CODES.PROTOCOL, `bad credit ${payload}`))
      const wake = this.wake
      this.wake = null
      wake?.()
      return
    }
    if (payload === RESET) return this.fail(new ChannelError(this.application, CODES.CLOSED, 'the connection was reset by the peer before the answer completed'))
    if (payload === REFUSED) return this.refused()
    if (this.paused || this.held.length > 0) {
      this.held.push(receiveBytes(this.mux, payload) ?? payload)
      return
    }
    this.deliver(payload)
  }

  /** @param {unknown} payload */
  deliver (payload) {
    const handler = this.handler
    const bytes = receiveBytes(this.mux, payload)
    if (bytes !== null) return this.data(bytes)
    if (payload === FIN) return this.complete([])
    const frame = /** @type {any} */ (payload)
    if (frame !== null && typeof frame === 'object') {
      if (Array.isArray(frame.t)) return this.complete(frame.t)
      if (typeof frame.s === 'number' && !this.answered) {
        this.answered = true
        handler.onResponseStarted()
        if (handler.onHeaders(frame.s, frame.h, this.resume, frame.r) === false) this.paused = true
        return
      }
    }
    this.fail(new ChannelError(this.application, CODES.PROTOCOL, `an unexpected frame on the frames wire (${typeof payload})`))
  }

  /** @param {Buffer} data */
  data (data) {
    if (!this.flow.receive(data.length)) {
      return this.fail(new ChannelError(this.application, CODES.PROTOCOL, `the answer overran a ${this.flow.size}-byte window`))
    }
    if (this.handler.onData(data) === false) this.paused = true
    else this.returnCredit()
  }

  returnCredit () {
    if (this.done) return
    const credit = this.flow.returnable()
    if (credit > 0) this.mux.send(this.id, credit)
  }

  /** undici's resume(): the handler takes data again. */
  resume () {
    if (!this.paused || this.done) return
    this.paused = false
    while (this.held.length > 0 && !this.paused && !this.done) this.deliver(this.held.shift())
    if (!this.paused) this.returnCredit()
  }

  /** @param {string[]} trailers */
  complete (trailers) {
    if (this.trailers !== undefined) return
    this.trailers = trailers
    // FIN follows trailers; either ends the answer
    this.finish()
    // raw header lines as latin1 strings: undici's parseHeaders takes strings as Buffers
    this.handler.onComplete(/** @type {any} */ (trailers))
  }

  finish () {
    this.done = true
    this.mux.remove(this.id)
    this.wake?.()
    this.client?.ended()
  }

  /** A stopping worker did not take the request: to another worker if it can move, failed otherwise. */
  refused () {
    if (this.client === null) return this.fail(REFUSAL(this.application))
    const whole = this.outgoing.head.e
    if (!whole && this.kept === null) return this.fail(REFUSAL(this.application, `is larger than ${REPLAY_BYTES} bytes, so it could not move`))
    this.finish()
    this.moving = true
    if (whole) return this.move()
    // the body still coming is kept too; it moves once all of it is here
    this.collecting = true
    if (!this.pumping) this.moveWithBody()
  }

  /** The kept body becomes part of the head (a request of at most REPLAY_BYTES), then it moves. */
  moveWithBody () {
    this.collecting = false
    const body = Buffer.concat(/** @type {Buffer[]} */ (this.kept))
    this.outgoing = { head: { ...this.outgoing.head, b: body.toString('latin1'), e: true }, buffer: null, stream: null }
    this.move()
  }

  move () {
    /** @type {import('./client.js').FramesClient} */ (this.client).relocate(this).then((moved) => {
      this.moving = false
      if (!moved) this.handler.onError(REFUSAL(this.application))
    }, (/** @type {Error} */ err) => {
      this.moving = false
      this.handler.onError(err)
    })
  }

  cannotMove () {
    this.collecting = false
    this.moving = false
    this.handler.onError(REFUSAL(this.application, `is larger than ${REPLAY_BYTES} bytes, so it could not move`))
  }

  /** @param {Error} [reason]  the caller's abort (a signal, a timeout, a destroyed body) */
  abort (reason) {
    if (this.collecting) {
      // refused, its body still coming: it ends here
      this.collecting = false
      this.moving = false
      this.destroyBody()
      return this.handler.onError(reason ?? new errors.RequestAbortedError())
    }
    if (this.moving) this.abortedWhileMoving ??= reason ?? new errors.RequestAbortedError()
    if (this.done) return
    if (this.id !== 0) this.mux.send(this.id, RESET)
    this.destroyBody()
    this.fail(reason ?? new errors.RequestAbortedError())
  }

  /** @param {Error} err */
  fail (err) {
    if (this.done) return
    if (this.id !== 0) this.finish()
    else this.done = true
    this.handler.onError(err)
  }

  /** The request's body stream, when it is one, ends with the request (as undici destroys it). */
  destroyBody () {
    const stream = /** @type {any} */ (this.outgoing.stream)
    if (stream && typeof stream.destroy === 'function' && !stream.destroyed && !stream.readableEnded) stream.destroy()
  }

  /** @param {Error} err  the port closed (the worker crashed, stopped or restarted) */
  onMuxLost (err) {
    if (this.done) return
    this.done = true
    this.client?.ended()
    this.wake?.()
    this.handler.onError(err)
  }
}
