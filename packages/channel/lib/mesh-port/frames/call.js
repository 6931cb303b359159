// @ts-check
// Caller side of the frames wire: one request as a stream of a link's PortMux, whose answer feeds undici's
// old-API handler straight from frames, no HTTP parser. Out: head (request-head.js), body, FIN, credit, RESET;
// in: { s, r, h }, body, { t } trailers, FIN, credit, RESET, REFUSED (a stopping worker: replay.js).
import { errors } from 'undici'
import { ChannelError, CODES } from '../../errors.js'
import { receiveBytes, sendChunks } from '../../wire/data.js'
import { FIN, FRAME_BYTES, REFUSED, RESET } from '../../wire/signals.js'
import { StreamWindow } from '../../wire/window.js'
import { Replay } from './replay.js'

/**
 * @typedef {object} CallOptions
 * @property {string} application
 * @property {number} window
 */

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
    this.replay = new Replay(this)
    /** the body is being sent (pump) */
    this.pumping = false
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
    const replay = this.replay
    this.pumping = true
    try {
      for await (const chunk of body) {
        if (this.done && !replay.collecting) break
        const bytes = bodyBytes(chunk)
        if (bytes === null) {
          throw new ChannelError(this.application, CODES.BAD_PAYLOAD, `a request body chunk of type ${typeof chunk}`)
        }
        let offset = 0
        while (offset < bytes.length && !this.done) {
          while (this.flow.credit <= 0 && !this.done) {
            await new Promise((resolve) => { this.wake = () => resolve(undefined) })
          }
          if (this.done) break
          const n = Math.min(bytes.length - offset, this.flow.credit, FRAME_BYTES)
          // kept until an answer begins: a request a stopping worker refuses moves with them
          replay.keep(bytes, offset, n)
          this.flow.credit -= n
          sendChunks(this.mux, this.id, [bytes.subarray(offset, offset + n)], n)
          offset += n
        }
        // refused meanwhile: the rest of the body is kept, to be sent again elsewhere
        if (replay.collecting && !replay.keep(bytes, offset, bytes.length - offset)) return replay.cannotMove()
        if (this.done && !replay.collecting) break
      }
      this.pumping = false
      if (replay.collecting) return replay.moveWithBody()
      if (!this.done) this.mux.send(this.id, FIN)
    } catch (err) {
      this.pumping = false
      if (replay.collecting) return replay.cannotMove()
      this.abort(/** @type {Error} */ (err))
    }
  }

  /** @param {unknown} payload  one frame of the answer */
  onFrame (payload) {
    if (this.done) return
    if (typeof payload === 'number' && payload > 0) {
      if (!this.flow.grant(payload)) {
        return this.fail(new ChannelError(this.application, CODES.PROTOCOL, `bad credit ${payload}`))
      }
      const wake = this.wake
      this.wake = null
      wake?.()
      return
    }
    if (payload === RESET) {
      return this.fail(new ChannelError(this.application, CODES.CLOSED,
        'the connection was reset by the peer before the answer completed'))
    }
    if (payload === REFUSED) return this.replay.refused()
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
    const unexpected = `an unexpected frame on the frames wire (${typeof payload})`
    this.fail(new ChannelError(this.application, CODES.PROTOCOL, unexpected))
  }

  /** @param {Buffer} data */
  data (data) {
    if (!this.flow.receive(data.length)) {
      const overrun = `the answer overran a ${this.flow.size}-byte window`
      return this.fail(new ChannelError(this.application, CODES.PROTOCOL, overrun))
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

  /** @param {Error} [reason]  the caller's abort (a signal, a timeout, a destroyed body) */
  abort (reason) {
    if (this.replay.aborted(reason) || this.done) return
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

/**
 * A request body chunk as bytes; null when it is neither a string nor bytes.
 * @param {unknown} chunk
 */
function bodyBytes (chunk) {
  if (typeof chunk === 'string') return Buffer.from(chunk)
  return ArrayBuffer.isView(chunk) ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : null
}
