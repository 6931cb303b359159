// @ts-check
// Caller side of the frames wire: one request as a stream of a link's PortMux, whose answer feeds undici's
// old-API handler straight from frames, no HTTP parser. Out: head (request-head.js), body (upload.js), FIN, credit,
// RESET; in: { s, r, h } (1xx too), body, { t } trailers, FIN, credit, RESET, REFUSED (a stopping worker: replay.js).
// What undici's HTTP/1.1 client holds an answer to, it is held to here: its timeouts (timeouts.js), its length.
import { errors } from 'undici'
import { ChannelError, CODES } from '../../errors.js'
import { receiveBytes } from '../../wire/data.js'
import { FIN, REFUSED, RESET } from '../../wire/signals.js'
import { StreamWindow } from '../../wire/window.js'
import { Replay } from './replay.js'
import { BODY, CallTimer, DEFAULT_LIMITS, HEADERS } from './timeouts.js'
import { pump } from './upload.js'

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
   * @param {import('./timeouts.js').Limits} [limits]  its headersTimeout and bodyTimeout
   */
  constructor (mux, handler, outgoing, { application, window }, client = null, moves = 0, limits = DEFAULT_LIMITS) {
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
    this.limits = limits
    this.timer = new CallTimer(this, limits)
    /** @type {number | null} the answer's content-length (null: none, or a HEAD's) */
    this.expected = null
    /** the answer's body bytes so far */
    this.received = 0
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
    // as undici's: the wait for the head starts with the request sent, and again once its body is (upload.js)
    this.timer.sent()
    const { buffer, stream } = this.outgoing
    if (buffer !== null) pump(this, [buffer])
    else if (stream !== null) {
      // A Readable stays open when the answer completes before its end (the server did not
      // read it all): only an abort destroys it, as undici does.
      const readable = /** @type {any} */ (stream)
      pump(this, typeof readable.iterator === 'function' ? readable.iterator({ destroyOnReturn: false }) : stream)
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
        if (frame.s < 200) return this.informational(frame)
        this.answered = true
        this.timer.answered()
        // as undici's parser, which reads no body after a HEAD, and checks every other against its length
        if (this.outgoing.head.m !== 'HEAD') this.expected = contentLength(frame.h)
        handler.onResponseStarted()
        if (handler.onHeaders(frame.s, frame.h, this.resume, frame.r) === false) this.paused = true
        return
      }
    }
    const unexpected = `an unexpected frame on the frames wire (${typeof payload})`
    this.fail(new ChannelError(this.application, CODES.PROTOCOL, unexpected))
  }

  /**
   * An informational answer (103 Early Hints, 102): to the handler as undici's parser gives it, the final one
   * still to come. An unasked 100, or a 101 without an upgrade, breaks the exchange as it does a connection.
   * @param {{ s: number, r: string, h: string[] }} frame
   */
  informational (frame) {
    if (frame.s === 100 || frame.s === 101) {
      return this.abort(new errors.SocketError(frame.s === 100 ? 'bad response' : 'bad upgrade'))
    }
    this.timer.refresh()
    this.handler.onResponseStarted()
    this.handler.onHeaders(frame.s, /** @type {any} */ (frame.h), this.resume, frame.r)
  }

  /** @param {Buffer} data */
  data (data) {
    if (!this.flow.receive(data.length)) {
      const overrun = `the answer overran a ${this.flow.size}-byte window`
      return this.fail(new ChannelError(this.application, CODES.PROTOCOL, overrun))
    }
    this.timer.refresh()
    const expected = this.expected
    if (expected !== null && this.received + data.length > expected) {
      // as undici's parser, the answer ends at its content-length; the bytes after it end the exchange
      const last = data.subarray(0, Math.max(0, expected - this.received))
      this.received = expected
      if (last.length > 0) this.handler.onData(last)
      this.mux.send(this.id, RESET)
      return this.complete([])
    }
    this.received += data.length
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
    this.timer.refresh()
    while (this.held.length > 0 && !this.paused && !this.done) this.deliver(this.held.shift())
    if (!this.paused) this.returnCredit()
  }

  /** @param {string[]} trailers */
  complete (trailers) {
    if (this.trailers !== undefined) return
    // a body that ended short of its content-length, as undici's parser finds it at a connection's end
    if (this.expected !== null && this.received !== this.expected) {
      return this.fail(new errors.ResponseContentLengthMismatchError())
    }
    this.trailers = trailers
    // FIN follows trailers; either ends the answer
    this.finish()
    // raw header lines as latin1 strings: undici's parseHeaders takes strings as Buffers
    this.handler.onComplete(/** @type {any} */ (trailers))
  }

  finish () {
    this.done = true
    this.timer.stop()
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

  /**
   * A timeout ran out (timeouts.js), with undici's error, and the callee told as by an abort. As undici's, the
   * wait for the head does not end while the body is being sent, unless that waits for the peer to read.
   * @param {number} kind
   */
  timedOut (kind) {
    if (this.done) return
    if (kind === HEADERS) {
      if (!this.pumping || this.wake !== null) this.abort(new errors.HeadersTimeoutError())
    } else if (kind === BODY && !this.paused) this.abort(new errors.BodyTimeoutError())
  }

  /** @param {Error} err  the port closed (the worker crashed, stopped or restarted) */
  onMuxLost (err) {
    if (this.done) return
    this.done = true
    this.timer.stop()
    this.client?.ended()
    this.wake?.()
    this.handler.onError(err)
  }
}

/**
 * An answer's content-length, as undici's parser reads it (null: none).
 * @param {string[]} lines  its header lines, name then value
 */
function contentLength (lines) {
  for (let i = 0; i < lines.length; i += 2) {
    const name = lines[i]
    if (name.length === 14 && name.toLowerCase() === 'content-length') return parseInt(lines[i + 1], 10)
  }
  return null
}
