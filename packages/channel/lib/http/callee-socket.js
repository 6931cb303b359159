// @ts-check
// The callee's end of an http-port connection (node:http's socket). It fails as a TCP
// socket does (ECONNRESET: what Node's server expects of a client that left), and while
// its worker stops it refuses requests that begin and waits for callers to end the rest.
import { CODES, connectionReset } from '../errors.js'
import { httpMessageOf } from '../node-internals.js'
import { REFUSED } from '../wire/signals.js'
import { PortSocket } from './port-socket.js'

/** How long a stopping worker keeps a connection its caller has not ended (see destroy). */
export const DRAIN_MS = 2000

export class CalleeSocket extends PortSocket {
  /**
   * @param {import('../wire/port-mux.js').PortMux} mux
   * @param {number} id
   * @param {import('./port-socket.js').PortSocketOptions} options
   */
  constructor (mux, id, options) {
    super(mux, id, options)
    /** bytes came in since this side last sent any (a request under way) */
    this.receivedSinceSent = false
    /** @type {NodeJS.Timeout | undefined} */
    this.drainTimer = undefined
  }

  /** A request that begins while the worker stops is refused, not given to the server. */
  admit () {
    if (this.mux.refusing && !this.receivedSinceSent && !httpMessageOf(this)) {
      this.refuse()
      return false
    }
    this.receivedSinceSent = true
    return true
  }

  sent () {
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
    if (!err && this.mux.draining && !this.finReceived && !this.destroyed) {
      this.drainTimer ??= setTimeout(() => super.destroy(), DRAIN_MS).unref()
      return this
    }
    if (this.drainTimer) clearTimeout(this.drainTimer)
    return super.destroy(err ?? undefined)
  }
}
