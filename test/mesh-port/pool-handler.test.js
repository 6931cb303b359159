// The drop-in hands a link's Pool the old-API side of the handler undici's
// compose() wrapped, so the Pool does not wrap it back (headers parsed into an
// object and rebuilt as Buffers on every response); other handlers go as they are.
import { createRequire } from 'node:module'
import { test } from 'tap'
import { poolHandler } from '../../packages/channel/lib/mesh-port/pool-handler.js'

const require = createRequire(import.meta.url)
const WrapHandler = require('undici/lib/handler/wrap-handler.js')
const UnwrapHandler = require('undici/lib/handler/unwrap-handler.js')

function recordingHandler () {
  const calls = []
  const record = (name) => (...args) => { calls.push([name, ...args]); return true }
  return { calls, onConnect: record('onConnect'), onHeaders: record('onHeaders'), onData: record('onData'), onComplete: record('onComplete'), onError: record('onError') }
}

test('a WrapHandler reaches the pool as its old-API side: the raw headers pass untouched', async (t) => {
  const inner = recordingHandler()
  const wrapped = WrapHandler.wrap(inner)
  t.type(wrapped.onRequestStart, 'function', 'compose hands interceptors a handler with the new API')
  const forPool = poolHandler(wrapped)
  t.equal(forPool.onRequestStart, undefined, 'the pool sees no new API, so it does not wrap it back')
  t.equal(UnwrapHandler.unwrap(forPool), forPool, 'undici leaves it as it is')
  const raw = [Buffer.from('set-cookie'), Buffer.from('a=1'), Buffer.from('set-cookie'), Buffer.from('b=2')]
  const resume = () => {}
  const abort = () => {}
  forPool.onConnect(abort, { id: 1 })
  t.equal(forPool.onHeaders(200, raw, resume, 'OK'), true)
  forPool.onData(Buffer.from('x'))
  forPool.onComplete(null)
  const failure = new Error('gone')
  forPool.onError(failure)
  t.same(inner.calls.map(([name]) => name), ['onConnect', 'onHeaders', 'onData', 'onComplete', 'onError'], 'every call, in order')
  t.equal(inner.calls[0][1], abort)
  t.equal(inner.calls[1][2], raw, 'the very raw header array, not a rebuilt one')
  t.equal(inner.calls[1][3], resume)
  t.equal(inner.calls[4][1], failure)
})

test('a handler written for the new API goes to the pool unchanged', async (t) => {
  const modern = { onRequestStart () {}, onResponseStart () {}, onResponseData () {}, onResponseEnd () {}, onResponseError () {} }
  t.equal(poolHandler(modern), modern)
  const old = recordingHandler()
  t.equal(poolHandler(old), old, 'and so does an old-API one')
})
