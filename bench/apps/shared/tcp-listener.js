// @ts-check
// The tcp path's listener, preloaded into the Fastify apps (db and services):
// when the runtime's config gives the application APPS_TCP_PORT, its routes
// also answer on that loopback port, through the same Fastify instance the mesh
// injects into. Without it (ipc, mesh-port) this does nothing: the app code is
// the same on every path, only the configuration differs.
// A preload, not a plugin: @platformatic/db 3.67's plugin loader fails in this
// install ("reading 'root'": db and service resolve two copies of
// @platformatic/foundation, whose config-metadata symbols differ). Fastify's
// `fastify.initialization` channel hands over the app's instance as it is
// created. Watt's capabilities leave that instance unbooted until its first
// mesh request (Fastify's inject boots it), so the first TCP request boots it
// the same way: by awaiting ready(), as inject does.
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { createServer } from 'node:http'

/** Longer than undici's client keep-alive (4 s), so the caller always closes first and never writes into a closing socket. */
const KEEP_ALIVE_MS = 65_000
const CHANNEL = 'fastify.initialization'

subscribe(CHANNEL, onFastify)

/** @param {any} message  { fastify } */
function onFastify (message) {
  unsubscribe(CHANNEL, onFastify) // the capability's instance: the first one built in the app's worker
  // Watt applies the application's env after its preloads: read the port as the app is built.
  const port = Number(process.env.APPS_TCP_PORT)
  if (port) listenBeside(/** @type {import('fastify').FastifyInstance} */ (message.fastify), port)
}

/** @param {import('fastify').FastifyInstance} app @param {number} port */
function listenBeside (app, port) {
  /** @type {Promise<void> | null} */
  let booting = null
  let ready = false
  const boot = () => (booting ??= Promise.resolve(app.ready()).then(() => { ready = true }))
  const server = createServer((req, res) => {
    if (ready) return app.routing(req, res)
    boot().then(() => app.routing(req, res), (err) => {
      res.statusCode = 500
      res.end(String(err?.message ?? err))
    })
  })
  server.keepAliveTimeout = KEEP_ALIVE_MS
  server.on('error', (err) => app.log.error({ err }, `the tcp path's listener on 127.0.0.1:${port} failed`))
  server.listen({ port, host: '127.0.0.1' })
  app.addHook('onClose', (_app, done) => {
    server.closeAllConnections()
    server.close(() => done())
  })
}
