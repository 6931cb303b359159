// @ts-check
// How the realtime apps behind the entrypoint listen: on the loopback port
// their configuration gives them (REALTIME_TCP_PORT, the tcp path's fair
// baseline: the same server, a real socket) or on any free loopback port when
// it gives none (Watt captures the server as it listens and reaches it over
// its mesh, or the drop-in over http-port, either way). Closed when Watt stops
// the application, so no keep-alive socket holds the worker.

/** Longer than undici's client keep-alive (4 s): the caller always closes first and never writes into a closing socket. */
const KEEP_ALIVE_MS = 65_000

/**
 * @param {import('node:http').Server} server
 */
export function listenOnLoopback (server) {
  server.keepAliveTimeout = KEEP_ALIVE_MS
  server.listen({ port: Number(process.env.REALTIME_TCP_PORT) || 0, host: '127.0.0.1' })
  const events = /** @type {any} */ (globalThis).platformatic?.events
  events?.on('close', () => {
    server.closeAllConnections()
    server.close()
  })
}
