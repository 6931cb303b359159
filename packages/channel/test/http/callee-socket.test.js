// The callee's end of a connection while its worker stops: a request that begins is refused
// (REFUSED, not given to a server that would answer 503), a plain destroy waits for the
// caller to end the connection, and a lost port is a reset (ECONNRESET), as over TCP.
import { once } from 'node:events'
import http from 'node:http'
import { MessageChannel } from 'node:worker_threads'
import t from 'tap'
import { CalleeSocket, DRAIN_MS, trackRequests } from '../../lib/http/callee-socket.js'
import { ChannelError, CODES } from '../../lib/errors.js'
import { PortMux } from '../../lib/wire/port-mux.js'
import { GOAWAY, REFUSED } from '../../lib/wire/signals.js'
import { withoutIdleFlag } from '../helpers/idle-flag.js'

function pair (t) {
  const { port1, port2 } = new MessageChannel()
  const caller = new PortMux(port1, { peer: 'callee' })
  const callee = new PortMux(port2, { peer: 'caller' })
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => { clearInterval(alive); caller.close(); callee.close() })
  return { caller, callee, port1 }
}

t.test('while the worker stops, a request that begins is refused, not served', async (t) => {
  const { caller, callee, port1 } = pair(t)
  const socket = new CalleeSocket(callee, 1, { application: 'caller', refuseWhenDraining: true })
  const data = []
  socket.on('data', (d) => data.push(d))
  const frames = []
  port1.on('message', (m) => frames.push(...withoutIdleFlag(m)))
  callee.goAway()
  caller.send(1, 'GET / HTTP/1.1\r\n\r\n')
  while (!frames.includes(REFUSED)) await once(port1, 'message')
  t.same(frames, [0, GOAWAY, 1, REFUSED], 'GOAWAY, then the caller is told, and may send it elsewhere')
  t.equal(socket.destroyed, true, 'the connection ends here')
  t.same(data, [], 'the server never saw a byte of it')
})

t.test('a request already under way is served while the worker stops', async (t) => {
  const { caller, callee } = pair(t)
  const socket = new CalleeSocket(callee, 1, { application: 'caller', refuseWhenDraining: true })
  caller.send(1, 'POST / HTTP/1.1\r\n')
  await once(socket, 'data')
  callee.goAway()
  caller.send(1, 'content-length: 0\r\n\r\n')
  const [more] = await once(socket, 'data')
  t.equal(more.toString(), 'content-length: 0\r\n\r\n', 'the rest of a begun request still arrives')
  socket.on('error', () => {}) // the teardown's close of the port resets it
  socket.destroy()
})

/**
 * A node:http server given one CalleeSocket (refusing while draining), and what the caller reads of it.
 * @param {import('tap').Test} t
 * @param {http.RequestListener} listener
 */
function served (t, listener) {
  const { caller, callee } = pair(t)
  const server = http.createServer(listener)
  trackRequests(server)
  const socket = new CalleeSocket(callee, 1, { application: 'caller', refuseWhenDraining: true })
  socket.on('error', () => {})
  server.emit('connection', socket)
  /** @type {unknown[]} what the caller's end of the connection receives */
  const frames = []
  caller.add(1, { referenced: true, windowSize: 1 << 20, onFrame: (payload) => frames.push(payload), onMuxLost () {} })
  const read = () => frames.filter((f) => typeof f === 'string').join('')
  return { caller, callee, socket, frames, read }
}

const until = async (/** @type {() => boolean} */ done) => {
  const deadline = Date.now() + 5000
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
}

t.test('after a finished exchange, the next request on the connection is refused while the worker stops', async (t) => {
  const { caller, callee, frames, read } = served(t, (_req, res) => res.end('one'))
  caller.send(1, 'GET /a HTTP/1.1\r\nhost: x\r\n\r\n')
  await until(() => read().endsWith('one'))
  t.match(read(), /^HTTP\/1.1 200 OK/, 'the first request was served')
  callee.goAway()
  caller.send(1, 'GET /b HTTP/1.1\r\nhost: x\r\n\r\n')
  await until(() => frames.includes(REFUSED))
  t.ok(frames.includes(REFUSED), 'the second, begun after GOAWAY, is refused: the caller may send it elsewhere')
  t.equal(read().match(/HTTP\/1.1/g)?.length, 1, 'and never answered here')
})

t.test('a request answered before its body arrived still takes the rest of its body while the worker stops', async (t) => {
  let ended = false
  const { caller, callee, frames, read } = served(t, (req, res) => {
    res.end('early') // answered at once: the body is still on its way (node:http reads the rest and drops it)
    req.on('end', () => { ended = true })
  })
  caller.send(1, 'POST /up HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\n\r\n12345')
  await until(() => read().endsWith('early'))
  callee.goAway()
  caller.send(1, '67890')
  await until(() => ended)
  t.ok(ended, 'the request read its whole body: the second half reached the server')
  t.notOk(frames.includes(REFUSED), 'nothing refused: it belonged to the exchange under way')
})

t.test('while draining, a plain destroy waits for the caller, at most DRAIN_MS; one with an error does not', async (t) => {
  const { callee } = pair(t)
  const waiting = new CalleeSocket(callee, 1, { application: 'caller' })
  const failing = new CalleeSocket(callee, 2, { application: 'caller' })
  callee.goAway()
  const started = performance.now()
  waiting.destroy()
  t.equal(waiting.destroyed, false, 'kept for a request still in the port')
  waiting.on('error', () => {})
  failing.destroy(new Error('boom'))
  t.equal(failing.destroyed, true, 'an error destroys at once')
  failing.on('error', () => {})
  await once(waiting, 'close')
  t.ok(performance.now() - started >= DRAIN_MS - 50, 'destroyed after DRAIN_MS')
})

t.test('a lost port fails a callee socket as a reset, and a protocol error as itself', async (t) => {
  const { callee } = pair(t)
  const reset = new CalleeSocket(callee, 1, { application: 'caller' })
  t.equal(reset.lostError(new ChannelError('caller', CODES.CLOSED, 'gone')).code, 'ECONNRESET')
  const broken = new ChannelError('caller', CODES.PROTOCOL, 'garbage')
  t.equal(reset.lostError(broken), broken)
  t.equal(reset.resetError('reset by the peer').code, 'ECONNRESET', 'what node:http expects of a client that left')
  reset.destroy()
})
