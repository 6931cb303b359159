// @ts-check
// Callee side of the frames wire: one request, served by the app's http.Server through Node's own
// IncomingMessage and ServerResponse, with no parser. Around it, what Node's server does (parserOnIncoming,
// socketOnError, socketOnTimeout, resOnFinish) in the same order, with the server's settings that apply to
// one request: requireHostHeader, maxRequestsPerSocket (a frames request is its connection's first), timeout
// and requestTimeout (request-timeout.js). A body is held to its content-length as over the HTTP wire.
import { channel } from 'node:diagnostics_channel'
import { STATUS_CODES } from 'node:http'
/** @import http from 'node:http' */
import { connectionReset, nodeHttpError } from '../../errors.js'
import {
  addHeaderLines, assignSocket, detachSocket, dumpUnread, hostRequired, httpMessageOf, isClosed, isDumped, keepAlive,
  markClosed, requestsLimit, responseOptions
} from '../../node-internals.js'
import { receiveBytes } from '../../wire/data.js'
import { FIN, RESET } from '../../wire/signals.js'
import { ExchangeSocket } from './exchange-socket.js'
import { bodyArrived, bodyExpected } from './request-timeout.js'

/** What Node's server publishes per request (metrics and tracing subscribe), published here alike. */
const requestStart = channel('http.server.request.start')
const responseFinish = channel('http.server.response.finish')

export class Exchange extends ExchangeSocket {
  /**
   * @param {import('../../wire/port-mux.js').PortMux} mux
   * @param {number} id
   * @param {number} window
   */
  constructor (mux, id, window) {
    super(mux, id, window)
    /** @type {http.Server | null} */
    this.server = null
    /** @type {any} */
    this.req = null
    this.paused = false
    /** no frame goes to the caller any more (the answer ended, or the caller is gone) */
    this.ended = false
    /** the answer finished (what Node's resOnFinish does was done) */
    this.done = false
    /** body bytes still to come by the request's content-length; -1: until FIN (chunked) */
    this.remaining = 0
  }

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
    this.server = server
    const headers = req.headers
    this.remaining = 'transfer-encoding' in headers ? -1 : contentLength(headers['content-length'])
    const options = responseOptions(server, this.writableHighWaterMark)
    const res = /** @type {any} */ (new (/** @type {any} */ (classes.ServerResponse))(req, options))
    keepAlive(res, server.keepAliveTimeout)
    this.carry(res)
    assignSocket(res, this)
    res.on('finish', () => this.finished())
    if (server.timeout) this.setTimeout(server.timeout)
    if (requestStart.hasSubscribers) requestStart.publish({ request: req, response: res, socket: this, server })
    this.dispatch(server, req, res)
    // then the body, as Node's parser goes on after 'request'
    if (typeof head.b === 'string' && head.b.length > 0) this.push(Buffer.from(head.b, 'latin1'))
    if (this.destroyed || req.complete) return
    if (head.e) this.bodyEnd()
    else if (this.remaining === 0) this.endRequest()
    else bodyExpected(server, this)
  }

  /**
   * The request to the app, as Node's parserOnIncoming gives it: a 400 without Host when the server requires
   * one; under maxRequestsPerSocket, a frames request is its connection's first.
   * @param {http.Server} server
   * @param {any} req
   * @param {any} res
   */
  dispatch (server, req, res) {
    if (hostRequired(server) && req.headers.host === undefined) {
      res.writeHead(400, ['Connection', 'close'])
      res.end()
      return
    }
    const max = server.maxRequestsPerSocket
    if (typeof max === 'number' && max > 0) requestsLimit(res, max)
    server.emit('request', req, res)
  }

  /** @param {unknown} payload  a frame after the head */
  onFrame (payload) {
    if (this.destroyed) return
    const data = receiveBytes(this.mux, payload)
    if (data !== null) return this.push(data)
    if (payload === FIN) return this.bodyEnd()
    if (payload === RESET) return this.callerLeft()
    if (typeof payload === 'number') {
      if (!this.flow.grant(payload)) return this.reset()
      return this.sendPending()
    }
    // the head itself (serve() ran on it) and anything unknown: nothing to do
  }

  /** @param {Buffer} data  request body */
  push (data) {
    const req = this.req
    if (this.remaining >= 0) {
      // past the content-length: undici sends none of such a chunk, and closes the connection
      if (data.length > this.remaining) return this.callerLeft()
      this.remaining -= data.length
    }
    this.bytesRead += data.length
    this.refreshTimeout()
    if (!this.flow.receive(data.length)) return this.reset() // a caller that overruns its window
    if (isDumped(req) || req.destroyed) this.returnCredit(true)
    else if (!req.push(data)) this.paused = true
    else this.returnCredit()
    if (this.remaining === 0) this.endRequest()
  }

  /** The caller's FIN: short of the content-length, the connection closed inside the body. */
  bodyEnd () {
    if (this.remaining > 0) return this.callerLeft()
    this.endRequest()
  }

  /** The request's body ended (its content-length reached, FIN, or a head that carried it all). */
  endRequest () {
    const req = this.req
    if (req.complete) return
    req.complete = true
    this.readable = false
    bodyArrived(/** @type {http.Server} */ (this.server), this)
    req.push(null)
  }

  /**
   * The caller left: its RESET (an abort), or a body that ended short of its content-length or ran past it
   * (undici then closes the connection). Over HTTP the server reads the end of the stream: inside a body,
   * Node's parser fails it (HPE_INVALID_EOF_STATE, to 'clientError'); either way the request is aborted.
   */
  callerLeft () {
    if (this.destroyed) return
    if (!this.req.complete) this.clientError(parseError('HPE_INVALID_EOF_STATE', 'Invalid EOF state'))
    else this.reset()
  }

  /** server.requestTimeout passed with the body still arriving (request-timeout.js). */
  requestTimedOut () {
    this.clientError(nodeHttpError('ERR_HTTP_REQUEST_TIMEOUT', 'Request timeout'), 408)
  }

  /**
   * Node's socketOnError: the app's 'clientError' listeners get the error and this socket; with none, the
   * answer Node writes (`status`, Connection: close) when none began. Then the exchange closes.
   * @param {Error} err
   * @param {number} [status]  0: none (the caller is gone: Node's 400 would go to a closed connection)
   */
  clientError (err, status = 0) {
    if (this.destroyed) return
    const heard = /** @type {http.Server} */ (this.server).emit('clientError', err, this)
    if (!heard && status !== 0 && !this.answered && !this.ended) {
      this.answered = true
      this.ended = true
      this.mux.send(this.id, { s: status, r: STATUS_CODES[status], h: ['Connection', 'close'] })
      this.mux.send(this.id, FIN)
      this.mux.remove(this.id)
    }
    this.reset()
  }

  /** Node's socketOnTimeout: 'timeout' to the unfinished request, the response and the server; unheard, the end. */
  onIdle () {
    if (this.destroyed) return
    const req = this.req
    const res = httpMessageOf(this)
    const reqHeard = req !== null && !req.complete && req.emit('timeout', this)
    const resHeard = res != null && res.emit('timeout', this)
    const serverHeard = /** @type {http.Server} */ (this.server).emit('timeout', this)
    if (!reqHeard && !resHeard && !serverHeard) this.destroy()
    this.emit('timeout')
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

  /** The response ended (its last write sent or waiting for credit): trailers, FIN, then what resOnFinish does. */
  finished () {
    const res = this.res
    const req = this.req
    this.ended = true
    this.done = true
    this.stopTimeout()
    if (responseFinish.hasSubscribers) {
      responseFinish.publish({ request: req, response: res, socket: this, server: this.server })
    }
    this.sendTrailers()
    this.mux.send(this.id, FIN)
    this.mux.remove(this.id)
    dumpUnread(req)
    detachSocket(res, this)
    process.nextTick(emitClose, res)
  }

  /** The caller is gone (its thread, or the exchange broke): as a TCP reset on the server. */
  reset () {
    this.destroy(connectionReset('aborted'))
  }

  /** @param {Error} [err] */
  destroy (err) {
    if (this.destroyed) return this
    this.destroyed = true
    this.readable = false
    this.writable = false
    this.stopTimeout()
    if (this.server !== null) bodyArrived(this.server, this)
    if (!this.ended) {
      this.ended = true
      // a raw answer ends at the close, as a TCP peer reads it; anything else unfinished is a reset
      this.mux.send(this.id, this.rawAnswered ? FIN : RESET)
      this.mux.remove(this.id)
    }
    process.nextTick(() => {
      // as Node's socketOnClose: a request whose answer did not finish is aborted (abortIncoming), then
      // the socket's 'close' closes the response
      const req = this.req
      if (req !== null && !req.destroyed && !this.done) req.destroy(connectionReset('aborted'))
      this.emit('close', err !== undefined)
    })
    return this
  }

  destroySoon () { return this.destroy() }

  /** @param {Error} _err  the caller's port is gone */
  onMuxLost (_err) {
    this.ended = true // no frame can go back
    this.reset()
  }
}

/**
 * A request's content-length as Node's parser takes it (a head from request-head.js has a valid one).
 * @param {string | undefined} value
 */
function contentLength (value) {
  const length = Number(value ?? 0)
  return Number.isSafeInteger(length) && length >= 0 ? length : 0
}

/**
 * An error as Node's HTTP parser makes them (code, reason, bytesParsed).
 * @param {string} code
 * @param {string} reason
 */
function parseError (code, reason) {
  return nodeHttpError(code, `Parse Error: ${reason}`, { bytesParsed: 0, reason })
}

/** @param {any} res */
function emitClose (res) {
  if (isClosed(res)) return
  res.destroyed = true
  markClosed(res)
  res.emit('close')
}
