// @ts-check
// Callee side of the drop-in: once the worker's application starts, mesh-port handshakes hand each caller's
// connections to the application's own http.Server (servers.js finds it). A worker with no server to offer
// refuses the handshake, and its callers keep using Watt's mesh.
import { threadId } from 'node:worker_threads'
import { ChannelError, CODES } from '../errors.js'
import { acceptPorts, wattMessaging } from '../handshake.js'
import { acceptConnections } from '../http/serve.js'
import { DEFAULT_WINDOW } from '../wire/signals.js'
import { windowOption } from '../wire/window.js'
import { servedByFastify, theServer, watchServers, whenServing } from './servers.js'
import { events, messaging, START_EVENT, STOP_EVENT, workerIndex } from '../watt/globals.js'

/** The handshake name, apart from serveHttpPort's, so an app may run both. */
export const MESH_PORT_KIND = 'mesh-http'

let installed = false
let stopping = false
/** @type {Set<import('../wire/port-mux.js').PortMux>} */
const links = new Set()

/**
 * Once per thread, whatever the factory calls: each link's window is its caller's (handshake meta).
 * @param {{ log: import('./log.js').Log }} options
 */
export function installCallee ({ log }) {
  if (installed) return
  installed = true
  watchServers()
  const register = () => {
    try {
      acceptPorts(MESH_PORT_KIND, async (port, meta) => {
        if (stopping) throw new ChannelError('', CODES.STOPPING, 'this worker is stopping')
        const found = theServer()
        if (!found.server) throw new ChannelError('', CODES.NO_SERVER, found.reason)
        await whenServing(found.server)
        const window = windowOption(/** @type {any} */ (meta)?.window, DEFAULT_WINDOW)
        const refuseWhenDraining = servedByFastify(found.server)
        const mux = acceptConnections(found.server, port, meta, { window, refuseWhenDraining })
        links.add(mux)
        mux.onClose = () => links.delete(mux)
        return { thread: threadId, worker: workerIndex() ?? 0 }
      }, { messaging: wattMessaging() })
    } catch (err) {
      // Callers find no handler and fall back to the mesh.
      log.warn(`mesh-port: this worker does not serve http-port: ${/** @type {Error} */ (err).message}`)
    }
  }
  // Watt's messaging exists once the worker is set up; the 'start' event comes
  // right before the application starts (@platformatic/runtime lib/worker/itc.js).
  if (messaging()) register()
  else events()?.once(START_EVENT, register)
  // Watt stops this worker (a restart, a scale-down, the runtime's stop): callers
  // take no new connection here, and those open finish, as the server drains them.
  events()?.once(STOP_EVENT, () => {
    stopping = true
    for (const mux of links) mux.goAway()
  })
}
