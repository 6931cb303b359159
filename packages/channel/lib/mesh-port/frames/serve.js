// @ts-check
// Callee side of a frames-wire link: the HTTP wire's mux (its connections still open for
// the requests the frames wire leaves to HTTP), plus requests that arrive as a head frame
// on a new stream, each served as an Exchange with the server's own message classes.
/** @import http from 'node:http' */
import { acceptConnections } from '../../http/serve.js'
import { DEFAULT_WINDOW } from '../../wire/signals.js'
import { serverClasses } from '../../node-internals.js'
import { Exchange } from './exchange.js'

/** @typedef {{ IncomingMessage: typeof http.IncomingMessage, ServerResponse: typeof http.ServerResponse }} Classes */

/**
 * The classes the server makes its requests and answers with (createServer's
 * IncomingMessage and ServerResponse options), read from its own symbols once.
 * @type {WeakMap<http.Server, Classes>}
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
 * Serves a caller's frames-wire link with `server`: its HTTP connections as http/serve.js does,
 * and each request that arrives as a head frame as an Exchange.
 * @param {http.Server} server
 * @param {import('node:worker_threads').MessagePort} port
 * @param {unknown} meta  the caller's handshake meta ({ caller, wire, flush })
 * @param {{ window?: number, refuseWhenDraining?: boolean }} [options]
 */
export function acceptFrames (server, port, meta, { window = DEFAULT_WINDOW, refuseWhenDraining = false } = {}) {
  return acceptConnections(server, port, meta, {
    window,
    refuseWhenDraining,
    onHead (mux, id, head) {
      const exchange = new Exchange(mux, id, window)
      mux.add(id, exchange)
      exchange.serve(server, head, classes(server))
    }
  })
}
