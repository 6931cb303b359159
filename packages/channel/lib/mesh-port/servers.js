// @ts-check
// The HTTP servers of this thread, found without touching the app's code: createServer is
// wrapped, and a server built with `new http.Server` is seen as it listens. The drop-in
// installs before the app's code loads, so every server is made after this watch begins.
import { subscribe, tracingChannel } from 'node:diagnostics_channel'
import http from 'node:http'
import { syncBuiltinESMExports } from 'node:module'

/** @type {Set<http.Server>} */
const servers = new Set()
/**
 * Fastify instances by their server: one that never listens (a non-entrypoint
 * @platformatic/service) is made ready only by its first inject, and serving real
 * HTTP before its hooks are compiled crashes it, so the callee awaits ready() first.
 * @type {WeakMap<http.Server, { ready: () => PromiseLike<unknown> }>}
 */
const fastifyOf = new WeakMap()
let installed = false

export function watchServers () {
  if (installed) return
  installed = true
  const original = http.createServer
  /**
   * @this {unknown}
   * @param {any[]} args
   */
  function createServer (...args) {
    const server = /** @type {any} */ (original).apply(this, args)
    remember(server)
    return server
  }
  http.createServer = /** @type {typeof http.createServer} */ (createServer)
  // `import { createServer } from 'node:http'` reads the ESM view of the module: refresh it.
  syncBuiltinESMExports()
  // Published by every Fastify instance as it is built (fastify.js, initChannel).
  subscribe('fastify.initialization', (/** @type {any} */ message) => {
    const app = message?.fastify
    if (app?.server instanceof http.Server) fastifyOf.set(app.server, app)
  })
  const noop = () => {}
  // Node publishes asyncStart as listen() begins, and not start: both are taken.
  const listening = (/** @type {any} */ context) => {
    if (context?.server instanceof http.Server) remember(context.server)
  }
  tracingChannel('net.server.listen').subscribe({
    start: listening,
    end: noop,
    asyncStart: listening,
    asyncEnd: noop,
    error: noop
  })
}

/** @param {http.Server} server */
function remember (server) {
  if (servers.has(server)) return
  servers.add(server)
  server.once('close', () => servers.delete(server))
}

/**
 * Resolves once `server` can take real HTTP (its Fastify app, if any, is ready).
 * @param {http.Server} server
 */
export async function whenServing (server) {
  await fastifyOf.get(server)?.ready()
}

/**
 * Whether a Fastify app serves `server`: once it closes, it answers every request that
 * begins on a kept connection 503 (return503OnClosing), where node:http serves it.
 * @param {http.Server} server
 */
export function servedByFastify (server) {
  return fastifyOf.has(server)
}

/**
 * The one HTTP server of this worker, or why there is none to serve http-port with.
 * @returns {{ server: http.Server, reason?: undefined } | { server?: undefined, reason: string }}
 */
export function theServer () {
  const serving = [...servers].filter((server) => server.listenerCount('request') > 0)
  if (serving.length === 1) return { server: serving[0] }
  if (serving.length === 0) {
    return {
      reason: 'no node:http server in this worker ' +
        '(an app without HTTP, one run as a child process, or one the mesh reaches by inject only)'
    }
  }
  const reason = `${serving.length} node:http servers in this worker: the drop-in cannot tell which one the mesh serves`
  return { reason }
}
