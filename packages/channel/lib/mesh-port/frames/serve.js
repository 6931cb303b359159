// @ts-check
// Callee side of a frames-wire link: the same PortSession as the HTTP wire's (its
// connections still open for the requests the frames wire leaves to HTTP, and are
// handed to the server as in http/serve.js), plus requests that arrive as a head
// frame on a new id, each served as an Exchange with the server's own
// IncomingMessage and ServerResponse classes.
/** @import http from 'node:http' */
import { serverOpen } from '../../http/serve.js'
import { DEFAULT_WINDOW, PortSocket } from '../../http/port-socket.js'
import { flushOf, PortSession, REFUSED } from '../../http/session.js'
import { serverClasses } from '../../node-internals.js'
import { Exchange } from './exchange.js'

class FramesSession extends PortSession {
  /**
   * @param {import('node:worker_threads').MessagePort} port
   * @param {ConstructorParameters<typeof PortSession>[1] & { onHead: (id: number, head: any) => void }} options
   */
  constructor (port, options) {
    super(port, options)
    this.onHead = options.onHead
  }

  /**
   * A head on an id not open yet starts a request; then the frames go their way as usual
   * (the head itself reaches its Exchange, which ignores it).
   * @param {unknown} message
   */
  onMessage (message) {
    if (Array.isArray(message) && !this.closed) {
      for (let i = 1; i < message.length; i += 2) {
        const payload = message[i]
        if (payload !== null && typeof payload === 'object' && typeof (/** @type {any} */ (payload)).m === 'string' && !this.sockets.has(message[i - 1])) this.onHead(message[i - 1], payload)
      }
    }
    super.onMessage(message)
  }
}

/**
 * The classes the server makes its requests and answers with (createServer's
 * IncomingMessage and ServerResponse options), read from its own symbols once.
 * @type {WeakMap<http.Server, { IncomingMessage: typeof http.IncomingMessage, ServerResponse: typeof http.ServerResponse }>}
 */
const classesOf = new WeakMap()

/** @param {http.Server} server */
function classes (server) {
  let found = classesOf.get(server)
  if (!found) {
    found = serverClasses(server)
    classesOf.set(server, found)
  }
  return found
}

/**
 * Serves a caller's frames-wire link with `server`.
 * @param {http.Server} server
 * @param {import('node:worker_threads').MessagePort} port
 * @param {unknown} meta  the caller's handshake meta ({ caller, wire })
 * @param {{ window?: number, refuseWhenDraining?: boolean }} [options]
 */
export function acceptFrames (server, port, meta, { window = DEFAULT_WINDOW, refuseWhenDraining = false } = {}) {
  serverOpen(server)
  const caller = String(/** @type {{ caller?: unknown }} */ (meta)?.caller ?? 'caller')
  const refuse = () => (session.draining && session.refuseWhenDraining) || !serverOpen(server)
  const session = new FramesSession(port, {
    application: caller,
    flush: flushOf(meta),
    onOpen (id) {
      if (refuse()) return session.send(id, REFUSED)
      server.emit('connection', new PortSocket(session, id, { application: caller, side: 'server', window }))
    },
    onHead (id, head) {
      if (!Number.isSafeInteger(id) || id <= 0) return session.protocolError(`a request on id ${id}`)
      if (refuse()) return session.send(id, REFUSED)
      const exchange = new Exchange(session, id, window)
      session.add(id, exchange)
      exchange.serve(server, head, classes(server))
    }
  })
  session.refuseWhenDraining = refuseWhenDraining
  return session
}
