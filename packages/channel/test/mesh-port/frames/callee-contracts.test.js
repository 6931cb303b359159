// The frames wire's callee held to the HTTP wire's contracts with the app's server: the same requests over
// both wires of one link into the SAME http.Server (helpers/two-wires.js), and what the app sees compared.
// A body against its content-length; server.timeout, res.setTimeout, requestTimeout, maxRequestsPerSocket,
// requireHostHeader; 1xx heads an app writes; and the requests neither wire sends (expect, a bad length).
import { once } from 'node:events'
import http from 'node:http'
import { MessageChannel } from 'node:worker_threads'
import t from 'tap'
import { request } from 'undici'
import { requestHead } from '../../../lib/mesh-port/frames/request-head.js'
import { acceptFrames } from '../../../lib/mesh-port/frames/serve.js'
import { FIN } from '../../../lib/wire/signals.js'
import { withoutIdleFlag } from '../../helpers/frames.js'
import { ORIGIN, twoWires } from '../../helpers/two-wires.js'

const WIRES = /** @type {const} */ (['http', 'frames'])

/**
 * An app that logs what Node gives it: each request, its body's bytes and end, an abort, errors,
 * 'clientError', the response's close. `answer` runs once the body ended (default: 200 'ok').
 * @param {http.ServerOptions} [options]
 * @param {{ answer?: (req: any, res: any) => void, clientError?: boolean }} [how]
 */
function loggingApp (options = {}, { answer = (req, res) => res.end('ok'), clientError = true } = {}) {
  const state = { log: /** @type {string[]} */ ([]), closed: () => {} }
  const server = http.createServer(options, (req, res) => {
    state.log.push(`request ${req.method} ${req.headers['content-length'] ?? '-'}`)
    let bytes = 0
    req.on('data', (chunk) => { bytes += chunk.length })
    req.on('end', () => { state.log.push(`end after ${bytes}`); answer(req, res) })
    req.on('aborted', () => state.log.push(`aborted after ${bytes}`))
    req.on('error', (err) => state.log.push(`request error ${err.code} ${err.message}`))
    res.on('close', () => {
      state.log.push(`response close, finished ${res.writableFinished}`)
      setTimeout(state.closed, 20) // the request's error and close land after it
    })
  })
  if (clientError) {
    server.on('clientError', (err, socket) => { state.log.push(`clientError ${err.code}`); socket.destroy() })
  }
  /** @returns {Promise<string[]>}  the log of the next request, once its response closed */
  const next = () => {
    state.log = []
    return new Promise((resolve) => { state.closed = () => resolve(state.log) })
  }
  return { server, next }
}

/**
 * The caller's side of a call: status and body, or the error's code.
 * @param {Promise<import('undici').Dispatcher.ResponseData>} call
 */
async function outcome (call) {
  try {
    const answer = await call
    return `${answer.statusCode} ${await answer.body.text()}`
  } catch (err) {
    return `error ${/** @type {any} */ (err).code}`
  }
}

/**
 * The same call over each wire: the app's log and the caller's outcome per wire.
 * @param {ReturnType<typeof loggingApp>} app
 * @param {ReturnType<typeof twoWires>} wires
 * @param {(dispatcher: import('undici').Dispatcher) => Promise<any>} call
 */
async function overBoth (app, wires, call) {
  /** @type {Record<string, { log: string[], caller: string, ms: number }>} */
  const seen = {}
  for (const wire of WIRES) {
    const logged = app.next()
    const began = performance.now()
    const caller = await outcome(call(wires[wire]))
    seen[wire] = { log: await logged, caller, ms: performance.now() - began }
  }
  return seen
}

/** @param {Buffer[]} chunks */
async function * slowly (chunks) {
  for (const chunk of chunks) {
    await new Promise((resolve) => setImmediate(resolve))
    yield chunk
  }
}

t.test('a streamed body shorter than its content-length: the app sees the same on both wires', async (t) => {
  const app = loggingApp()
  const wires = twoWires(t, app.server)
  const seen = await overBoth(app, wires, (dispatcher) => request(`${ORIGIN}/short`, {
    dispatcher, method: 'POST', headers: { 'content-length': '10' }, body: slowly([Buffer.from('abcdef')])
  }))
  t.same(seen.frames.log, seen.http.log, 'the same events in the app')
  t.ok(seen.http.log.includes('clientError HPE_INVALID_EOF_STATE'), 'a parse error at the end of the stream, as Node\'s parser makes it')
  t.ok(seen.http.log.includes('aborted after 6'), 'then the request aborted')
  t.equal(seen.http.caller, 'error UND_ERR_REQ_CONTENT_LENGTH_MISMATCH', 'over HTTP undici fails the call')
  t.match(seen.frames.caller, /^error /, 'over frames the call fails too')
})

t.test('a streamed body longer than its content-length: the app sees the same on both wires', async (t) => {
  const app = loggingApp()
  const wires = twoWires(t, app.server)
  const seen = await overBoth(app, wires, (dispatcher) => request(`${ORIGIN}/long`, {
    dispatcher, method: 'POST', headers: { 'content-length': '6' }, body: slowly([Buffer.from('abcd'), Buffer.from('efgh')])
  }))
  t.same(seen.frames.log, seen.http.log, 'the same events in the app')
  t.ok(seen.http.log.includes('aborted after 4'), 'none of the chunk that overran reached the app')
  t.equal(seen.http.caller, 'error UND_ERR_REQ_CONTENT_LENGTH_MISMATCH')
  t.match(seen.frames.caller, /^error /)
})

t.test('a body at its content-length, streamed: complete on both wires', async (t) => {
  const app = loggingApp()
  const wires = twoWires(t, app.server)
  const seen = await overBoth(app, wires, (dispatcher) => request(`${ORIGIN}/exact`, {
    dispatcher, method: 'POST', headers: { 'content-length': '8' }, body: slowly([Buffer.from('abcd'), Buffer.from('efgh')])
  }))
  t.same(seen.frames.log, seen.http.log)
  t.same(seen.frames.log, ['request POST 8', 'end after 8', 'response close, finished true'])
  t.same([seen.http.caller, seen.frames.caller], ['200 ok', '200 ok'])
})

t.test('a known-length body whose content-length header differs, or a bad content-length: left to the HTTP wire, where undici refuses it', async (t) => {
  const base = { origin: ORIGIN, path: '/', method: 'POST' }
  const head = (/** @type {any} */ extra) => requestHead(/** @type {any} */ ({ ...base, ...extra }), 'h', 1024)
  t.equal(head({ body: 'hello', headers: { 'content-length': '3' } }), null, 'a string of 5 bytes that says 3')
  t.equal(head({ body: Buffer.alloc(2000), headers: { 'content-length': '5' } }), null, 'a Buffer that says otherwise')
  t.same(head({ body: 'hello', headers: { 'content-length': 5 } })?.head.h.slice(-2), ['content-length', '5'], 'one that agrees goes as frames')
  t.same(head({ method: 'GET', body: 'hello', headers: { 'content-length': '3' } })?.head.h.slice(-2), ['content-length', '5'],
    'a GET: undici checks nothing, sends the body\'s length')
  t.equal(head({ body: 'x', headers: { 'content-length': 'abc' } }), null, 'not digits')
  t.equal(head({ body: 'x', headers: ['content-length', '1', 'content-length', '1'] }), null, 'twice')
  t.same(head({ body: (async function * () {})(), headers: { 'content-length': '10' } })?.head.h.slice(-2), ['content-length', '10'],
    'a stream keeps the length it declares: the callee holds it to that')

  const app = loggingApp()
  let requests = 0
  app.server.on('request', () => { requests++ })
  const wires = twoWires(t, app.server)
  const answer = outcome(request(`${ORIGIN}/`, { dispatcher: wires.http, method: 'POST', body: 'hello', headers: { 'content-length': '3' } }))
  t.equal(await answer, 'error UND_ERR_REQ_CONTENT_LENGTH_MISMATCH', 'the HTTP wire: undici fails it before sending')
  t.equal(requests, 0, 'the app saw nothing')
})

t.test('server.timeout: a request idle that long is closed on both wires; res.setTimeout() answers in time', async (t) => {
  const silent = loggingApp({}, { answer: () => {} })
  silent.server.timeout = 150
  const seen = await overBoth(silent, twoWires(t, silent.server), (dispatcher) => request(`${ORIGIN}/silent`, { dispatcher }))
  t.same(seen.frames.log, seen.http.log, 'the same events in the app')
  t.same(seen.http.log.slice(0, 2), ['request GET -', 'end after 0'])
  for (const wire of WIRES) {
    t.match(seen[wire].caller, /^error /, `${wire}: the call fails`)
    t.ok(seen[wire].ms >= 140, `${wire}: after the timeout (${Math.round(seen[wire].ms)} ms)`)
  }

  const patient = loggingApp({}, { answer: (req, res) => res.setTimeout(100, () => res.writeHead(503).end('late')) })
  const answered = await overBoth(patient, twoWires(t, patient.server), (dispatcher) => request(`${ORIGIN}/patient`, { dispatcher }))
  t.same(answered.frames.log, answered.http.log)
  t.same([answered.http.caller, answered.frames.caller], ['503 late', '503 late'], 'the response\'s timeout listener answered')
  t.ok(answered.frames.ms >= 90)
})

t.test('server.requestTimeout: a body still arriving gets 408 on both wires (the server listens)', async (t) => {
  const app = loggingApp({ requestTimeout: 300, headersTimeout: 200, connectionsCheckingInterval: 50 }, { clientError: false })
  await once(app.server.listen(0, '127.0.0.1'), 'listening')
  t.teardown(() => app.server.close())
  const wires = twoWires(t, app.server)
  /** @type {(() => void)[]} */
  const stalled = []
  t.teardown(() => { for (const release of stalled) release() })
  /** A POST that sends 3 of its 10 bytes, then stalls until the test ends. @param {any} dispatcher */
  const stallingPost = (dispatcher) => request(`${ORIGIN}/stalls`, {
    dispatcher,
    method: 'POST',
    headers: { 'content-length': '10' },
    body: (async function * () {
      yield Buffer.from('abc')
      await new Promise((resolve) => stalled.push(() => resolve(undefined)))
    })()
  })
  const seen = await overBoth(app, wires, stallingPost)
  t.same(seen.frames.log, seen.http.log, 'the same events in the app')
  t.same([seen.http.caller, seen.frames.caller], ['408 ', '408 '], 'Node\'s 408 reached the caller')
  for (const wire of WIRES) t.ok(seen[wire].ms >= 290, `${wire}: after requestTimeout (${Math.round(seen[wire].ms)} ms)`)

  const heard = loggingApp({ requestTimeout: 200, headersTimeout: 200, connectionsCheckingInterval: 50 })
  await once(heard.server.listen(0, '127.0.0.1'), 'listening')
  t.teardown(() => heard.server.close())
  const both = await overBoth(heard, twoWires(t, heard.server), stallingPost)
  t.same(both.frames.log, both.http.log)
  t.ok(both.http.log.includes('clientError ERR_HTTP_REQUEST_TIMEOUT'), 'a clientError listener gets it instead')

  // a listener that writes its own answer to the socket: Fastify's default (write, then destroy), Node's example (end)
  const listeners = {
    'write, destroy': (/** @type {any} */ err, /** @type {any} */ socket) => {
      socket.write('HTTP/1.1 408 Request Timeout\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nTO')
      socket.destroy(err)
    },
    end: (/** @type {any} */ _err, /** @type {any} */ socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n')
  }
  for (const [name, listener] of Object.entries(listeners)) {
    const raw = loggingApp({ requestTimeout: 200, headersTimeout: 200, connectionsCheckingInterval: 50 }, { clientError: false })
    raw.server.on('clientError', listener)
    await once(raw.server.listen(0, '127.0.0.1'), 'listening')
    t.teardown(() => raw.server.close())
    const written = await overBoth(raw, twoWires(t, raw.server), stallingPost)
    t.same(written.frames.log, written.http.log, `${name}: the same events in the app`)
    t.equal(written.frames.caller, written.http.caller, `${name}: the listener's raw answer reached the caller (${written.http.caller})`)
  }
})

t.test('server.maxRequestsPerSocket: the same head on both wires (a frames request is its connection\'s first)', async (t) => {
  for (const max of [1, 3]) {
    const server = http.createServer((req, res) => res.end('ok'))
    server.maxRequestsPerSocket = max
    const wires = twoWires(t, server)
    /** @type {Record<string, any>} */
    const heads = {}
    for (const wire of WIRES) {
      const answer = await request(`${ORIGIN}/`, { dispatcher: wires[wire] })
      await answer.body.dump()
      const { date, ...rest } = answer.headers
      heads[wire] = rest
    }
    t.same(heads.frames, heads.http, `max ${max}: the same headers`)
    if (max === 1) t.equal(heads.http.connection, 'close', 'max 1: Connection: close')
    else t.equal(heads.http['keep-alive'], 'timeout=5, max=3', `max ${max}: Keep-Alive says it`)
  }
})

t.test('requireHostHeader: both wires always send a Host; a frames head without one gets Node\'s 400', async (t) => {
  /** @type {unknown[]} */
  const hosts = []
  const server = http.createServer((req, res) => { hosts.push(req.headers.host); res.end('ok') })
  const wires = twoWires(t, server)
  for (const wire of WIRES) t.equal(await outcome(request(`${ORIGIN}/`, { dispatcher: wires[wire] })), '200 ok', wire)
  t.same(hosts, ['app.plt.local', 'app.plt.local'], 'the same Host on both')

  for (const requireHostHeader of [true, false]) {
    const bare = http.createServer({ requireHostHeader }, (req, res) => res.end('served'))
    const { port1, port2 } = new MessageChannel()
    const callee = acceptFrames(bare, port2, { caller: 'test', wire: 'frames' })
    /** @type {unknown[]} */
    const frames = []
    const ended = new Promise((resolve) => port1.on('message', (message) => {
      frames.push(...withoutIdleFlag(message))
      if (frames.includes(FIN)) resolve(undefined)
    }))
    port1.postMessage([1, { m: 'GET', p: '/', h: ['connection', 'keep-alive'], e: true }])
    await ended
    port1.close()
    callee.close()
    const head = /** @type {any} */ (frames.find((frame) => frame !== null && typeof frame === 'object'))
    if (requireHostHeader) {
      t.equal(head.s, 400, 'required: 400')
      t.match(head.h.join(' '), /Connection close/, 'Connection: close, as Node writes it')
    } else t.equal(head.s, 200, 'not required: served')
  }
})

t.test('1xx heads an app writes: the same outcome on both wires (102 and 103 to onInfo, an unasked 100 fails)', async (t) => {
  const server = http.createServer((req, res) => {
    if (req.url === '/continue') res.writeContinue()
    else {
      res.writeProcessing()
      res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' })
    }
    res.end('final')
  })
  let checked = 0
  server.on('checkContinue', () => { checked++ })
  const wires = twoWires(t, server)
  for (const path of ['/hints', '/continue']) {
    /** @type {Record<string, { caller: string, infos: number[] }>} */
    const seen = {}
    for (const wire of WIRES) {
      /** @type {number[]} */
      const infos = []
      const caller = await outcome(request(`${ORIGIN}${path}`, {
        dispatcher: wires[wire], signal: AbortSignal.timeout(5000), onInfo: ({ statusCode }) => infos.push(statusCode)
      }))
      seen[wire] = { caller, infos }
    }
    t.same(seen.frames, seen.http, `${path}: the same on both wires`)
    if (path === '/hints') t.same(seen.http, { caller: '200 final', infos: [102, 103] }, '/hints: both to onInfo, then the answer')
    else t.same(seen.http, { caller: 'error UND_ERR_SOCKET', infos: [] }, '/continue: undici fails on an unasked 100 (bad response)')
  }
  t.equal(wires.tally.count, 2, 'both carried as frames')

  const expecting = outcome(request(`${ORIGIN}/`, { dispatcher: wires.http, method: 'PUT', body: 'x', headers: { expect: '100-continue' } }))
  t.equal(await expecting, 'error UND_ERR_NOT_SUPPORTED', 'undici refuses an expect header (the frames wire leaves it to HTTP)')
  t.equal(requestHead(/** @type {any} */ ({ origin: ORIGIN, path: '/', method: 'PUT', headers: { expect: '100-continue' } }), 'h', 1024), null)
  t.equal(checked, 0, 'so checkContinue is never emitted over either wire')
})
