// One http-port connection's stream half (port-socket.js), on a stand-in mux that records each
// frame: data in and out within the credit window, credit returned by half windows, the end of
// stream each way, and every frame that breaks the protocol destroying the connection with a
// coded error naming the application.
import t from 'tap'
import { once } from 'node:events'
import { PortSocket } from '../../lib/http/port-socket.js'
import { FIN, RESET } from '../../lib/wire/signals.js'

const WINDOW = 1024

/** A mux that records what a stream sends, adds and removes. */
function fakeMux () {
  return {
    /** @type {[number, unknown][]} */
    sent: [],
    /** @type {Map<number, unknown>} */
    streams: new Map(),
    /** @type {boolean[]} */
    refs: [],
    /** @param {number} id @param {unknown} payload */
    send (id, payload) { this.sent.push([id, payload]) },
    /** @param {number} id @param {unknown} stream */
    add (id, stream) { this.streams.set(id, stream) },
    /** @param {number} id */
    remove (id) { this.streams.delete(id) },
    /** @param {number} _id @param {any} stream @param {boolean} referenced */
    setReferenced (_id, stream, referenced) { stream.referenced = referenced; this.refs.push(referenced) },
    handBack () {},
    frameBuffer () { return new ArrayBuffer(64 * 1024) }
  }
}

function connection (window = WINDOW) {
  const mux = fakeMux()
  const socket = new PortSocket(/** @type {any} */ (mux), 7, { application: 'app', window })
  socket.on('error', () => {})
  t.teardown(() => socket.destroy())
  return { mux, socket }
}

/** Its error once closed (events.once would reject at the 'error' before it). @param {PortSocket} socket */
const closed = (socket) => new Promise((resolve) => socket.once('close', () => resolve(socket.errored)))

t.test('registered with its mux; data in is read as bytes, and counted', async (t) => {
  const { mux, socket } = connection()
  t.equal(mux.streams.get(7), socket)
  socket.onFrame('hello ')
  socket.onFrame(new Uint8Array(Buffer.from('world')))
  const chunks = []
  socket.on('data', (chunk) => chunks.push(chunk))
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(Buffer.concat(chunks).toString(), 'hello world')
  t.equal(socket.bytesRead, 11)
})

t.test('credit goes back once half a window was read, not before', async (t) => {
  const { mux, socket } = connection()
  socket.on('data', () => {})
  socket.onFrame('x'.repeat(WINDOW / 2 - 1))
  await new Promise((resolve) => setImmediate(resolve))
  t.same(mux.sent, [], 'under half a window: no credit frame')
  socket.onFrame('y')
  await new Promise((resolve) => setImmediate(resolve))
  t.same(mux.sent, [[7, WINDOW / 2]], 'half a window read: returned')
})

t.test('writes wait for credit: at most a window in flight, the rest sent as credit comes back', async (t) => {
  const { mux, socket } = connection()
  let done = false
  socket.write(Buffer.alloc(WINDOW + 100, 'a'), () => { done = true })
  t.same(mux.sent.map(([id, p]) => [id, /** @type {string} */ (p).length]), [[7, WINDOW]], 'a window sent')
  t.equal(socket.bytesWritten, WINDOW)
  t.notOk(done, 'the write waits')
  socket.onFrame(60)
  t.same(mux.sent.slice(1).map(([, p]) => /** @type {string} */ (p).length), [60], 'as much as the credit')
  t.notOk(done)
  socket.onFrame(WINDOW - 60)
  t.same(mux.sent.slice(2).map(([, p]) => /** @type {string} */ (p).length), [40], 'then the rest')
  await new Promise((resolve) => setImmediate(resolve))
  t.ok(done, 'the write completes once all of it is out')
  t.equal(socket.bytesWritten, WINDOW + 100)
})

t.test('an end of stream each way: FIN sent on end(), the peer\'s FIN ends reading after its data', async (t) => {
  const { mux, socket } = connection()
  const chunks = []
  socket.on('data', (chunk) => chunks.push(chunk))
  socket.onFrame('last bytes')
  socket.onFrame(FIN)
  await once(socket, 'end')
  t.equal(Buffer.concat(chunks).toString(), 'last bytes', 'all the data before the end')
  socket.end()
  await closed(socket)
  t.same(mux.sent.filter(([, p]) => p === FIN), [[7, FIN]], 'one FIN sent')
  t.equal(mux.streams.has(7), false, 'and off the mux once closed')
})

for (const [what, frames, message] of /** @type {[string, unknown[], RegExp][]} */ ([
  ['a second end of stream', [FIN, FIN], /malformed http-port frame: a second end of stream/],
  ['data after the end', [FIN, 'more'], /malformed http-port frame: data after the end of the stream/],
  ['credit never owed', [5], /malformed http-port frame: bad credit 5/],
  ['a fractional credit', [1.5], /bad credit 1\.5/],
  ['an object frame', [{ no: 1 }], /malformed http-port frame: an unexpected object frame/],
  ['a boolean frame', [true], /an unexpected boolean frame/],
  ['more than the window', ['x'.repeat(WINDOW + 1)], new RegExp(`peer sent ${WINDOW + 1} bytes on a ${WINDOW}-byte window`)]
])) {
  t.test(`${what}: PROTOCOL, the connection destroyed`, async (t) => {
    const { socket } = connection()
    for (const frame of frames) socket.onFrame(frame)
    const err = await closed(socket)
    t.match(err, { name: 'ChannelError', code: 'WATT_CHANNEL_PROTOCOL', application: 'app', message })
  })
}

t.test('RESET: CLOSED, the answer incomplete', async (t) => {
  const { socket } = connection()
  socket.onFrame(RESET)
  t.match(await closed(socket), {
    code: 'WATT_CHANNEL_CLOSED', message: 'app: the connection was reset by the peer before the answer completed'
  })
  socket.onFrame('ignored once destroyed')
  t.equal(socket.bytesRead, 0)
})

t.test('destroyed while a write waits for credit: the write fails with CLOSED; the peer reads FIN', async (t) => {
  const { mux, socket } = connection()
  /** @type {Error | null | undefined} */
  let writeError
  socket.write(Buffer.alloc(WINDOW * 2), (err) => { writeError = err })
  socket.destroy()
  await closed(socket)
  t.match(writeError, { code: 'WATT_CHANNEL_CLOSED', message: /connection destroyed while a write waited for credit/ })
  t.same(mux.sent.at(-1), [7, FIN], 'as close(2): the peer sees the end')
  t.notOk(mux.streams.has(7))
})

t.test('the port lost: the connection fails with its error, unless both ends were sent', async (t) => {
  const open = connection()
  const lost = new Error('port gone')
  open.socket.onMuxLost(lost)
  t.equal(await closed(open.socket), lost)
  const done = connection()
  done.socket.on('data', () => {})
  done.socket.onFrame('tail')
  done.socket.onFrame(FIN)
  done.socket.end()
  await new Promise((resolve) => setImmediate(resolve))
  done.socket.onMuxLost(lost)
  t.notOk(done.socket.errored, 'both ends sent: nothing lost, no error')
})

t.test('ref() and unref() tell the mux whether this connection keeps the thread alive', async (t) => {
  const { mux, socket } = connection()
  t.equal(socket.unref(), socket)
  t.equal(socket.ref(), socket)
  t.same(mux.refs, [false, true])
})
