// The callee's end of a connection while its worker stops: a request that begins is refused
// (REFUSED, not given to a server that would answer 503), a plain destroy waits for the
// caller to end the connection, and a lost port is a reset (ECONNRESET), as over TCP.
import { once } from 'node:events'
import { MessageChannel } from 'node:worker_threads'
import t from 'tap'
import { CalleeSocket, DRAIN_MS } from '../../lib/http/callee-socket.js'
import { ChannelError, CODES } from '../../lib/errors.js'
import { PortMux } from '../../lib/wire/port-mux.js'
import { GOAWAY, REFUSED } from '../../lib/wire/signals.js'

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
  const socket = new CalleeSocket(callee, 1, { application: 'caller' })
  const data = []
  socket.on('data', (d) => data.push(d))
  callee.refuseWhenDraining = true
  const frames = []
  port1.on('message', (m) => frames.push(...m))
  callee.goAway()
  caller.send(1, 'GET / HTTP/1.1\r\n\r\n')
  while (!frames.includes(REFUSED)) await once(port1, 'message')
  t.same(frames, [0, GOAWAY, 1, REFUSED], 'GOAWAY, then the caller is told, and may send it elsewhere')
  t.equal(socket.destroyed, true, 'the connection ends here')
  t.same(data, [], 'the server never saw a byte of it')
})

t.test('a request already under way is served while the worker stops', async (t) => {
  const { caller, callee } = pair(t)
  const socket = new CalleeSocket(callee, 1, { application: 'caller' })
  caller.send(1, 'POST / HTTP/1.1\r\n')
  await once(socket, 'data')
  callee.refuseWhenDraining = true
  callee.goAway()
  caller.send(1, 'content-length: 0\r\n\r\n')
  const [more] = await once(socket, 'data')
  t.equal(more.toString(), 'content-length: 0\r\n\r\n', 'the rest of a begun request still arrives')
  socket.on('error', () => {}) // the teardown's close of the port resets it
  socket.destroy()
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
