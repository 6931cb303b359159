// http-port when things go wrong: a callee that crashes, is restarted, hangs,
// is stopped or terminated, and peers that send malformed data. Pending
// requests must fail fast with an error naming the application, and the same
// dispatcher must work again once the application is back.
import { connect } from 'node:net'
import t from 'tap'
import { ChannelError } from '../../index.js'
import { createHttpPortDispatcher } from '../../http.js'
import { openPort } from '../../lib/handshake.js'
import { CallerSocket } from '../../lib/http/caller-socket.js'
import { PortMux } from '../../lib/wire/port-mux.js'
import { startServerWorker } from '../helpers/start-server-worker.js'

/** Watt messaging routes to whichever worker runs the application now: so does this. */
function switchableMessaging () {
  let current = null
  return {
    use (messaging) { current = messaging },
    handle () { throw new Error('unused') },
    send (...args) { return current.send(...args) }
  }
}

async function body (answer) {
  return Buffer.from(await answer.body.arrayBuffer())
}

t.test('a crash fails the pending request naming the application; the pool reconnects to the restarted one', async (t) => {
  const messaging = switchableMessaging()
  let server = await startServerWorker()
  messaging.use(server.messaging)
  const dispatcher = createHttpPortDispatcher('node3', { messaging, connections: 2 })
  t.teardown(() => dispatcher.destroy())
  t.equal((await dispatcher.request({ method: 'GET', path: '/bytes?size=5' })).statusCode, 200)

  server.worker.on('error', () => {}) // the crash itself, expected
  const err = await dispatcher.request({ method: 'GET', path: '/crash' }).catch((e) => e)
  t.ok(err instanceof ChannelError, `a ChannelError (${err})`)
  t.equal(err.application, 'node3')
  t.equal(err.code, 'WATT_CHANNEL_CLOSED')
  t.match(err.message, /^node3: /)

  server = await startServerWorker() // "restarted"
  messaging.use(server.messaging)
  t.teardown(() => server.worker.terminate())
  const answer = await dispatcher.request({ method: 'GET', path: '/bytes?size=7' })
  t.equal(answer.statusCode, 200)
  t.equal((await body(answer)).length, 7)
})

t.test('a hung callee: the caller\'s deadline aborts the request and the server sees it close', async (t) => {
  const { worker, messaging } = await startServerWorker()
  const dispatcher = createHttpPortDispatcher('type1', { messaging, connections: 2 })
  t.teardown(async () => { await dispatcher.close(); await worker.terminate() })
  const events = async () => JSON.parse((await body(await dispatcher.request({ method: 'GET', path: '/events' }))).toString())
  const deadline = new AbortController()
  const pending = dispatcher.request({ method: 'GET', path: '/hang', signal: deadline.signal })
  // The deadline starts once the server holds the request (a fixed timeout could
  // expire before the request even arrives on a loaded machine).
  const until = Date.now() + 20_000
  while (Date.now() < until && !(await events()).includes('request /hang'));
  setTimeout(() => deadline.abort(new DOMException('deadline', 'TimeoutError')), 50)
  await t.rejects(pending, { name: 'TimeoutError' })
  let seen = []
  while (Date.now() < until && !seen.includes('close /hang')) seen = await events()
  t.ok(seen.includes('close /hang'))
})

t.test('a stopped server refuses new connections with an error naming the application', async (t) => {
  const { worker, messaging } = await startServerWorker()
  const dispatcher = createHttpPortDispatcher('type4', { messaging })
  t.teardown(async () => { await dispatcher.destroy(); await worker.terminate() })
  t.equal((await dispatcher.request({ method: 'GET', path: '/bytes?size=1' })).statusCode, 200)
  worker.postMessage({ type: 'stop' })
  const deadline = Date.now() + 20_000
  let err = null
  while (Date.now() < deadline && !err) {
    err = await dispatcher.request({ method: 'GET', path: '/bytes?size=1' }).then((a) => { a.body.dump(); return null }, (e) => e)
  }
  t.ok(err instanceof ChannelError, `${err}`)
  t.equal(err.application, 'type4')
  // A new port is refused at the handshake, too.
  const fresh = createHttpPortDispatcher('type4', { messaging })
  const refused = await fresh.request({ method: 'GET', path: '/bytes?size=1' }).catch((e) => e)
  await fresh.destroy()
  t.equal(refused.code, 'WATT_CHANNEL_UNREACHABLE')
  t.match(refused.message, /type4: could not open/)
})

t.test('a terminated worker fails every pending request at once', async (t) => {
  const { worker, messaging } = await startServerWorker()
  const dispatcher = createHttpPortDispatcher('fastify2', { messaging, connections: 5 }) // 4 hang, 1 polls
  t.teardown(() => dispatcher.destroy())
  const pending = Array.from({ length: 4 }, () => dispatcher.request({ method: 'GET', path: '/hang' }).catch((e) => e))
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    const events = JSON.parse((await body(await dispatcher.request({ method: 'GET', path: '/events' }))).toString())
    if (events.filter((e) => e === 'request /hang').length === 4) break
  }
  await worker.terminate()
  for (const err of await Promise.all(pending)) {
    t.ok(err instanceof ChannelError && err.application === 'fastify2' && err.code === 'WATT_CHANNEL_CLOSED', `${err}`)
  }
})

/** A callee in this thread that answers every http-port handshake with `reply`. */
function garbageCallee (reply) {
  return {
    handle () {},
    async send (_application, _name, data) {
      const port = data.port
      port.on('message', (message) => {
        if (Array.isArray(message) && message.includes(-3)) reply(port, message[0])
      })
      return { accepted: 'http' }
    }
  }
}

t.test('a callee that answers garbage frames: a protocol error naming it, no hang', async (t) => {
  const replies = [
    (port) => port.postMessage('not frames'),
    (port) => port.postMessage([1]),
    (port, id) => port.postMessage([id, { what: 'object' }]),
    (port, id) => port.postMessage([id, 10 * 1024 * 1024]), // credit beyond any window
    (port, id) => port.postMessage(['x', 'HTTP/1.1 200 OK\r\n\r\n'])
  ]
  for (const reply of replies) {
    const dispatcher = createHttpPortDispatcher('node3', { messaging: garbageCallee(reply) })
    const err = await dispatcher.request({ method: 'GET', path: '/' }).catch((e) => e)
    await dispatcher.destroy()
    t.ok(err instanceof ChannelError, `${err}`)
    t.equal(err.code, 'WATT_CHANNEL_PROTOCOL')
    t.match(err.message, /^node3: malformed http-port/)
  }
})

t.test('a callee that answers bytes that are not HTTP: undici\'s parser error, no hang', async (t) => {
  const dispatcher = createHttpPortDispatcher('node3', { messaging: garbageCallee((port, id) => port.postMessage([id, 'SSH-2.0-OpenSSH\r\n\r\n'])) })
  await t.rejects(dispatcher.request({ method: 'GET', path: '/' }), { name: 'HTTPParserError' })
  await dispatcher.destroy()
})

/** @param {CallerSocket | import('node:net').Socket} socket */
function readAll (socket, send) {
  return new Promise((resolve, reject) => {
    const parts = []
    socket.on('data', (part) => parts.push(part))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(parts).toString('latin1')))
    socket.end(send)
  })
}

t.test('malformed HTTP from a caller: the server answers it exactly as over TCP, and keeps serving', async (t) => {
  const { worker, messaging, tcpOrigin } = await startServerWorker()
  t.teardown(() => worker.terminate())
  const garbage = 'GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'
  const url = new URL(tcpOrigin)
  const overTcp = await readAll(connect(Number(url.port), url.hostname), garbage)

  const port = await openPort('server', 'http', { messaging })
  const session = new PortMux(port, { peer: 'server' })
  session.send(1, -3)
  const overPort = await readAll(new CallerSocket(session, 1, { application: 'server' }), garbage)
  t.match(overTcp, /^HTTP\/1.1 400 Bad Request/)
  t.equal(overPort, overTcp)

  // Frames that are not frames: that port is dropped, the server lives on.
  const bad = await openPort('server', 'http', { messaging })
  const closed = new Promise((resolve) => bad.once('close', resolve))
  bad.postMessage({ not: 'frames' })
  await closed
  const dispatcher = createHttpPortDispatcher('server', { messaging })
  t.equal((await dispatcher.request({ method: 'GET', path: '/bytes?size=3' })).statusCode, 200)
  await dispatcher.close()
  session.close()
})
