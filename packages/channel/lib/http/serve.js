// @ts-check
// Callee side of http-port: every connection a caller opens is handed to the
// application's existing http.Server as if it had arrived over TCP, so the same
// 'request' listener, parser, timeouts and error handling serve it.
import { ChannelError, CODES } from '../errors.js'
import { acceptPorts, wattMessaging } from '../handshake.js'
import { messaging as wattMessagingApi } from '../watt/globals.js'
import { HTTP_PORT_KIND } from './dispatcher.js'
import { PortSocket } from './port-socket.js'
import { flushOf, PortSession, REFUSED } from './session.js'

/**
 * Serves http-port connections with `server`. One server per application
 * (worker): the handshake name is per kind, as messaging handlers are.
 * @param {import('node:http').Server} server
 * @param {{ messaging?: import('../handshake.js').Messaging, window?: number }} [options]
 * @returns {import('node:http').Server}
 */
export function serveHttpPort (server, { messaging, window } = {}) {
  serverOpen(server)
  acceptPorts(HTTP_PORT_KIND, (port, meta) => {
    // Throwing refuses the handshake: the caller's connect fails with WATT_CHANNEL_UNREACHABLE.
    if (!serverOpen(server)) throw new ChannelError('', CODES.NO_SERVER, 'the HTTP server is closed')
    acceptConnections(server, port, meta, { window })
  }, { messaging: messaging ?? wattMessaging() })
  return server
}

const closedServers = new WeakSet()
const watchedServers = new WeakSet()

/**
 * False once `server` has emitted 'close' (watched from the first call on).
 * @param {import('node:http').Server} server
 */
export function serverOpen (server) {
  if (!watchedServers.has(server)) {
    watchedServers.add(server)
    server.once('close', () => closedServers.add(server))
  }
  return !closedServers.has(server)
}

/**
 * Hands every connection a caller opens on `port` to `server`, as if it had arrived over TCP.
 * @param {import('node:http').Server} server
 * @param {import('node:worker_threads').MessagePort} port
 * @param {unknown} meta  the caller's handshake meta ({ caller })
 * @param {{ window?: number, refuseWhenDraining?: boolean }} [options]  refuseWhenDraining: once the
 *   worker stops (GOAWAY sent), requests that begin are refused (the caller sends them to
 *   another worker) rather than given to a server that would not serve them (a closing Fastify)
 */
export function acceptConnections (server, port, meta, { window, refuseWhenDraining = false } = {}) {
  serverOpen(server)
  const caller = String(/** @type {{ caller?: unknown }} */ (meta)?.caller ?? 'caller')
  // The session keeps the thread alive only while a connection is open, as sockets do.
  const session = new PortSession(port, {
    application: caller,
    flush: flushOf(meta),
    onOpen (id) {
      // A closed server (or one that would refuse) takes no new connection: the caller
      // may move it to another worker (REFUSED: nothing was served on it).
      if ((session.draining && session.refuseWhenDraining) || !serverOpen(server)) return session.send(id, REFUSED)
      server.emit('connection', new PortSocket(session, id, { application: caller, side: 'server', window }))
    }
  })
  session.refuseWhenDraining = refuseWhenDraining
  return session
}

/**
 * For downstream services that may run outside Watt (unit tests, plain node):
 * serve http-port when Watt messaging is there, do nothing otherwise.
 * @param {import('node:http').Server} server
 * @returns {import('node:http').Server}
 */
export function serveHttpPortInWatt (server) {
  if (wattMessagingApi()) serveHttpPort(server)
  return server
}
