// The callee side of http-port (serve.js): each stream a caller opens is a connection of the
// app's own http.Server; a closed server refuses the handshake (NO_SERVER) and any new stream
// (REFUSED, so the caller may go elsewhere), and so does a draining mux that refuses when draining.
import t from 'tap'
import { once } from 'node:events'
import { createServer } from 'node:http'
import { MessageChannel } from 'node:worker_threads'
import { request } from 'undici'
import { CalleeSocket } from '../../lib/http/callee-socket.js'
import { createHttpPortDispatcher } from '../../lib/http/dispatcher.js'
import { acceptConnections, serveHttpPort, serveHttpPortInWatt, serverOpen } from '../../lib/http/serve.js'
import { FIN, OPEN, REFUSED } from '../../lib/wire/signals.js'
import { localMessaging } from '../helpers/local-messaging.js'

/** A bare caller port on a mux served by `server`: what the callee sends back, frame by frame. */
function bareCaller (/** @type {import('node:http').Server} */ server, meta = {}, options = {}) {
  const { port1, port2 } = new MessageChannel()
  const mux = acceptConnections(server, port1, meta, options)
  /** @type {unknown[]} the (stream id, payload) pairs of streams, stream 0's (the idle flag, pings) left out */
  const got = []
  port2.on('message', (/** @type {unknown[]} */ m) => {
    for (let i = 0; i < m.length; i += 2) if (m[i] !== 0) got.push(m[i], m[i + 1])
  })
  t.teardown(() => { mux.close(); port2.close() })
  return { mux, port: port2, got }
}

const until = async (/** @type {() => boolean} */ check, what = 'a condition') => {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  if (!check()) throw new Error(`timed out waiting for ${what}`)
}

t.test('a stream is a connection of the server, named for its caller; the server answers on it', async (t) => {
  const server = createServer((req, res) => res.end(`hi ${req.url}`))
  /** @type {import('node:net').Socket[]} */
  const connections = []
  server.on('connection', (socket) => connections.push(socket))
  const { port, got } = bareCaller(server, { caller: 'front' })
  port.postMessage([1, OPEN, 1, 'GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n'])
  await until(() => got.includes(FIN), 'the answer and its end')
  t.equal(connections.length, 1)
  t.ok(connections[0] instanceof CalleeSocket)
  t.equal(/** @type {any} */ (connections[0]).application, 'front', 'errors name the caller')
  const text = got.filter((p, i) => i % 2 === 1 && typeof p === 'string').join('')
  t.match(text, /^HTTP\/1\.1 200 OK\r\n/)
  t.match(text, /hi \/x$/)
})

t.test('serveHttpPort: requests over the dispatcher reach the server; the server is returned', async (t) => {
  const messaging = localMessaging()
  const server = createServer((req, res) => res.end('served'))
  t.equal(serveHttpPort(server, { messaging }), server)
  const pool = createHttpPortDispatcher('app', { messaging })
  t.teardown(() => pool.destroy())
  const { body } = await request('http://app.http-port.local/', { dispatcher: pool })
  t.equal(await body.text(), 'served')
})

t.test('a closed server refuses the handshake with NO_SERVER, and new streams with REFUSED', async (t) => {
  const messaging = localMessaging()
  const server = createServer((req, res) => res.end('never'))
  serveHttpPort(server, { messaging })
  const early = bareCaller(server)
  t.ok(serverOpen(server))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  server.close()
  await once(server, 'close')
  t.notOk(serverOpen(server), 'closed once it emitted close')
  const pool = createHttpPortDispatcher('app', { messaging })
  t.teardown(() => pool.destroy())
  const err = await request('http://app.http-port.local/', { dispatcher: pool }).catch((e) => e)
  t.match(err, { code: 'WATT_CHANNEL_UNREACHABLE', message: /the HTTP server is closed/ })
  t.equal(err.cause?.code, 'WATT_CHANNEL_NO_SERVER', 'the callee\'s refusal, coded')
  early.port.postMessage([1, OPEN])
  await until(() => early.got.length >= 2, 'the answer')
  t.same(early.got, [1, REFUSED], 'a port opened before: its new stream is refused, not served')
})

t.test('refuseWhenDraining: once the mux sent GOAWAY, a new stream is refused', async (t) => {
  const server = createServer((req, res) => res.end('ok'))
  let connections = 0
  server.on('connection', () => { connections++ })
  const draining = bareCaller(server, {}, { refuseWhenDraining: true })
  draining.mux.goAway()
  draining.port.postMessage([3, OPEN])
  await until(() => draining.got.includes(REFUSED), 'the refusal')
  t.same(draining.got.slice(-2), [3, REFUSED])
  const plain = bareCaller(server)
  plain.mux.goAway()
  plain.port.postMessage([4, OPEN])
  await until(() => connections === 1, 'the connection')
  t.equal(connections, 1, 'without the option a draining mux still takes it (node:http answers it)')
})

t.test('serveHttpPortInWatt serves only where Watt messaging exists', async (t) => {
  const server = createServer()
  t.equal(serveHttpPortInWatt(server), server, 'outside Watt: nothing done, no throw')
  const messaging = localMessaging()
  globalThis.platformatic = /** @type {any} */ ({ messaging })
  t.teardown(() => { delete globalThis.platformatic })
  const served = createServer()
  t.equal(serveHttpPortInWatt(served), served)
  t.ok(messaging.handlers.has('watt-lab-channel:http'), 'in Watt: its handshake registered on Watt messaging')
})
