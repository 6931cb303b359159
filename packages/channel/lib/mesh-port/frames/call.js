// @ts-check
// Caller side of the frames wire: one request as a stream of a link's PortSession
// (ids shared with the HTTP wire's connections), whose answer feeds undici's
// handler callbacks (the old API: onConnect, onHeaders, onData, onComplete,
// onError) straight from frames, with no HTTP parser on either side.
//
// Frames of a call (session.js carries them, one postMessage per turn):
//   caller → callee  RequestHead object (request-head.js), body data, FIN, credit, RESET
//   callee → caller  { s, r, h } the answer's head, body data, { t } trailers, FIN,
//                    credit, RESET (the server dropped it), REFUSED (a stopping worker)
// Body data is what the HTTP wire posts: latin1 strings up to STRING_LIMIT, above
// that FRAME_BYTES buffers transferred and handed back. Flow control is the HTTP
// wire's: at most `window` bytes unconsumed per direction, credit returned in
// batches of half a window, so small exchanges never cost a credit frame.
import { errors } from 'undici'
import { ChannelError, CODES } from '../../errors.js'
import { REPLAY_BYTES } from '../../http/port-socket.js'
import { FIN, FRAME_BYTES, REFUSED, RESET, STRING_LIMIT } from '../../http/session.js'

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
   * @param {import('../../http/session.js').PortSession} session
   * @param {import('../pool-handler.js').OldApiView} handler
   * @param {import('./request-head.js').Outgoing} outgoing
   * @param {CallOptions} options
   * @param {import('./client.js').FramesClient | null} [client]  where a refused request asks to move
   * @param {number} [moves]  times this request moved already
   */
  constructor (session, handler, outgoing, { application, window }, client = null, moves = 0) {
    this.session = session
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
    this.window = window
    this.referenced = true
    this.id = 0
    this.done = false
    /** bytes of request body we may still send */
    this.credit = window
    /** answer bytes taken by the handler and not yet returned as credit */
    this.unreturned = 0
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
    const { session, handler } = this
    // undici's client passes no context (core/request.js onConnect)
    handler.onConnect((reason) => this.abort(reason), /** @type {any} */ (undefined))
    if (this.done) return
    if (session.closed) return this.fail(new ChannelError(this.application, CODES.CLOSED, 'the connection closed before the answer completed (application stopped, crashed or restarted)'))
    this.id = session.nextId++
    session.add(this.id, this)
    this.client?.started()
    session.send(this.id, this.outgoing.head)
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
          while (this.credit <= 0 && !this.done) await new Promise((resolve) => { this.wake = () => resolve(undefined) })
          if (this.done) break
          const n = Math.min(bytes.length - offset, this.credit, FRAME_BYTES)
          this.keep(bytes, offset, n)
          this.sendData(bytes, offset, n)
          offset += n
        }
        // refused meanwhile: the rest of the body is kept, to be sent again elsewhere
        if (this.collecting && !this.keep(bytes, offset, bytes.length - offset)) return this.cannotMove()
        if (this.done && !this.collecting) break
      }
      this.pumping = false
      if (this.collecting) return this.moveWithBody()
      if (!this.done) this.session.send(this.id, FIN)
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

  /**
   * @param {Buffer} bytes
   * @param {number} offset
   * @param {number} n
   */
  sendData (bytes, offset, n) {
    this.credit -= n
    if (n <= STRING_LIMIT) return this.session.send(this.id, bytes.toString('latin1', offset, offset + n))
    const frame = this.session.frameBuffer()
    const view = new Uint8Array(frame, 0, n)
    view.set(bytes.subarray(offset, offset + n))
    this.session.send(this.id, view, frame)
  }

  /** @param {unknown} payload  one frame of the answer */
  onFrame (payload) {
    if (this.done) return
    if (typeof payload === 'number' && payload > 0) {
      this.credit += payload
      const wake = this.wake
      this.wake = null
      wake?.()
      return
    }
    if (payload === RESET) return this.fail(new ChannelError(this.application, CODES.CLOSED, 'the connection was reset by the peer before the answer completed'))
    if (payload === REFUSED) return this.refused()
    if (this.paused || this.held.length > 0) {
      if (payload instanceof Uint8Array) payload = this.copyOut(payload)
      this.held.push(payload)
      return
    }
    this.deliver(payload)
  }

  /**
   * @param {Uint8Array} payload
   * @returns {Buffer}
   */
  copyOut (payload) {
    const data = Buffer.allocUnsafe(payload.byteLength)
    data.set(payload)
    this.session.handBack(/** @type {ArrayBuffer} */ (payload.buffer))
    return data
  }

  /** @param {unknown} payload */
  deliver (payload) {
    const handler = this.handler
    if (typeof payload === 'string') return this.data(Buffer.from(payload, 'latin1'))
    if (payload instanceof Uint8Array) return this.data(Buffer.isBuffer(payload) ? payload : this.copyOut(payload))
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
    this.unreturned += data.length
    if (this.handler.onData(data) === false) this.paused = true
    else this.returnCredit()
  }

  returnCredit () {
    if (this.unreturned >= this.window / 2 && !this.done) {
      this.session.send(this.id, this.unreturned)
      this.unreturned = 0
    }
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
    this.session.remove(this.id)
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
    if (this.id !== 0) this.session.send(this.id, RESET)
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
  onSessionLost (err) {
    if (this.done) return
    this.done = true
    this.client?.ended()
    this.wake?.()
    this.handler.onError(err)
  }
}
