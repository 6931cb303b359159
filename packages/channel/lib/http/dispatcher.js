// @ts-check
// Caller side of http-port: an undici Pool of CallerSockets (request(), fetch(), stream() run unchanged), all
// on one port to the application (a PortMux). When that port closes (the application crashed, restarted or
// stopped) every pending request fails with a ChannelError naming it; the next connection opens a new port.
import { Pool } from 'undici'
import { ChannelError, CODES, InvalidOptionError } from '../errors.js'
import { openPort, wattMessaging } from '../handshake.js'
import { applicationId } from '../watt/globals.js'
import { PortMux } from '../wire/port-mux.js'
import { DEFAULT_WINDOW, OPEN } from '../wire/signals.js'
import { windowOption } from '../wire/window.js'
import { CallerSocket } from './caller-socket.js'

export const HTTP_PORT_KIND = 'http'

/**
 * Connections per target unless set: no bound, as undici's own Pool and Watt's mesh have none, so a
 * long-lived request (SSE, a long-poll) never makes another wait for a slot. Each is a stream of one
 * port, not a socket; set `connections` to bound the calls in flight (they then queue, as on a TCP pool).
 */
export const DEFAULT_CONNECTIONS = null

/** @typedef {Omit<import('undici').Pool.Options, 'connect' | 'connections' | 'pipelining'>} PoolOptions */

/**
 * @typedef {object} HttpPortDispatcherOptions
 * @property {number} [connections]  connections to the application, like a TCP pool's; default: no bound
 * @property {import('../handshake.js').Messaging} [messaging]  Watt messaging by default
 * @property {number} [window]  flow-control window per connection and direction, bytes
 * @property {string} [origin]  origin for the Host header; default http://<application>.http-port.local
 * @property {PoolOptions} [pool]  any other undici Pool option
 */

/**
 * An undici Dispatcher whose connections reach `application`'s HTTP server in-process.
 * @param {string} application
 * @param {HttpPortDispatcherOptions} [options]
 * @returns {import('undici').Pool}
 */
export function createHttpPortDispatcher (application, options = {}) {
  if (typeof application !== 'string' || application === '') {
    throw new InvalidOptionError(`application must be a non-empty string, not ${JSON.stringify(application)}`)
  }
  const {
    connections = DEFAULT_CONNECTIONS, messaging, window, origin = `http://${application}.http-port.local`, pool = {}
  } = options ?? {}
  const checked = checkPoolOptions({ connections, window, pool })
  if (typeof origin !== 'string' || !URL.canParse(origin)) {
    throw new InvalidOptionError(`origin must be a URL, not ${JSON.stringify(origin)}`)
  }
  const caller = applicationId() ?? 'caller'
  /** @type {Promise<PortMux> | null} */
  let opening = null

  function openMux () {
    const handshake = { messaging: messaging ?? wattMessaging(), meta: { caller } }
    opening ??= openPort(application, HTTP_PORT_KIND, handshake).then(
      (port) => new PortMux(port, { peer: application, onClose: () => { if (opening === current) opening = null } }),
      (err) => { opening = null; throw err }
    )
    const current = opening
    return current
  }

  return new PortPool(origin, openMux, { application, ...checked })
}

/**
 * The connection options of a port pool, checked (a bad one throws InvalidOptionError).
 * @param {{ connections: unknown, window: unknown, pool: unknown }} options
 * @returns {{ connections: number | null, window: number, pool: PoolOptions }}
 */
export function checkPoolOptions ({ connections, window, pool }) {
  if (connections !== null && (!Number.isSafeInteger(connections) || /** @type {number} */ (connections) < 1)) {
    throw new InvalidOptionError(`connections must be a positive integer, not ${JSON.stringify(connections)}`)
  }
  if (pool === null || typeof pool !== 'object' || Array.isArray(pool)) {
    throw new InvalidOptionError('pool must be an object of undici Pool options')
  }
  const owned = ['connect', 'connections', 'pipelining'].filter((name) => name in pool)
  if (owned.length > 0) {
    // pipelining 1: a request a stopping worker refused is sent again alone (caller-socket.js)
    throw new InvalidOptionError(`pool cannot set ${owned.join(' or ')}: the port pool owns them`)
  }
  return {
    connections: /** @type {number | null} */ (connections),
    window: windowOption(window, DEFAULT_WINDOW),
    pool: /** @type {any} */ (pool)
  }
}

/**
 * An undici Pool whose every connection is a CallerSocket on the mux `openMux()` gives (opened
 * lazily, reopened after a loss). It owns the close order: its connections end, then the port.
 */
export class PortPool extends Pool {
  /**
   * @param {string} origin  sets the Host header
   * @param {() => Promise<PortMux>} openMux
   * @param {{ application: string, connections: number | null, window: number, pool?: PoolOptions }} options
   */
  constructor (origin, openMux, { application, connections, window, pool = {} }) {
    /** @type {{ last: PortMux | null, closed: boolean, closing: boolean }} */
    const state = { last: null, closed: false, closing: false }
    /** @type {import('undici').buildConnector.connector} */
    const connect = (_options, callback) => {
      // Always answers in a later turn: called synchronously, the first request was never sent.
      Promise.resolve().then(openMux).then((mux) => {
        state.last = mux
        if (state.closed) mux.close()
        if (mux.closed) throw new ChannelError(application, CODES.CLOSED, 'the port closed while connecting')
        const id = mux.nextId++
        mux.send(id, OPEN)
        callback(null, /** @type {any} */ (new CallerSocket(mux, id, { application, window })))
      }).catch((err) => callback(err, null))
    }
    super(origin, { ...pool, pipelining: 1, connections, connect })
    this.state = state
  }

  /** @param {boolean} [cut]  a destroy: at once, upgraded connections too; else once they have closed */
  closeMux (cut = false) {
    this.state.closed = true
    if (cut) this.state.last?.close()
    else this.state.last?.closeWhenIdle()
  }

  /**
   * undici's promise form calls this with a callback; the port closes when it runs. (Closed on
   * the call instead, a graceful close cut the requests still in flight.)
   * @param {any} [callback]
   * @returns {any}
   */
  close (callback) {
    this.state.closing = true
    if (typeof callback !== 'function') return super.close(callback)
    /** @type {any} */
    const closed = (/** @type {any} */ err, /** @type {any} */ data) => {
      this.closeMux()
      callback(err, data)
    }
    super.close(closed)
  }

  /**
   * A cut: the port closes at once, upgraded connections too. But undici's close() ends in a
   * destroy() of its own, with no error: that one leaves the port to the WebSockets still on it.
   * @param {any} [err]
   * @param {any} [callback]
   * @returns {any}
   */
  destroy (err, callback) {
    if (typeof err === 'function') { callback = err; err = null }
    if (typeof callback !== 'function') return super.destroy(err, callback)
    const cut = err != null || !this.state.closing
    /** @type {any} */
    const destroyed = (/** @type {any} */ error, /** @type {any} */ data) => {
      this.closeMux(cut)
      callback(error, data)
    }
    super.destroy(err, destroyed)
  }
}
