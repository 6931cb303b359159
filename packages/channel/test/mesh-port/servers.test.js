// This thread's HTTP servers, found without the app's help (servers.js): createServer wrapped
// (also as an ESM import), a `new http.Server` seen as it listens, a Fastify app seen as it is
// built; the one server that takes requests is the drop-in's, and none or two is a reason why not.
import t from 'tap'
import { channel } from 'node:diagnostics_channel'
import http, { createServer } from 'node:http'
import { servedByFastify, theServer, watchServers, whenServing } from '../../lib/mesh-port/servers.js'

const listener = (/** @type {http.IncomingMessage} */ _req, /** @type {http.ServerResponse} */ res) => res.end()
/** @param {http.Server} server */
const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
/** @param {http.Server} server */
const close = (server) => new Promise((resolve) => server.close(() => resolve(undefined)))

t.test('before the watch: no server is known', async (t) => {
  http.createServer(listener) // made before the watch: never seen (the next test's theServer() shows it)
  t.match(theServer(), { reason: /^no node:http server in this worker/ })
  t.equal(theServer().server, undefined)
})

t.test('createServer is wrapped, once, for require and import alike', async (t) => {
  const original = http.createServer
  watchServers()
  const wrapped = http.createServer
  t.not(wrapped, original)
  watchServers()
  t.equal(http.createServer, wrapped, 'a second watch changes nothing')
  t.equal(createServer, wrapped, 'the ESM view of node:http is refreshed')
  const server = createServer(listener)
  t.ok(server instanceof http.Server, 'the wrapper still makes servers')
  t.same(theServer(), { server }, 'the one server that takes requests')
  const quiet = http.createServer()
  t.same(theServer(), { server }, 'a server with no request listener does not count')
  quiet.on('request', listener)
  t.match(theServer(), {
    reason: '2 node:http servers in this worker: the drop-in cannot tell which one the mesh serves'
  })
  quiet.removeListener('request', listener)
  await listen(server)
  await close(server)
  t.match(theServer(), { reason: /^no node:http server/ }, 'a closed server is forgotten')
})

t.test('a server made with new http.Server is found when it listens', async (t) => {
  const server = new http.Server(listener)
  t.match(theServer(), { reason: /^no node:http server/ }, 'not before')
  await listen(server)
  t.same(theServer(), { server })
  await close(server)
})

t.test('a Fastify app: found as it is built, served once it is ready', async (t) => {
  const server = createServer(listener)
  t.teardown(() => server.close())
  t.notOk(servedByFastify(server))
  let ready = false
  const app = { server, ready: () => new Promise((resolve) => setTimeout(() => { ready = true; resolve(undefined) }, 20)) }
  channel('fastify.initialization').publish({ fastify: app })
  t.ok(servedByFastify(server))
  await whenServing(server)
  t.ok(ready, 'whenServing waited for ready()')
  channel('fastify.initialization').publish({ fastify: { server: {} } })
  channel('fastify.initialization').publish(null)
  t.pass('a message without an http.Server is ignored')
  const plain = new http.Server()
  await whenServing(plain)
  t.notOk(servedByFastify(plain), 'no Fastify: served at once')
})
