// @ts-check
// Callee side of the frames wire: one request, served by the app's http.Server through Node's own
// IncomingMessage and ServerResponse, with no parser. Around it, what Node's server does (parserOnIncoming,
// resOnFinish) in the same order; not its per-socket timeouts (the caller's own apply).
import { channel } from 'node:diagnostics_channel'
/** @import http from 'node:http' */
import { connectionReset } from '../../errors.js'
import {
  addHeaderLines, assignSocket, detachSocket, dumpUnread, isClosed, isDumped, keepAlive, markClosed,
  responseOptions
} from '../../node-internals.js'
import { receiveBytes } from '../../wire/data.js'
import { FIN, RESET } from '../../wire/signals.js'
import { ExchangeSocket } from './exchange-socket.js'

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
    this.ended = false
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
    const options = responseOptions(server, this.writableHighWaterMark)
    const res = /** @type {any} */ (new (/** @type {any} */ (classes.ServerResponse))(req, options))
    keepAlive(res, server.keepAliveTimeout)
    this.carry(res)
    assignSocket(res, this)
    res.on('finish', () => this.finished())
    if (typeof head.b === 'string' && head.b.length > 0) this.push(Buffer.from(head.b, 'latin1'))
    if (head.e) this.endRequest()
    this.server = server
    if (requestStart.hasSubscribers) requestStart.publish({ request: req, response: res, socket: this, server })
    server.emit('request', req, res)
  }

  /** @param {unknown} payload  a frame after the head */
  onFrame (payload) {
    if (this.destroyed) return
    const data = receiveBytes(this.mux, payload)
    if (data !== null) return this.push(data)
    if (payload === FIN) return this.endRequest()
    if (payload === RESET) return this.reset()
    if (typeof payload === 'number') {
      if (!this.flow.grant(payload)) return this.reset()
      return this.sendPending()
    }
    // the head itself (serve() ran on it) and anything unknown: nothing to do
  }

  /** @param {Buffer} data  request body */
  push (data) {
    const req = this.req
    this.bytesRead += data.length
    if (!this.flow.receive(data.length)) return this.reset() // a caller that overruns its window
    if (isDumped(req) || req.destroyed) return this.returnCredit(true)
    if (!req.push(data)) this.paused = true
    else this.returnCredit()
  }

  /** The request's body ended (FIN, or a head that carried it all). */
  endRequest () {
    const req = this.req
    if (req.complete) return
    req.complete = true
    this.readable = false
    req.push(null)
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

  /** The caller left (abort, timeout) or its thread did: as a TCP reset on the server. */
  reset () {
    this.destroy(connectionReset('aborted'))
  }

  /** @param {Error} [err] */
  destroy (err) {
    if (this.destroyed) return this
    this.destroyed = true
    this.readable = false
    this.writable = false
    if (!this.ended) {
      this.mux.send(this.id, RESET)
      this.mux.remove(this.id)
    }
    // as Node's abortIncoming: a request whose answer did not finish is destroyed ('aborted', 'close')
    const req = this.req
    if (req !== null && !req.destroyed && !this.ended) req.destroy(err)
    process.nextTick(() => this.emit('close', err !== undefined))
    return this
  }

  destroySoon () { return this.destroy() }

  /** @param {Error} _err  the caller's port is gone */
  onMuxLost (_err) {
    this.ended = true // no frame can go back
    this.reset()
  }
}

/** @param {any} res */
function emitClose (res) {
  if (isClosed(res)) return
  res.destroyed = true
  markClosed(res)
  res.emit('close')
}
