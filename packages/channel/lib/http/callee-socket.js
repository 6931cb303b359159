// @ts-check
// The callee's end of an http-port connection (node:http's socket). It fails as a TCP
// socket does (ECONNRESET: what Node's server expects of a client that left), and while
// its worker stops it refuses requests that begin and waits for callers to end the rest.
import { CODES, connectionReset } from '../errors.js'
import { REFUSED } from '../wire/signals.js'
import { PortSocket } from './port-socket.js'

/** How long a stopping worker keeps a connection its caller has not ended (see destroy). */
export const DRAIN_MS = 2000

/**
 * @typedef {import('./port-socket.js').PortSocketOptions & { refuseWhenDraining?: boolean }} CalleeSocketOptions
 *   refuseWhenDraining: while the worker stops, a request that begins is refused (trackRequests)
 */

const tracked = new WeakSet()

/**
 * Has each CalleeSocket of `server` know its last response ('request' is public; the response's
 * writableFinished and its request's complete tell whether that exchange is over).
 * @param {import('node:http').Server} server
 */
export function trackRequests (server) {
  if (tracked.has(server)) return
  tracked.add(server)
  server.on('request', (req, res) => {
    const socket = req.socket
    if (socket instanceof CalleeSocket) socket.response = res
  })
}

export class CalleeSocket extends PortSocket {
  /**
   * @param {import('../wire/port-mux.js').PortMux} mux
   * @param {number} id
   * @param {CalleeSocketOptions} options
   */
  constructor (mux, id, options) {
    super(mux, id, options)
    this.refuseWhenDraining = options.refuseWhenDraining === true
    /** bytes came in since this side last sent any (a request under way) */
    this.receivedSinceSent = false
    /** @type {import('node:http').ServerResponse | null} the last response on it (trackRequests) */
    this.response = null
    /** @type {NodeJS.Timeout | undefined} */
    this.drainTimer = undefined
  }

  /** A request that begins while the worker stops is refused, not given to the server. */
  admit () {
    if (this.upgraded) return true
    if (this.refuseWhenDraining && this.mux.draining && !this.receivedSinceSent && !this.exchanging()) {
      this.refuse()
      return false
    }
    this.receivedSinceSent = true
    return true
  }

  /** An exchange is under way: its response still goes out, or its request's body still comes in. */
  exchanging () {
    const res = this.response
    return res !== null && !(res.writableFinished && res.req.complete)
  }

  /**
   * Bytes went out: the answer under way. A 101 (the app took the 'upgrade' event) makes the
   * connection a byte stream, whose data no drain refuses.
   * @param {string | null} text
   */
  sent (text) {
    if (this.receivedSinceSent && text !== null && text.startsWith('HTTP/1.1 101 ')) this.upgraded = true
    this.receivedSinceSent = false
  }

  /** @param {Error} err */
  lostError (err) {
    return /** @type {any} */ (err).code === CODES.PROTOCOL ? err : this.resetError('reset: the caller is gone')
  }

  /** @param {string} why */
  resetError (why) {
    return connectionReset(`connection ${why}`)
  }

  /**
   * The caller is told, and may send the request to another worker (a closing Fastify would
   * answer it 503). The connection ends here without a FIN.
   */
  refuse () {
    this.finSent = true
    this.mux.send(this.id, REFUSED)
    this.mux.flush()
    super.destroy()
  }

  /**
   * While its worker stops, a plain destroy of a connection the caller has not ended waits for
   * the caller to end it, at most DRAIN_MS: node:http's server.close() destroys connections it
   * sees idle, and a request may still be in the port. Callers end idle connections at GOAWAY.
   * @param {Error | null} [err]
   */
  destroy (err) {
    if (!err && this.mux.draining && !this.upgraded && !this.finReceived && !this.destroyed) {
      this.drainTimer ??= setTimeout(() => super.destroy(), DRAIN_MS).unref()
      return this
    }
    if (this.drainTimer) clearTimeout(this.drainTimer)
    return super.destroy(err ?? undefined)
  }
}
