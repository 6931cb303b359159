// @ts-check
// Caller side of http-port: an undici Pool whose connections are PortSockets,
// so request(), fetch() and stream() run unchanged with `{ dispatcher }`. All of
// one pool's connections share one port to the application (a PortSession);
// when that port closes (the application crashed, restarted or stopped) every
// pending request fails with a ChannelError naming it, and the next connection
// opens a new port.
import { Pool } from 'undici'
import { openPort, wattMessaging } from '../handshake.js'
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
  const caller = /** @type {any} */ (globalThis).platformatic?.applicationId ?? 'caller'
  /** @type {Promise<PortSession> | null} */
  let opening = null
  let closed = false

  function session () {
    opening ??= openPort(application, HTTP_PORT_KIND, { messaging: messaging ?? wattMessaging(), meta: { caller } }).then(
      (port) => {
        const opened = new PortSession(port, { application, onClose: () => { if (opening === current) opening = null } })
        if (closed) opened.close()
        return opened
      },
      (err) => { opening = null; throw err }
    )
    const current = opening
    return current
  }

  /** @type {import('undici').buildConnector.connector} */
  const connect = (_options, callback) => {
    // Always answers in a later turn: undici needs its connect callback called
    // asynchronously (called synchronously, the first request was never sent).
    session().then((current) => {
      if (current.closed) throw new Error('the port closed while connecting')
      const id = current.nextId++
      current.send(id, OPEN)
      callback(null, /** @type {any} */ (new PortSocket(current, id, { application, side: 'client', window })))
    }).catch((err) => callback(err, null))
  }

  const dispatcher = new Pool(origin, { pipelining: 1, ...pool, connections, connect })
  // The port closes with the pool (its connections are gone by then).
  const closePort = () => {
    closed = true
    opening?.then((current) => current.close(), () => {})
  }
  const wrapped = /** @type {any} */ (dispatcher)
  for (const method of ['close', 'destroy']) {
    const original = wrapped[method].bind(dispatcher)
    wrapped[method] = (/** @type {unknown[]} */ ...args) => {
      const done = original(...args)
      if (done) done.then(closePort, closePort)
      else closePort()
      return done
    }
  }
  return dispatcher
}
