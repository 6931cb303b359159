// @ts-check
// The handler the drop-in hands to a link's Pool: it counts the link's calls in flight for the route's choice
// of worker (D-in-flight-count), and gives the Pool the old-API side of a handler that has one (tcp's path):
// given the new API, a Pool's UnwrapHandler would parse each answer's raw headers into an object and back.

/** @typedef {{ inFlight: number, sockets: number }} Counted */

const noop = () => {}

class Settling {
  /** @param {any} handler @param {Counted} link */
  constructor (handler, link) {
    this.handler = handler
    this.link = link
    this.open = true
  }

  settle () {
    if (!this.open) return
    this.open = false
    this.link.inFlight--
  }

  /**
   * The answer was a 101 and the connection is now the caller's byte stream (a WebSocket): settled
   * as a request, counted in the link's open sockets until it closes (the balancer spreads them).
   * @param {import('node:stream').Duplex} socket
   */
  upgraded (socket) {
    this.settle()
    const link = this.link
    link.sockets++
    socket.once('close', () => { link.sockets-- })
  }

  /**
   * Counted against another link from now on (the request is sent again there).
   * @param {Counted} link
   */
  moveTo (link) {
    this.settle()
    this.link = link
    this.open = true
    link.inFlight++
  }
}

/**
 * What a view may be resent through (route.js), once, when its worker dies before answering.
 * @typedef {{ resend: (view: OldApiView, err: Error) => boolean }} Resender
 */

/**
 * The old-API side of a handler: every method passes straight through. An error before
 * any byte of the answer may be taken by the route it was given (resendVia: the request
 * is sent again on another worker); the caller's handler then sees one request.
 */
export class OldApiView extends Settling {
  /** @param {any} handler @param {Counted} link */
  constructor (handler, link) {
    super(handler, link)
    /** @type {Resender | null} */
    this.resender = null
    /** @type {import('undici').Dispatcher.DispatchOptions | null} what to send again */
    this.opts = null
    /** @type {import('undici').Dispatcher['dispatch'] | null} the mesh's, for a refused request no worker took */
    this.mesh = null
    this.answered = false
    this.connected = false
    /** @type {(reason?: Error) => void} */
    this.abort = noop
  }

  /**
   * @param {Resender} resender
   * @param {import('undici').Dispatcher.DispatchOptions} opts
   * @param {import('undici').Dispatcher['dispatch'] | null} [mesh]
   */
  resendVia (resender, opts, mesh = null) {
    this.resender = resender
    this.opts = opts
    this.mesh = mesh
  }

  /** @param {(reason?: Error) => void} abort @param {object} context */
  onConnect (abort, context) {
    this.abort = abort
    if (this.connected) return
    this.connected = true
    // The caller's abort reaches whichever attempt is under way: through this view only when
    // the request may be sent again (a function made per such request, none for the others).
    if (this.resender === null) return this.handler.onConnect(abort, context)
    return this.handler.onConnect((/** @type {Error | undefined} */ reason) => this.abort(reason), context)
  }

  onResponseStarted () { this.answered = true; return this.handler.onResponseStarted?.() }

  /**
   * @param {number} statusCode
   * @param {Buffer[]} rawHeaders
   * @param {() => void} resume
   * @param {string} statusMessage
   */
  onHeaders (statusCode, rawHeaders, resume, statusMessage) {
    this.answered = true
    return this.handler.onHeaders(statusCode, rawHeaders, resume, statusMessage)
  }

  /** @param {number} statusCode @param {Buffer[]} rawHeaders @param {import('node:net').Socket} socket */
  onUpgrade (statusCode, rawHeaders, socket) {
    this.answered = true
    this.upgraded(socket)
    return this.handler.onUpgrade(statusCode, rawHeaders, socket)
  }

  /** @param {Buffer} chunk */
  onData (chunk) { return this.handler.onData(chunk) }
  /** @param {Buffer[] | null} rawTrailers */
  onComplete (rawTrailers) { this.settle(); return this.handler.onComplete(rawTrailers) }
  /** @param {Error} err */
  onError (err) {
    const resender = this.resender
    this.resender = null // once
    if (resender !== null && !this.answered && resender.resend(this, err)) return
    this.settle()
    return this.handler.onError(err)
  }
}

/** A handler of the new API, as it is (the Pool unwraps it as undici means it to be). */
export class NewApiView extends Settling {
  /** @param {any} controller @param {object} context */
  onRequestStart (controller, context) { return this.handler.onRequestStart?.(controller, context) }

  /**
   * @param {any} controller
   * @param {number} statusCode
   * @param {Record<string, string | string[]>} headers
   * @param {import('node:net').Socket} socket
   */
  onRequestUpgrade (controller, statusCode, headers, socket) {
    this.upgraded(socket)
    return this.handler.onRequestUpgrade?.(controller, statusCode, headers, socket)
  }

  /**
   * @param {any} controller
   * @param {number} statusCode
   * @param {Record<string, string | string[]>} headers
   * @param {string} statusMessage
   */
  onResponseStart (controller, statusCode, headers, statusMessage) {
    return this.handler.onResponseStart?.(controller, statusCode, headers, statusMessage)
  }

  /** @param {any} controller @param {Buffer} chunk */
  onResponseData (controller, chunk) { return this.handler.onResponseData?.(controller, chunk) }
  /** @param {any} controller @param {Record<string, string | string[]>} trailers */
  onResponseEnd (controller, trailers) { this.settle(); return this.handler.onResponseEnd?.(controller, trailers) }
  /** @param {any} controller @param {Error} err */
  onResponseError (controller, err) { this.settle(); return this.handler.onResponseError?.(controller, err) }
}

/**
 * What to pass to Pool.dispatch for `handler`, counted in `link.inFlight` until it settles: the old-API view
 * of a handler that answers the old API (compose() wraps every old-API handler in a WrapHandler, which
 * answers both), a new-API-only handler as a new-API one.
 * @param {any} handler
 * @param {Counted} link
 * @returns {OldApiView | NewApiView}  (a DispatchHandler of either API)
 */
export function poolHandler (handler, link) {
  link.inFlight++
  return speaksOldApi(handler) ? new OldApiView(handler, link) : new NewApiView(handler, link)
}

/**
 * Whether `handler` takes the old API's answer (onHeaders, onData, onComplete), or has no new API at all.
 * @param {any} handler
 */
export function speaksOldApi (handler) {
  return typeof handler.onHeaders === 'function' || typeof handler.onRequestStart !== 'function'
}

/**
 * Reports an error to a handler of either undici handler API.
 * @param {any} handler
 * @param {Error} err
 */
export function failHandler (handler, err) {
  if (speaksOldApi(handler)) handler.onError?.(err)
  else handler.onResponseError?.(null, err)
}
