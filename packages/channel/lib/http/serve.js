// @ts-check
// Callee side of http-port: every connection a caller opens is handed to the
// application's existing http.Server as if it had arrived over TCP, so the same
// 'request' listener, parser, timeouts and error handling serve it.
import { EventEmitter } from 'node:events'
import { ChannelError, CODES, InvalidOptionError } from '../errors.js'
import { acceptPorts, wattMessaging } from '../handshake.js'
import { messaging as wattMessagingApi } from '../watt/globals.js'
import { HTTP_PORT_KIND } from './dispatcher.js'
import { PortMux } from '../wire/port-mux.js'
import { DEFAULT_WINDOW, REFUSED } from '../wire/signals.js'
import { windowOption } from '../wire/window.js'
import { CalleeSocket, trackRequests } from './callee-socket.js'

/**
 * Serves http-port connections with `server`. One server per application
 * (worker): the handshake name is per kind, as messaging handlers are.
 * @param {import('node:http').Server} server
 * @param {{ messaging?: import('../handshake.js').Messaging, window?: number }} [options]
 * @returns {import('node:http').Server}
 */
export function serveHttpPort (server, { messaging, window } = {}) {
  if (!(server instanceof EventEmitter) || typeof (/** @type {any} */ (server)).emit !== 'function') {
    throw new InvalidOptionError('serveHttpPort needs a node:http Server (for Fastify, pass app.server)')
  }
  const windowSize = windowOption(window, DEFAULT_WINDOW)
  serverOpen(server)
  acceptPorts(HTTP_PORT_KIND, (port, meta) => {
    // Throwing refuses the handshake: the caller's connect fails with WATT_CHANNEL_UNREACHABLE.
    if (!serverOpen(server)) throw new ChannelError('', CODES.NO_SERVER, 'the HTTP server is closed')
    acceptConnections(server, port, meta, { window: windowSize })
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
 * @param {{ window?: number, refuseWhenDraining?: boolean }} [options]
 *   refuseWhenDraining: once the worker stops (GOAWAY sent), requests that begin are refused (the
 *   caller sends them to another worker) rather than given to a server that would not serve them
 * @returns {PortMux}
 */
export function acceptConnections (server, port, meta, { window = DEFAULT_WINDOW, refuseWhenDraining = false } = {}) {
  serverOpen(server)
  if (refuseWhenDraining) trackRequests(server)
  const caller = String(/** @type {{ caller?: unknown }} */ (meta)?.caller ?? 'caller')
  const options = { application: caller, window, refuseWhenDraining }
  // The mux keeps the thread alive only while a connection is open, as sockets do.
  const mux = new PortMux(port, {
    peer: caller,
    accept (id) {
      // A closed server (or one that would refuse) takes no new stream: the caller may move
      // it to another worker (REFUSED: nothing was served on it).
      if ((refuseWhenDraining && mux.draining) || !serverOpen(server)) mux.send(id, REFUSED)
      else server.emit('connection', new CalleeSocket(mux, id, options))
    }
  })
  return mux
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
