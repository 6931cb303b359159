// @ts-check
// Caller side of http-port: an undici Pool whose connections are PortSockets,
// so request(), fetch() and stream() run unchanged with `{ dispatcher }`. All of
// one pool's connections share one port to the application (a PortSession);
// when that port closes (the application crashed, restarted or stopped) every
// pending request fails with a ChannelError naming it, and the next connection
// opens a new port.
import { Pool } from 'undici'
import { ChannelError, CODES } from '../errors.js'
import { openPort, wattMessaging } from '../handshake.js'
import { applicationId } from '../watt/globals.js'
import { PortSocket } from './port-socket.js'
import { OPEN, PortSession } from './session.js'

export const HTTP_PORT_KIND = 'http'

/**
 * @typedef {object} HttpPortDispatcherOptions
 * @property {number} [connections]  connections to the application, like a TCP pool's; default 16
 * @property {import('../handshake.js').Messaging} [messaging]  Watt messaging by default
 * @property {number} [window]  flow-control window per connection and direction, bytes
 * @property {string} [origin]  origin for the Host header; default http://<application>.http-port.local
 * @property {Omit<import('undici').Pool.Options, 'connect' | 'connections'>} [pool]  any other undici Pool option
 */

/**
 * An undici Dispatcher whose connections reach `application`'s HTTP server in-process.
 * @param {string} application
 * @param {HttpPortDispatcherOptions} [options]
 * @returns {import('undici').Pool}
 */
export function createHttpPortDispatcher (application, { connections = 16, messaging, window, origin = `http://${application}.http-port.local`, pool = {} } = {}) {
  const caller = applicationId() ?? 'caller'
  /** @type {Promise<PortSession> | null} */
  let opening = null

  function session () {
    opening ??= openPort(application, HTTP_PORT_KIND, { messaging: messaging ?? wattMessaging(), meta: { caller } }).then(
      (port) => new PortSession(port, { application, onClose: () => { if (opening === current) opening = null } }),
      (err) => { opening = null; throw err }
    )
    const current = opening
    return current
  }

  return poolOverSessions(origin, session, { application, connections, window, pool })
}

/**
 * An undici Pool whose every connection is a PortSocket on the session `session()`
 * gives (opened lazily, reopened by it after a loss). The port closes with the pool.
 * @param {string} origin  sets the Host header
 * @param {() => Promise<PortSession>} session
 * @param {{ application: string, connections: number, window?: number, pool?: HttpPortDispatcherOptions['pool'] }} options
 * @returns {import('undici').Pool}
 */
export function poolOverSessions (origin, session, { application, connections, window, pool = {} }) {
  /** @type {PortSession | null} */
  let last = null
  let closed = false

  /** @type {import('undici').buildConnector.connector} */
  const connect = (_options, callback) => {
    // Always answers in a later turn: undici needs its connect callback called
    // asynchronously (called synchronously, the first request was never sent).
    Promise.resolve().then(session).then((current) => {
      last = current
      if (closed) current.close()
      if (current.closed) throw new ChannelError(application, CODES.CLOSED, 'the port closed while connecting')
      const id = current.nextId++
      current.send(id, OPEN)
      callback(null, /** @type {any} */ (new PortSocket(current, id, { application, side: 'client', window })))
    }).catch((err) => callback(err, null))
  }

  const dispatcher = new Pool(origin, { pipelining: 1, ...pool, connections, connect })
  // The port closes with the pool (its connections are gone by then).
  const closePort = () => {
    closed = true
    last?.close()
  }
  const wrapped = /** @type {any} */ (dispatcher)
  for (const method of ['close', 'destroy']) {
    const original = wrapped[method].bind(dispatcher)
    wrapped[method] = (/** @type {unknown[]} */ ...args) => {
      // undici's promise form calls this[method](callback): the port closes when the
      // callback runs. (Closed on the call instead, a graceful close cut the requests
      // still in flight, and they waited for their timeout.)
      const callback = typeof args[args.length - 1] === 'function' ? /** @type {Function} */ (args.pop()) : null
      if (callback) return original(...args, (/** @type {unknown[]} */ ...result) => { closePort(); callback(...result) })
      const done = original(...args)
      done.then(closePort, closePort)
      return done
    }
  }
  return dispatcher
}
