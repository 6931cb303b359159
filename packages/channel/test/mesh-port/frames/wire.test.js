// The drop-in's frames wire in one thread: undici's request() through a
// FramesClient on one end of a MessageChannel, a node:http server (never
// listening) served by acceptFrames on the other. What the fixture's front cannot
// reach: trailers, repeated response headers, the request's exact header lines, a
// small window under big bodies both ways, a server that stops reading or drops
// the answer, and the requests left to the HTTP wire.
import { createHash } from 'node:crypto'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import http from 'node:http'
import { MessageChannel } from 'node:worker_threads'
import { test } from 'tap'
import { Dispatcher, request } from 'undici'
import { PortMux } from '../../../lib/wire/port-mux.js'
import { FramesClient } from '../../../lib/mesh-port/frames/client.js'
import { requestHead } from '../../../lib/mesh-port/frames/request-head.js'
import { acceptFrames } from '../../../lib/mesh-port/frames/serve.js'
import { poolHandler } from '../../../lib/mesh-port/pool-handler.js'
import { patternBytes as pattern } from '../../helpers/http-server-worker.js'

const sha = (/** @type {Buffer} */ bytes) => createHash('sha256').update(bytes).digest('hex')
const ORIGIN = 'http://app.plt.local'

/**
 * @param {import('tap').Test} t
 * @param {http.RequestListener} listener
 * @param {{ window?: number }} [options]
 */
function framesPair (t, listener, { window } = {}) {
  const server = http.createServer(listener)
  const { port1, port2 } = new MessageChannel()
  const callee = acceptFrames(server, port2, { caller: 'test', wire: 'frames' }, { window })
  const mux = new PortMux(port1, { peer: 'app' })
  const tally = { count: 0 }
  const frames = new FramesClient(mux, { application: 'app', window, tally })
  const link = { inFlight: 0 }
  class Over extends Dispatcher {
    /** @param {any} opts @param {any} handler */
    dispatch (opts, handler) {
      if (!frames.dispatch(opts, poolHandler(handler, link))) throw new Error('the frames wire left this request to HTTP')
      return true
    }
  }
  t.teardown(() => { mux.close(); callee.close() })
  return { dispatcher: new Over(), tally, link, callee, mux }
}

/**
 * @param {Dispatcher} dispatcher
 * @param {string} path
 * @param {any} [options]
 */
async function call (dispatcher, path, options = {}) {
  const answer = await request(`${ORIGIN}${path}`, { dispatcher, ...options })
  const bytes = Buffer.from(await answer.body.arrayBuffer())
  return { status: answer.statusCode, headers: answer.headers, trailers: answer.trailers, bytes }
}

test('status, repeated headers, set-cookie, a UTF-8 body and the header lines the server sees', async (t) => {
  /** @type {string[]} */
  let seen = []
  const { dispatcher, tally, link } = framesPair(t, (req, res) => {
    seen = req.rawHeaders
    res.statusMessage = 'Made It'
    res.setHeader('set-cookie', ['a=1', 'b=2'])
    res.writeHead(201, ['x-rep', '1', 'x-rep', '2', 'content-type', 'text/plain; charset=utf-8'])
    res.end('héllo ✓')
  })
  const answer = await call(dispatcher, '/x?y=1', { headers: { 'x-trace': 'abc', accept: ['a', 'b'] } })
  t.equal(answer.status, 201)
  t.same(answer.headers['set-cookie'], ['a=1', 'b=2'], 'set-cookie twice')
  t.same(answer.headers['x-rep'], ['1', '2'], 'a repeated header')
  t.equal(answer.bytes.toString('utf8'), 'héllo ✓', 'a UTF-8 body, byte for byte')
  t.equal(answer.headers['transfer-encoding'], 'chunked', 'the head Node wrote, as over HTTP')
  t.same(seen, ['host', 'app.plt.local', 'connection', 'keep-alive', 'x-trace', 'abc', 'accept', 'a', 'accept', 'b'], "undici's header lines, in its order")
  t.equal(tally.count, 1, 'counted as frames')
  t.equal(link.inFlight, 0, 'settled')
})

test('trailers', async (t) => {
  const { dispatcher } = framesPair(t, (req, res) => {
    res.writeHead(200, { trailer: 'x-sum' })
    res.write('abc')
    res.addTrailers({ 'x-sum': '42' })
    res.end()
  })
  const answer = await call(dispatcher, '/')
  t.equal(answer.bytes.toString(), 'abc')
  t.same(answer.trailers, { 'x-sum': '42' })
})

test('bodies both ways under a 64 KiB window: content-length or chunked, 0 B to 3 MiB', async (t) => {
  const { dispatcher } = framesPair(t, (req, res) => {
    /** @type {Buffer[]} */
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      res.writeHead(200, { 'x-length': String(req.headers['content-length'] ?? ''), 'x-te': String(req.headers['transfer-encoding'] ?? '') })
      let at = 0
      const more = () => {
        while (at < body.length) {
          const piece = body.subarray(at, at + 50_000)
          at += piece.length
          if (!res.write(piece)) return res.once('drain', more)
        }
        res.end()
      }
      more()
    })
  }, { window: 64 * 1024 })
  for (const size of [0, 1000, 16 * 1024 + 1, 70_000, 3 * 1024 * 1024]) {
    const body = pattern(size)
    const buffered = await call(dispatcher, '/echo', { method: 'POST', body })
    t.equal(sha(buffered.bytes), sha(body), `${size} B as a Buffer, echoed`)
    t.equal(buffered.headers['x-length'], String(size), `${size} B: content-length`)
    const streamed = await call(dispatcher, '/echo', { method: 'POST', body: (async function * () { for (let i = 0; i < size; i += 30_000) yield body.subarray(i, i + 30_000) })() })
    t.equal(sha(streamed.bytes), sha(body), `${size} B as a stream, echoed`)
    t.equal(streamed.headers['x-te'], 'chunked', `${size} B streamed: chunked`)
  }
})

test('the caller reading nothing holds the server back (write returns false), and all arrives when it reads', async (t) => {
  const state = { heldBack: false }
  const body = pattern(2 * 1024 * 1024)
  const { dispatcher } = framesPair(t, (req, res) => {
    res.writeHead(200)
    let at = 0
    const more = () => {
      while (at < body.length) {
        const piece = body.subarray(at, at + 16_384)
        at += piece.length
        if (!res.write(piece)) { state.heldBack = true; return res.once('drain', more) }
      }
      res.end()
    }
    more()
  }, { window: 64 * 1024 })
  const answer = await request(`${ORIGIN}/`, { dispatcher })
  while (!state.heldBack) await new Promise((resolve) => setImmediate(resolve))
  t.ok(state.heldBack, 'the server waited for credit')
  t.equal(sha(Buffer.from(await answer.body.arrayBuffer())), sha(body), 'then every byte arrived')
})

test("the caller's abort reaches the server as the request's close", async (t) => {
  const closed = { req: false, res: false }
  let started = () => {}
  const serving = new Promise((resolve) => { started = () => resolve(undefined) })
  const { dispatcher, link } = framesPair(t, (req, res) => {
    req.on('close', () => { closed.req = true })
    res.on('close', () => { closed.res = true })
    started()
  })
  const controller = new AbortController()
  const answer = request(`${ORIGIN}/hang`, { dispatcher, signal: controller.signal })
  await serving
  controller.abort(new Error('gave up'))
  await t.rejects(answer, /gave up/)
  while (!closed.res || !closed.req) await new Promise((resolve) => setImmediate(resolve))
  t.ok(closed.req && closed.res, 'req and res closed on the server')
  t.equal(link.inFlight, 0)
})

test('a server that drops its answer mid-body fails the call', async (t) => {
  const { dispatcher } = framesPair(t, (req, res) => {
    res.writeHead(200)
    res.write('part')
    setImmediate(() => res.destroy())
  })
  const answer = await request(`${ORIGIN}/`, { dispatcher })
  await t.rejects(answer.body.text(), /reset by the peer/)
})

test('an answer before the upload is read: the call completes, the server stays up', async (t) => {
  const { dispatcher } = framesPair(t, (req, res) => { res.end('early') })
  const answer = await call(dispatcher, '/', { method: 'POST', body: pattern(1024 * 1024) })
  t.equal(answer.bytes.toString(), 'early')
  t.equal((await call(dispatcher, '/')).bytes.toString(), 'early', 'the next call too')
})

test('what the frames wire leaves to the HTTP wire', async (t) => {
  const base = { origin: ORIGIN, path: '/', method: 'GET' }
  t.ok(requestHead(/** @type {any} */ (base), 'h', 1024), 'a plain GET goes as frames')
  t.equal(requestHead(/** @type {any} */ ({ ...base, headers: { expect: '100-continue' } }), 'h', 1024), null, 'expect')
  t.equal(requestHead(/** @type {any} */ ({ ...base, headers: ['connection', 'close'] }), 'h', 1024), null, 'connection')
  t.equal(requestHead(/** @type {any} */ ({ ...base, query: { a: 1 } }), 'h', 1024), null, 'a query object')
  t.equal(requestHead(/** @type {any} */ ({ ...base, method: 'POST', body: new FormData() }), 'h', 1024), null, 'FormData')
  t.equal(requestHead(/** @type {any} */ ({ ...base, upgrade: 'websocket' }), 'h', 1024), null, 'an upgrade')
  const post = requestHead(/** @type {any} */ ({ ...base, method: 'POST' }), 'h', 1024)
  t.same(post?.head.h, ['host', 'h', 'connection', 'keep-alive', 'content-length', '0'], 'an empty POST says content-length: 0, as undici does')
})

test('a stopping worker refuses new requests (REFUSED), as over the HTTP wire', async (t) => {
  const { dispatcher, callee } = framesPair(t, (req, res) => res.end('served'))
  callee.draining = true
  callee.refuseWhenDraining = true
  await t.rejects(request(`${ORIGIN}/`, { dispatcher }), /refused/)
  callee.draining = false
  t.equal((await call(dispatcher, '/')).bytes.toString(), 'served')
})

test("a refused request moves to another worker's frames wire, any method, when all of it rode in its head", async (t) => {
  const meta = { caller: 'test', wire: 'frames' }
  const a = new MessageChannel()
  const b = new MessageChannel()
  const calleeA = acceptFrames(http.createServer((req, res) => res.end('A')), a.port2, meta)
  const calleeB = acceptFrames(http.createServer((req, res) => {
    let body = ''
    req.setEncoding('latin1')
    req.on('data', (c) => { body += c })
    req.on('end', () => res.end(`B ${req.method} ${body}`))
  }), b.port2, meta)
  calleeA.draining = true
  calleeA.refuseWhenDraining = true
  const muxB = new PortMux(b.port1, { peer: 'app' })
  const muxA = new PortMux(a.port1, { peer: 'app', relocate: async () => muxB })
  const linkA = { inFlight: 0, tally: { count: 0 } }
  const linkB = { inFlight: 0, tally: { count: 0 } }
  const framesA = new FramesClient(muxA, { application: 'app', tally: { count: 0 }, link: linkA })
  const framesB = new FramesClient(muxB, { application: 'app', tally: { count: 0 }, link: linkB })
  t.teardown(() => { muxA.close(); muxB.close(); calleeA.close(); calleeB.close() })
  class Over extends Dispatcher {
    /** @param {any} opts @param {any} handler */
    dispatch (opts, handler) { return framesA.dispatch(opts, poolHandler(handler, linkA)) }
  }
  const answer = await call(new Over(), '/', { method: 'POST', body: 'hello' })
  t.equal(answer.bytes.toString(), 'B POST hello', 'served by the other worker')
  t.equal(framesB.tally.count, 1, 'counted as frames there')
  t.same([linkA.inFlight, linkB.inFlight], [0, 0], 'settled on both')
})

test('a refused request with a streamed body moves with it (up to 64 KiB), a larger one fails naming why', async (t) => {
  const meta = { caller: 'test', wire: 'frames' }
  const a = new MessageChannel()
  const b = new MessageChannel()
  const calleeA = acceptFrames(http.createServer((req, res) => res.end('A')), a.port2, meta)
  const calleeB = acceptFrames(http.createServer((req, res) => {
    const hash = createHash('sha256')
    req.on('data', (c) => hash.update(c))
    req.on('end', () => res.end(`B ${hash.digest('hex')}`))
  }), b.port2, meta)
  calleeA.draining = true
  calleeA.refuseWhenDraining = true
  const muxB = new PortMux(b.port1, { peer: 'app' })
  const muxA = new PortMux(a.port1, { peer: 'app', relocate: async () => muxB })
  const linkA = { inFlight: 0, tally: { count: 0 } }
  const framesA = new FramesClient(muxA, { application: 'app', tally: { count: 0 }, link: linkA })
  const framesB = new FramesClient(muxB, { application: 'app', tally: { count: 0 }, link: { inFlight: 0, tally: { count: 0 } } })
  t.teardown(() => { muxA.close(); muxB.close(); calleeA.close(); calleeB.close() })
  class Over extends Dispatcher {
    /** @param {any} opts @param {any} handler */
    dispatch (opts, handler) { return framesA.dispatch(opts, poolHandler(handler, linkA)) }
  }
  const body = pattern(40_000)
  const stream = async function * () { for (let i = 0; i < body.length; i += 5000) { await new Promise((resolve) => setImmediate(resolve)); yield body.subarray(i, i + 5000) } }
  const answer = await call(new Over(), '/', { method: 'POST', body: stream() })
  t.equal(answer.bytes.toString(), `B ${sha(body)}`, 'the whole streamed body arrived at the other worker')
  t.equal(framesB.tally.count, 1)
  const large = pattern(200_000)
  await t.rejects(call(new Over(), '/', { method: 'POST', body: (async function * () { yield large.subarray(0, 100_000); yield large.subarray(100_000) })() }), /could not move/)
  t.equal(linkA.inFlight, 0, 'settled')
})

test('while something watches undici:request:create (Watt telemetry, APM), every request is left to the HTTP wire', async (t) => {
  const { dispatcher, tally } = framesPair(t, (req, res) => res.end('over frames'))
  // What OpenTelemetry's undici instrumentation subscribes to: it traces undici's own requests
  // only, and frames are none (test/mesh-port/telemetry.test.js in the repository).
  const watcher = () => {}
  subscribe('undici:request:create', watcher)
  try {
    await t.rejects(call(dispatcher, '/'), /left this request to HTTP/, 'watched: not sent as frames')
  } finally {
    unsubscribe('undici:request:create', watcher)
  }
  t.equal(tally.count, 0, 'nothing counted as frames while watched')
  const answer = await call(dispatcher, '/')
  t.equal(answer.bytes.toString(), 'over frames', 'unwatched: frames again')
  t.equal(tally.count, 1)
})
