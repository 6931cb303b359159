// @ts-check
// The handler the drop-in hands to a link's Pool. undici's compose() wraps every
// handler that reaches an interceptor in a WrapHandler (the new handler API). A
// Pool speaks the old API and, given a handler with the new one, wraps it back in
// an UnwrapHandler: then every response's raw headers are parsed into an object,
// and turned back into Buffers, before the caller's handler parses them again.
// A WrapHandler still answers the old API by passing each call straight to the
// handler it wraps, so the Pool gets a view of that side alone: the same calls,
// in the same order, without the round trip (the tcp transport's path exactly).

/** The old-API side of a WrapHandler: every method passes straight through. */
class OldApiView {
  /** @param {any} handler */
  constructor (handler) {
    this.handler = handler
  }

  /** @param {(reason?: Error) => void} abort @param {object} context */
  onConnect (abort, context) { return this.handler.onConnect(abort, context) }
  onResponseStarted () { return this.handler.onResponseStarted() }
  /** @param {number} statusCode @param {Buffer[]} rawHeaders @param {() => void} resume @param {string} statusMessage */
  onHeaders (statusCode, rawHeaders, resume, statusMessage) { return this.handler.onHeaders(statusCode, rawHeaders, resume, statusMessage) }
  /** @param {number} statusCode @param {Buffer[]} rawHeaders @param {import('node:net').Socket} socket */
  onUpgrade (statusCode, rawHeaders, socket) { return this.handler.onUpgrade(statusCode, rawHeaders, socket) }
  /** @param {Buffer} chunk */
  onData (chunk) { return this.handler.onData(chunk) }
  /** @param {Buffer[] | null} rawTrailers */
  onComplete (rawTrailers) { return this.handler.onComplete(rawTrailers) }
  /** @param {Error} err */
  onError (err) { return this.handler.onError(err) }
}

/**
 * What to pass to Pool.dispatch for `handler`: the old-API view of a WrapHandler,
 * anything else unchanged (a handler written for the new API is unwrapped by the
 * Pool as undici means it to be).
 * @param {any} handler
 */
export function poolHandler (handler) {
  return handler.constructor?.name === 'WrapHandler' && typeof handler.onHeaders === 'function' ? new OldApiView(handler) : handler
}
