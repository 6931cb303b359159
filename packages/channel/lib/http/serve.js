// @ts-check
// Callee side of http-port: every connection a caller opens is handed to the
// application's existing http.Server as if it had arrived over TCP, so the same
// 'request' listener, parser, timeouts and error handling serve it.
import { acceptPorts, wattMessaging } from '../handshake.js'
import { HTTP_PORT_KIND } from './dispatcher.js'
import { PortSocket } from './port-socket.js'
import { PortSession, RESET } from './session.js'

/**
 * Serves http-port connections with `server`. One server per application
 * (worker): the handshake name is per kind, as messaging handlers are.
 * @param {import('node:http').Server} server
 * @param {{ messaging?: import('../handshake.js').Messaging, window?: number }} [options]
 * @returns {import('node:http').Server}
 */
export function serveHttpPort (server, { messaging, window } = {}) {
  let closed = false
  server.once('close', () => { closed = true })
  acceptPorts(HTTP_PORT_KIND, (port, meta) => {
    // Throwing refuses the handshake: the caller's connect fails with 'unreachable'.
    if (closed) throw new Error('the HTTP server is closed')
    const caller = String(/** @type {{ caller?: unknown }} */ (meta)?.caller ?? 'caller')
    // The session keeps the thread alive only while a connection is open, as sockets do.
    const session = new PortSession(port, {
      application: caller,
      onOpen (id) {
        // A closed server takes no new connections, as a closed listener.
        if (closed) return session.send(id, RESET)
        server.emit('connection', new PortSocket(session, id, { application: caller, side: 'server', window }))
      }
    })
  }, { messaging: messaging ?? wattMessaging() })
  return server
}

/**
 * For downstream services that may run outside Watt (unit tests, plain node):
 * serve http-port when Watt messaging is there, do nothing otherwise.
 * @param {import('node:http').Server} server
 * @returns {import('node:http').Server}
 */
export function serveHttpPortInWatt (server) {
  if (/** @type {any} */ (globalThis).platformatic?.messaging) serveHttpPort(server)
  return server
}
