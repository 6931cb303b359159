// The mux: many streams over one MessagePort, a turn's frames in one post, late data reset,
// opens only where a callee accepts them, and a post that fails fails its streams instead
// of throwing inside setImmediate.
import { once } from 'node:events'
import { MessageChannel } from 'node:worker_threads'
import t from 'tap'
import { openStreams, PortMux } from '../../lib/wire/port-mux.js'
import { FRAME_BYTES, GOAWAY, OPEN, RESET } from '../../lib/wire/signals.js'
import { withoutIdleFlag } from '../helpers/idle-flag.js'

/** A stream that records its frames and its loss. */
function stream (windowSize = 1024 * 1024) {
  return { frames: [], lost: null, referenced: true, windowSize, onFrame (p) { this.frames.push(p) }, onMuxLost (err) { this.lost = err } }
}

function pair (t, options = {}) {
  const { port1, port2 } = new MessageChannel()
  const a = new PortMux(port1, { peer: 'b' })
  const b = new PortMux(port2, { peer: 'a', ...options })
  // the mux unrefs its port while no stream wants the thread: the test keeps it alive
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => { clearInterval(alive); a.close(); b.close() })
  return { a, b, port1, port2 }
}

t.test('frames queued in one turn leave in one message, on their streams', async (t) => {
  const { a, b, port2 } = pair(t)
  const one = stream()
  const two = stream()
  b.add(1, one)
  b.add(2, two)
  const posts = []
  port2.on('message', (m) => posts.push(m))
  a.send(1, 'x')
  a.send(2, 'y')
  a.send(1, 5)
  await once(port2, 'message')
  t.equal(posts.length, 1, 'one post for the turn')
  t.same(one.frames, ['x', 5])
  t.same(two.frames, ['y'])
  t.equal(b.heard, 1)
})

t.test('data for a stream not open gets a RESET back at once; a caller refuses opens', async (t) => {
  const { a, b, port1 } = pair(t)
  const back = once(port1, 'message')
  a.send(9, 'late bytes')
  const [message] = await back
  t.same(withoutIdleFlag(message), [9, RESET], 'the writer learns the stream is gone, as from a TCP RST')
  const lost = stream()
  a.add(1, lost)
  b.send(4, OPEN)
  await once(port1, 'message')
  t.equal(a.closed, true, 'a caller takes no OPEN: a protocol error')
  t.match(lost.lost, { code: 'WATT_CHANNEL_PROTOCOL', message: /b: malformed http-port message: an unexpected open of stream 4/ })
})

t.test('a callee accepts OPEN on new streams, and refuses bad ids', async (t) => {
  const accepted = []
  const { a, b } = pair(t, { accept: (id) => { accepted.push(id) } })
  a.send(3, OPEN)
  a.send(5, OPEN)
  a.send(-2, OPEN)
  const closed = new Promise((resolve) => { b.onClose = resolve })
  await closed
  t.same(accepted, [3, 5])
  t.equal(b.closed, true, 'a negative id broke the protocol')
})

t.test('a message that is not frame pairs closes the mux and fails its streams', async (t) => {
  const { b, port1 } = pair(t)
  const s = stream()
  b.add(1, s)
  port1.postMessage(['odd'])
  await new Promise((resolve) => { b.onClose = resolve })
  t.match(s.lost, { code: 'WATT_CHANNEL_PROTOCOL' })
})

t.test('a post that throws fails the streams with a coded error, never an uncaught exception', async (t) => {
  const { a } = pair(t)
  const s = stream()
  a.add(1, s)
  a.send(1, () => 'a function cannot be cloned')
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(a.closed, true)
  t.match(s.lost, { code: 'WATT_CHANNEL_PROTOCOL', message: /a message could not be posted/ })
})

t.test('the port keeps the thread alive only while a stream wants it; streams are counted', async (t) => {
  const { a } = pair(t)
  const before = openStreams()
  t.equal(a.referenced, false, 'no stream: unref\'d')
  const s = stream()
  a.add(1, s)
  t.equal(a.referenced, true)
  t.equal(openStreams(), before + 1)
  a.setReferenced(1, s, false)
  t.equal(a.referenced, false, 'an idle connection unrefs it')
  a.setReferenced(1, s, true)
  a.remove(1)
  t.equal(a.referenced, false)
  t.equal(openStreams(), before)
})

t.test('handed-back frame buffers are kept only up to what the open windows can use', async (t) => {
  const { a, b, port2 } = pair(t)
  b.add(1, stream(2 * FRAME_BYTES))
  for (let i = 0; i < 3; i++) {
    const buffer = new ArrayBuffer(FRAME_BYTES)
    a.send(0, buffer, buffer)
  }
  a.send(0, new ArrayBuffer(10))
  await once(port2, 'message')
  t.equal(b.spare.length, 2, 'two frames fill a two-frame window; the third and a wrong size are dropped')
  t.equal(b.frameBuffer().byteLength, FRAME_BYTES)
  b.remove(1)
  t.equal(b.spare.length, 0, 'no stream open: none pinned')
})

t.test('GOAWAY reaches the caller at once; the callee is draining', async (t) => {
  let told = 0
  const { port1, port2 } = new MessageChannel()
  const caller = new PortMux(port1, { peer: 'callee', onGoAway: () => { told++ } })
  const callee = new PortMux(port2, { peer: 'caller' })
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => { clearInterval(alive); caller.close(); callee.close() })
  t.equal(callee.draining, false)
  callee.goAway()
  t.equal(callee.draining, true)
  await once(port1, 'message')
  t.equal(told, 1)
  t.equal(GOAWAY < 0, true)
})

t.test('a closed port fails every stream with WATT_CHANNEL_CLOSED naming the peer', async (t) => {
  const { a, port2 } = pair(t)
  const s = stream()
  a.add(1, s)
  port2.close()
  await new Promise((resolve) => { a.onClose = resolve })
  await new Promise((resolve) => setImmediate(resolve))
  t.match(s.lost, { code: 'WATT_CHANNEL_CLOSED', application: 'b' })
})
