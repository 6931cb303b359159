// http-port against the SAME http.Server over loopback TCP, in a real worker
// thread: status, headers and bodies byte for byte, chunked both ways,
// keep-alive reuse, fetch(), and aborts that reach the server.
import { Readable } from 'node:stream'
import t from 'tap'
import { fetch, Pool } from 'undici'
import { createHttpPortDispatcher } from '../../http.js'
import { patternBytes } from '../helpers/http-server-worker.js'
import { startServerWorker } from '../helpers/start-server-worker.js'

const { worker, messaging, tcpOrigin } = await startServerWorker()
const tcp = new Pool(tcpOrigin, { connections: 4, pipelining: 1 })
const httpPort = createHttpPortDispatcher('server', { messaging, connections: 4 })
const both = /** @type {const} */ ([['over TCP', tcp], ['over http-port', httpPort]])
t.teardown(async () => {
  await Promise.all([tcp.close(), httpPort.close()])
  await worker.terminate()
})

/** Headers that legitimately differ between two answers. */
function comparable (headers) {
  const { date, ...rest } = headers
  return rest
}

/** @param {import('undici').Dispatcher} dispatcher */
async function call (dispatcher, options) {
  const answer = await dispatcher.request({ method: 'GET', ...options })
  const body = Buffer.from(await answer.body.arrayBuffer())
  return { status: answer.statusCode, headers: comparable(answer.headers), body }
}

for (const size of [0, 1, 31 * 1024, 33 * 1024, 1024 * 1024]) {
  t.test(`a ${size}-byte body is the same over TCP and http-port`, async (t) => {
    const overTcp = await call(tcp, { path: `/bytes?size=${size}` })
    const overPort = await call(httpPort, { path: `/bytes?size=${size}` })
    t.equal(overPort.status, 200)
    t.same(overPort.headers, overTcp.headers)
    t.equal(overPort.headers['content-length'], String(size))
    t.ok(overPort.body.equals(patternBytes(size)), 'byte for byte the server\'s bytes')
    t.ok(overPort.body.equals(overTcp.body))
  })
}

t.test('a chunked answer (no content-length, many writes) arrives whole', async (t) => {
  const size = 300 * 1024 + 7
  const overTcp = await call(tcp, { path: `/chunked?size=${size}&chunk=4093` })
  const overPort = await call(httpPort, { path: `/chunked?size=${size}&chunk=4093` })
  t.equal(overPort.headers['transfer-encoding'], 'chunked')
  t.same(overPort.headers, overTcp.headers)
  t.ok(overPort.body.equals(patternBytes(size)))
})

t.test('a consumer that pauses with a full window gets the rest (credit returns as it reads)', async (t) => {
  // Several windows of chunked data, read by a consumer that stops for a while
  // after each chunk: the buffered window must be credited as it is read, not
  // only when new data arrives (which needs credit: a stall, seen in the lab).
  const size = 5 * 1024 * 1024 + 11
  for (const [name, dispatcher] of both) {
    // A stall fails the read after 30 s instead of hanging the file.
    const answer = await dispatcher.request({ method: 'GET', path: `/chunked?size=${size}&chunk=16384`, signal: AbortSignal.timeout(30_000) })
    let received = 0
    for await (const chunk of answer.body) {
      received += chunk.length
      if (received % (512 * 1024) < chunk.length) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    t.equal(received, size, `${name}: every byte arrived`)
  }
})

t.test('a slow consumer reads about a high-water mark at a time, as from a TCP socket', async (t) => {
  // undici reads its socket with read(), which joins every chunk in the readable
  // buffer into one: a copy of each byte, and a parser downstream handed a whole
  // window's data at once (the data suite's stream-json held a 1 MiB window of
  // tokens per connection). A TCP socket's buffer holds what one read brought in
  // (64 KiB), and so does an http-port connection's. The consumer's chunk is
  // undici's body buffer joined: below its mark (64 KiB) plus the read that
  // filled it, plus the read its resume() adds within the consumer's read(): at
  // most three marks. Measured: 128 KiB over TCP; over http-port about one chunk
  // a window is 192 KiB, where a frame cut short by the credit left gave a body
  // piece below the mark, so the body took another before it stopped the parser.
  const mark = 64 * 1024
  const size = 4 * 1024 * 1024
  for (const [name, dispatcher] of both) {
    const answer = await dispatcher.request({ method: 'GET', path: `/bytes?size=${size}` })
    let received = 0
    let largest = 0
    for await (const chunk of answer.body) {
      received += chunk.length
      largest = Math.max(largest, chunk.length)
      await new Promise((resolve) => setImmediate(resolve)) // the window fills while this waits
    }
    t.equal(received, size, `${name}: every byte arrived`)
    t.ok(largest <= 3 * mark, `${name}: the largest chunk read was ${largest} bytes`)
  }
})

t.test('request bodies: with content-length and chunked from a stream', async (t) => {
  const payload = patternBytes(1024 * 1024 + 3)
  for (const [name, dispatcher] of both) {
    const fixed = await call(dispatcher, { method: 'POST', path: '/echo', body: payload })
    t.equal(fixed.status, 201, name)
    t.equal(fixed.headers['x-seen-content-length'], String(payload.length), name)
    t.ok(fixed.body.equals(payload), `${name}: echoed byte for byte`)

    const parts = []
    for (let i = 0; i < payload.length; i += 50_000) parts.push(payload.subarray(i, i + 50_000))
    const streamed = await call(dispatcher, { method: 'POST', path: '/echo', body: Readable.from(parts) })
    t.equal(streamed.headers['x-seen-transfer-encoding'], 'chunked', name)
    t.ok(streamed.body.equals(payload), `${name}: chunked request body echoed`)
  }
})

t.test('fetch() works unchanged with the dispatcher', async (t) => {
  const answer = await fetch('http://server.http-port.local/echo', { method: 'POST', body: 'hello', dispatcher: httpPort })
  t.equal(answer.status, 201)
  t.equal(await answer.text(), 'hello')
  t.equal(answer.headers.get('x-seen-host'), 'server.http-port.local')
})

t.test('sequential requests reuse kept-alive connections as over TCP', async (t) => {
  // undici checks an idle socket for one turn before reusing it, so a second
  // connection may open: the count must match TCP's, and stay far below 20.
  const connectsOver = async (dispatcher) => {
    let connects = 0
    dispatcher.on('connect', () => connects++)
    for (let i = 0; i < 20; i++) t.equal((await call(dispatcher, { path: '/bytes?size=10' })).status, 200)
    await dispatcher.close()
    return connects
  }
  const overTcp = await connectsOver(new Pool(tcpOrigin, { connections: 4, pipelining: 1 }))
  const overPort = await connectsOver(createHttpPortDispatcher('server', { messaging, connections: 4 }))
  t.equal(overPort, overTcp)
  t.ok(overPort <= 2, `${overPort} connections for 20 sequential requests`)
})

/** @param {(events: string[]) => boolean} condition */
async function serverSaw (condition) {
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    const events = JSON.parse((await call(tcp, { path: '/events' })).body.toString())
    if (condition(events)) return events
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error('the server never saw it')
}

t.test('a client abort reaches the server as req/res close, on both transports', async (t) => {
  for (const [name, dispatcher] of both) {
    const before = (await serverSaw(() => true)).filter((e) => e === 'close /hang').length
    const controller = new AbortController()
    const pending = dispatcher.request({ method: 'GET', path: '/hang', signal: controller.signal })
    await serverSaw((events) => events.filter((e) => e === 'request /hang').length > before)
    controller.abort()
    await t.rejects(pending, { name: 'AbortError' }, name)
    const events = await serverSaw((events) => events.filter((e) => e === 'close /hang').length > before)
    t.ok(events.includes('close /hang'), `${name}: the server saw the request close`)
  }
})
