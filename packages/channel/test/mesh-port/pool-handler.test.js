// The drop-in hands a link's Pool the old-API side of the handler undici's
// compose() wrapped, so the Pool does not wrap it back (headers parsed into an
// object and rebuilt as Buffers on every response); a new-API handler goes with the
// new API. Either way the link counts the call in flight until it settles, once.
import { EventEmitter } from 'node:events'
import { createRequire } from 'node:module'
import { test } from 'tap'
import { failHandler, NewApiView, OldApiView, poolHandler } from '../../lib/mesh-port/pool-handler.js'

const require = createRequire(import.meta.url)
const WrapHandler = require('undici/lib/handler/wrap-handler.js')
const UnwrapHandler = require('undici/lib/handler/unwrap-handler.js')

function recordingHandler () {
  const calls = []
  const record = (name) => (...args) => { calls.push([name, ...args]); return true }
  return { calls, onConnect: record('onConnect'), onHeaders: record('onHeaders'), onData: record('onData'), onComplete: record('onComplete'), onError: record('onError') }
}

test('the API is told by what a handler answers, not by its class name', async (t) => {
  const link = { inFlight: 0 }
  class Renamed extends WrapHandler {} // a bundler's or a subclass's WrapHandler: still both APIs
  t.type(poolHandler(new Renamed(recordingHandler()), link), OldApiView, 'both APIs: the old one, cheaper for a Pool')
  t.type(poolHandler(recordingHandler(), link), OldApiView, 'a bare old-API handler')
  const newOnly = { onRequestStart () {}, onResponseStart () {}, onResponseData () {}, onResponseEnd () {}, onResponseError (_c, err) { this.failed = err } }
  t.type(poolHandler(newOnly, link), NewApiView, 'new API only: the new one')
  const oldOnly = recordingHandler()
  const boom = new Error('boom')
  failHandler(oldOnly, boom)
  failHandler(newOnly, boom)
  t.same(oldOnly.calls, [['onError', boom]], 'failHandler speaks each handler\'s own API')
  t.equal(/** @type {any} */ (newOnly).failed, boom)
})

test('a WrapHandler reaches the pool as its old-API side: the raw headers pass untouched', async (t) => {
  const inner = recordingHandler()
  const wrapped = WrapHandler.wrap(inner)
  t.type(wrapped.onRequestStart, 'function', 'compose hands interceptors a handler with the new API')
  const link = { inFlight: 0 }
  const forPool = poolHandler(wrapped, link)
  t.equal(link.inFlight, 1, 'counted in flight from dispatch')
  t.equal(forPool.onRequestStart, undefined, 'the pool sees no new API, so it does not wrap it back')
  t.equal(UnwrapHandler.unwrap(forPool), forPool, 'undici leaves it as it is')
  const raw = [Buffer.from('set-cookie'), Buffer.from('a=1'), Buffer.from('set-cookie'), Buffer.from('b=2')]
  const resume = () => {}
  let aborted = 0
  const abort = () => { aborted++ }
  forPool.onConnect(abort, { id: 1 })
  t.equal(forPool.onHeaders(200, raw, resume, 'OK'), true)
  forPool.onData(Buffer.from('x'))
  t.equal(link.inFlight, 1, 'still in flight while the body comes')
  forPool.onComplete(null)
  t.equal(link.inFlight, 0, 'settled by the end of the answer')
  const failure = new Error('gone')
  forPool.onError(failure)
  t.equal(link.inFlight, 0, 'an error after the end does not count it twice')
  t.same(inner.calls.map(([name]) => name), ['onConnect', 'onHeaders', 'onData', 'onComplete', 'onError'], 'every call, in order')
  inner.calls[0][1]()
  t.equal(aborted, 1, "the caller's abort reaches the attempt under way")
  t.equal(inner.calls[1][2], raw, 'the very raw header array, not a rebuilt one')
  t.equal(inner.calls[1][3], resume)
  t.equal(inner.calls[4][1], failure)
})

test('a handler written for the new API reaches the pool with that API, counted until it settles', async (t) => {
  const calls = []
  const record = (name) => (...args) => { calls.push(name); return true }
  const modern = { onRequestStart: record('onRequestStart'), onResponseStart: record('onResponseStart'), onResponseData: record('onResponseData'), onResponseEnd: record('onResponseEnd'), onResponseError: record('onResponseError') }
  const link = { inFlight: 0 }
  const forPool = poolHandler(modern, link)
  t.type(forPool.onRequestStart, 'function', 'the pool sees the new API and unwraps it as undici means it to')
  t.equal(forPool.onHeaders, undefined, 'and no old one')
  forPool.onRequestStart({}, {})
  forPool.onResponseStart({}, 200, {}, 'OK')
  forPool.onResponseData({}, Buffer.from('x'))
  t.equal(link.inFlight, 1)
  forPool.onResponseError({}, new Error('reset'))
  t.equal(link.inFlight, 0, 'an error settles it')
  forPool.onResponseEnd({}, {})
  t.equal(link.inFlight, 0, 'once')
  t.same(calls, ['onRequestStart', 'onResponseStart', 'onResponseData', 'onResponseError', 'onResponseEnd'], 'every call passes through')
  // an upgrade settles it too (the socket is the caller's from then on), counted as an open socket until it closes
  const socket = new EventEmitter()
  const counted = { inFlight: 0, sockets: 0 }
  const upgraded = poolHandler({ onRequestStart () {}, onRequestUpgrade () {} }, counted)
  t.equal(counted.inFlight, 1)
  upgraded.onRequestUpgrade({}, 101, {}, socket)
  t.same(counted, { inFlight: 0, sockets: 1 }, 'a socket open, no request in flight')
  socket.emit('close')
  t.same(counted, { inFlight: 0, sockets: 0 }, 'closed: none open')
})

test('a bare old-API handler gets the old-API view, counted as well', async (t) => {
  const old = recordingHandler()
  const link = { inFlight: 0 }
  const forPool = poolHandler(old, link)
  t.equal(forPool.onRequestStart, undefined)
  forPool.onConnect(() => {}, {})
  forPool.onError(new Error('refused'))
  t.equal(link.inFlight, 0, 'a failed call settles')
  t.same(old.calls.map(([name]) => name), ['onConnect', 'onError'])
})

test('over a real pool, the count follows calls that answer, fail and are aborted', async (t) => {
  const { createServer } = await import('node:http')
  const { once } = await import('node:events')
  const { Pool } = await import('undici')
  const server = createServer((req, res) => {
    if (req.url === '/slow') return // aborted by the caller
    res.end('ok')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const pool = new Pool(`http://127.0.0.1:${server.address().port}`, { connections: 4 })
  t.teardown(async () => { await pool.destroy(); server.closeAllConnections(); server.close() })
  const link = { inFlight: 0 }
  const call = (path, signal) => new Promise((resolve) => {
    const body = []
    const handler = WrapHandler.wrap({
      onConnect (abort) { signal?.addEventListener('abort', () => abort(new Error('aborted')), { once: true }) },
      onHeaders () { return true },
      onData (chunk) { body.push(chunk); return true },
      onComplete () { resolve(Buffer.concat(body).toString()) },
      onError (err) { resolve(err.message) }
    })
    pool.dispatch({ origin: pool.origin, path, method: 'GET' }, poolHandler(handler, link))
  })
  const controller = new AbortController()
  const slow = call('/slow', controller.signal)
  const answers = Promise.all([call('/a'), call('/b')])
  t.equal(link.inFlight, 3, 'three dispatched, none settled')
  t.same(await answers, ['ok', 'ok'])
  t.equal(link.inFlight, 1, 'the answered two settled')
  controller.abort()
  t.equal(await slow, 'aborted')
  t.equal(link.inFlight, 0, 'the aborted one settled')
})

test('an error before any answer may send the request again: the caller sees one request, counted on the new link', async (t) => {
  const inner = recordingHandler()
  const first = { inFlight: 0 }
  const second = { inFlight: 0 }
  const view = /** @type {any} */ (poolHandler(WrapHandler.wrap(inner), first))
  /** @type {Error[]} */
  const offered = []
  view.resendVia({ resend: (/** @type {any} */ v, /** @type {Error} */ err) => { offered.push(err); v.moveTo(second); return true } }, {})
  let abortedFirst = 0
  let abortedSecond = 0
  view.onConnect(() => { abortedFirst++ }, {})
  const lost = new Error('worker gone')
  view.onError(lost)
  t.same(offered, [lost], 'the error went to the resender, not to the caller')
  t.same([first.inFlight, second.inFlight], [0, 1], 'counted on the new link from then on')
  view.onConnect(() => { abortedSecond++ }, {})
  t.same(inner.calls.map(([name]) => name), ['onConnect'], 'the caller was connected once')
  inner.calls[0][1]()
  t.same([abortedFirst, abortedSecond], [0, 1], "the caller's abort reaches the second attempt")
  view.onHeaders(200, [], () => {}, 'OK')
  view.onComplete(null)
  t.same(inner.calls.map(([name]) => name), ['onConnect', 'onHeaders', 'onComplete'])
  t.equal(second.inFlight, 0, 'settled')

  const late = /** @type {any} */ (poolHandler(WrapHandler.wrap(recordingHandler()), first))
  let asked = 0
  late.resendVia({ resend: () => { asked++; return true } }, {})
  late.onConnect(() => {}, {})
  late.onHeaders(200, [], () => {}, 'OK')
  late.onError(new Error('gone mid-answer'))
  t.equal(asked, 0, 'once the answer began, an error goes to the caller')

  const twice = /** @type {any} */ (poolHandler(WrapHandler.wrap(recordingHandler()), first))
  let tries = 0
  twice.resendVia({ resend: () => { tries++; return true } }, {})
  twice.onError(new Error('first worker gone'))
  twice.onError(new Error('second worker gone'))
  t.equal(tries, 1, 'resent once at most: the second error goes to the caller')
})
