// The caller side of http-port (dispatcher.js) against a node:http server in this thread (served
// by serve.js over a local messaging): an undici Pool whose connections open lazily over one
// port, reopened after a loss; a handshake that fails fails the request with UNREACHABLE; close()
// lets requests in flight finish before the port goes. (Each option's check: options.test.js.)
import t from 'tap'
import { createServer } from 'node:http'
import { Pool, request } from 'undici'
import { checkPoolOptions, createHttpPortDispatcher, HTTP_PORT_KIND, PortPool } from '../../lib/http/dispatcher.js'
import { serveHttpPort } from '../../lib/http/serve.js'
import { DEFAULT_WINDOW } from '../../lib/wire/signals.js'
import { localMessaging } from '../helpers/local-messaging.js'

/** A server answering with what it saw, served over http-port; every handshake's meta. */
function app () {
  const messaging = localMessaging()
  /** @type {unknown[]} */
  const metas = []
  /** @type {import('node:http').ServerResponse[]} */
  const held = []
  const server = createServer((req, res) => {
    const answer = () => res.end(JSON.stringify({ host: req.headers.host, path: req.url, method: req.method }))
    if (req.url === '/hold') held.push(Object.assign(res, { answer }))
    else answer()
  })
  serveHttpPort(server, { messaging })
  const accept = /** @type {(data: any) => unknown} */ (messaging.handlers.get(`watt-lab-channel:${HTTP_PORT_KIND}`))
  messaging.handlers.set(`watt-lab-channel:${HTTP_PORT_KIND}`, (data) => { metas.push(data.meta); return accept(data) })
  return { messaging, metas, server, held }
}

/** @param {Pool} pool @param {string} path */
const get = async (pool, path, origin = 'http://app.http-port.local') => {
  const { statusCode, body } = await request(`${origin}${path}`, { dispatcher: pool })
  return { statusCode, ...JSON.parse(await body.text()) }
}

t.test('a Pool of port connections: requests reach the server, Host from the origin', async (t) => {
  const { messaging, metas } = app()
  const pool = createHttpPortDispatcher('app', { messaging })
  t.teardown(() => pool.destroy())
  t.ok(pool instanceof PortPool && pool instanceof Pool)
  t.same(metas, [], 'nothing opened before the first request')
  const answers = await Promise.all([get(pool, '/a'), get(pool, '/b'), get(pool, '/c')])
  t.same(answers, ['/a', '/b', '/c'].map((path) => ({ statusCode: 200, host: 'app.http-port.local', path, method: 'GET' })))
  t.same(metas, [{ caller: 'caller' }], 'one handshake for every connection; outside Watt the caller is "caller"')
  const other = createHttpPortDispatcher('app', { messaging, origin: 'http://pricing.internal:8080' })
  t.teardown(() => other.destroy())
  t.equal((await get(other, '/x', 'http://pricing.internal:8080')).host, 'pricing.internal:8080', 'origin sets Host')
})

t.test('connections bounds the requests in flight; the rest queue', async (t) => {
  const { messaging, held } = app()
  const pool = createHttpPortDispatcher('app', { messaging, connections: 1 })
  t.teardown(() => pool.destroy())
  const first = get(pool, '/hold')
  const second = get(pool, '/after')
  for (let i = 0; i < 200 && held.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5))
  t.equal(held.length, 1, 'the first request reached the server')
  let secondDone = false
  second.then(() => { secondDone = true })
  await new Promise((resolve) => setTimeout(resolve, 30))
  t.notOk(secondDone, 'the second waits for the one connection')
  held[0].answer()
  t.equal((await first).path, '/hold')
  t.equal((await second).path, '/after')
})

t.test('a failed handshake fails the request with UNREACHABLE; the next request tries again', async (t) => {
  const messaging = localMessaging()
  const pool = createHttpPortDispatcher('missing', { messaging })
  t.teardown(() => pool.destroy())
  const err = await request('http://missing.http-port.local/', { dispatcher: pool }).catch((e) => e)
  t.match(err, { name: 'ChannelError', code: 'WATT_CHANNEL_UNREACHABLE', application: 'missing' })
  const server = createServer((req, res) => res.end('now'))
  serveHttpPort(server, { messaging })
  const { body } = await request('http://missing.http-port.local/', { dispatcher: pool })
  t.equal(await body.text(), 'now', 'a new handshake, now answered')
})

t.test('the port lost: requests after it open a new one', async (t) => {
  const { messaging, metas } = app()
  const pool = createHttpPortDispatcher('app', { messaging })
  t.teardown(() => pool.destroy())
  await get(pool, '/one')
  pool.state.last?.port.close()
  for (let i = 0; i < 100 && !pool.state.last?.closed; i++) await new Promise((resolve) => setTimeout(resolve, 5))
  t.ok(pool.state.last?.closed, 'the mux saw its port close')
  t.equal((await get(pool, '/two')).path, '/two')
  t.equal(metas.length, 2, 'a second handshake')
})

t.test('close() lets a request in flight finish, then closes the port; destroy() closes at once', async (t) => {
  const { messaging, held } = app()
  const pool = createHttpPortDispatcher('app', { messaging })
  const inFlight = get(pool, '/hold')
  for (let i = 0; i < 200 && held.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5))
  const mux = pool.state.last
  const closing = pool.close()
  t.notOk(mux?.closed, 'the port stays while the request is in flight')
  held[0].answer()
  t.equal((await inFlight).path, '/hold')
  await closing
  for (let i = 0; i < 100 && !mux?.closed; i++) await new Promise((resolve) => setTimeout(resolve, 5))
  t.ok(mux?.closed, 'closed after')
  const other = createHttpPortDispatcher('app', { messaging: app().messaging })
  await get(other, '/x')
  const otherMux = other.state.last
  await other.destroy()
  t.ok(otherMux?.closed, 'destroy: closed')
  t.ok(other.state.closed)
})

t.test('close() leaves an upgraded connection open until it closes; destroy() cuts it', async (t) => {
  const { messaging, server } = app()
  /** @type {Error[]} */
  const serverErrors = []
  server.on('upgrade', (_req, socket) => {
    socket.on('error', (err) => serverErrors.push(err))
    socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: echo\r\nconnection: upgrade\r\n\r\n')
    socket.on('data', (data) => socket.write(data))
    socket.on('end', () => socket.end())
  })
  const upgraded = async (/** @type {Pool} */ pool) => {
    const { socket } = await pool.upgrade({ path: '/ws', protocol: 'echo' })
    return socket
  }
  const echo = (/** @type {import('node:stream').Duplex} */ socket, /** @type {string} */ text) => new Promise((resolve, reject) => {
    socket.once('data', (data) => resolve(String(data)))
    socket.once('error', reject)
    socket.write(text)
  })

  const graceful = createHttpPortDispatcher('app', { messaging })
  const kept = await upgraded(graceful)
  await graceful.close()
  t.equal(await echo(kept, 'after close'), 'after close', 'the pool is closed, its WebSocket goes on (undici\'s close ends in a destroy of its own)')
  kept.end()
  await new Promise((resolve) => kept.once('close', resolve))
  t.pass('and closes when its ends are done')

  const cut = createHttpPortDispatcher('app', { messaging })
  const doomed = await upgraded(cut)
  const closed = new Promise((resolve) => doomed.once('close', resolve))
  doomed.on('error', () => {})
  await cut.destroy()
  await closed
  t.ok(doomed.destroyed, 'a destroy cuts it')
  while (serverErrors.length === 0) await new Promise((resolve) => setImmediate(resolve))
  t.match(serverErrors, [{ code: 'ECONNRESET' }], 'and the server\'s end sees a reset, as from a TCP peer that went away')
})

t.test('checkPoolOptions gives the checked options with their defaults', async (t) => {
  t.same(checkPoolOptions({ connections: 4, window: undefined, pool: { keepAliveTimeout: 5 } }),
    { connections: 4, window: DEFAULT_WINDOW, pool: { keepAliveTimeout: 5 } })
  t.equal(checkPoolOptions({ connections: 1, window: 4096, pool: {} }).window, 4096)
  t.throws(() => checkPoolOptions({ connections: 2, window: undefined, pool: { pipelining: 1 } }),
    { code: 'WATT_CHANNEL_INVALID_OPTION', message: 'pool cannot set pipelining: the port pool owns them' })
})

t.test("outside Watt, with no messaging given, the first request fails with NO_WATT's reason", async (t) => {
  const pool = createHttpPortDispatcher('app')
  t.teardown(() => pool.destroy())
  const err = await request('http://app.http-port.local/', { dispatcher: pool }).catch((e) => e)
  t.match(err, { code: 'WATT_CHANNEL_NO_WATT', message: /needs Watt messaging/ })
})
