// expect: 100-continue and 1xx answers over the frames wire, held to what the HTTP wire does on the same app
// (both-wires.js). undici refuses an expect header and sends no 100-continue over HTTP/1.1 (expectContinue is
// HTTP/2's), so neither wire asks for a 100; an app's 102 and 103 reach undici's onInfo over HTTP, and an
// unasked 100 fails the request. The caller's side of it is checked here against a scripted callee that sends
// 1xx heads as frames ({ s, r, h } with s < 200), as exchange-socket.js does (callee-contracts.test.js, with an app).
import { MessageChannel } from 'node:worker_threads'
import { test } from 'tap'
import { Dispatcher } from 'undici'
import { FramesClient } from '../../../lib/mesh-port/frames/client.js'
import { poolHandler } from '../../../lib/mesh-port/pool-handler.js'
import { PortMux } from '../../../lib/wire/port-mux.js'
import { FIN, RESET } from '../../../lib/wire/signals.js'
import { bothWires, onBoth, outcome, sleep } from './both-wires.js'

test('an expect header: undici refuses it on the HTTP wire, and so on the frames wire; the app sees nothing', async (t) => {
  let served = 0
  const both = await onBoth(t, (req, res) => { served++; res.end('served') }, '/',
    { request: () => ({ method: 'PUT', body: 'x', headers: { expect: '100-continue' } }) })
  t.same(both.http, {
    error: { name: 'NotSupportedError', code: 'UND_ERR_NOT_SUPPORTED', message: 'expect header not supported' },
    infos: []
  }, "the HTTP wire: undici's Request refuses it")
  t.same(both.frames, both.http, 'the frames wire: the same')
  t.same(both.carried.frames, { frames: 0, http: 1 }, 'left to the HTTP wire')
  t.equal(served, 0, 'the app saw no request')
})

test('expectContinue: true (HTTP/2 only in undici): a plain request on both wires, no expect header, no 100', async (t) => {
  /** @type {Record<string, unknown>} */
  const seen = {}
  const both = await onBoth(t, (req, res, wire) => {
    seen[wire] = req.headers.expect ?? null
    let body = ''
    req.on('data', (c) => { body += c })
    req.on('end', () => res.end(`got ${body}`))
  }, '/', { request: () => ({ method: 'PUT', body: 'payload', expectContinue: true }) })
  t.same(both.http, { status: 200, body: 'got payload', infos: [] }, 'the HTTP wire')
  t.same(both.frames, both.http, 'the frames wire')
  t.same(seen, { http: null, frames: null }, 'no expect header reached the app')
  t.same(both.carried.frames, { frames: 0, http: 1 }, 'left to the HTTP wire, which ignores it')
  const pair = bothWires(t, (req, res) => res.end('plain'))
  t.same(await outcome(pair.wires.frames, `${pair.origin}/`, { expectContinue: false }), { status: 200, body: 'plain', infos: [] })
  t.same(pair.carried(), { frames: 1, http: 0 }, 'expectContinue: false goes as frames')
})

/**
 * A callee that answers each request head with `frames` (then FIN), and notes what came back on the stream.
 * @param {import('tap').Test} t
 * @param {unknown[]} frames
 */
function scriptedCallee (t, frames) {
  const { port1, port2 } = new MessageChannel()
  /** @type {unknown[]} */
  const back = []
  const callee = new PortMux(port2, {
    peer: 'test',
    accept (id) {
      callee.add(id, { onFrame: (payload) => back.push(payload), onMuxLost () {}, referenced: false, windowSize: 1 << 20 })
      for (const frame of frames) callee.send(id, frame)
      return true
    }
  })
  const mux = new PortMux(port1, { peer: 'app' })
  const tally = { count: 0 }
  const client = new FramesClient(mux, { application: 'app', tally })
  const link = { inFlight: 0 }
  const dispatcher = new (class extends Dispatcher {
    /** @param {any} opts @param {any} handler */
    dispatch (opts, handler) {
      if (!client.dispatch(opts, poolHandler(handler, link))) throw new Error('left to the HTTP wire')
      return true
    }
  })()
  t.teardown(() => { mux.close(); callee.close() })
  return { dispatcher, back, tally }
}

test("an app's 102 and 103: undici's onInfo gets them over HTTP, and so from 1xx frames, then the answer", async (t) => {
  const http = bothWires(t, (req, res) => {
    res.writeProcessing()
    res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' })
    res.end('final')
  })
  const overHttp = await outcome(http.wires.http, `${http.origin}/`)
  t.same(overHttp, {
    status: 200,
    body: 'final',
    infos: [{ statusCode: 102, headers: {} }, { statusCode: 103, headers: { link: '</style.css>; rel=preload; as=style' } }]
  }, 'the HTTP wire: both to onInfo, then the answer')
  const callee = scriptedCallee(t, [
    { s: 102, r: 'Processing', h: [] },
    { s: 103, r: 'Early Hints', h: ['Link', '</style.css>; rel=preload; as=style'] },
    { s: 200, r: 'OK', h: ['Content-Length', '5'] },
    'final',
    FIN
  ])
  t.same(await outcome(callee.dispatcher, 'http://app.plt.local/'), overHttp, 'the frames wire: the same')
  t.equal(callee.tally.count, 1, 'carried as frames')
})

test('an unasked 100, or a 101 without an upgrade: undici fails the request over HTTP, and so from frames', async (t) => {
  const http = bothWires(t, (req, res) => {
    res.writeContinue()
    res.end('final')
  })
  const overHttp = await outcome(http.wires.http, `${http.origin}/`)
  t.same(overHttp, { error: { name: 'SocketError', code: 'UND_ERR_SOCKET', message: 'bad response' }, infos: [] },
    'the HTTP wire: a bad response')
  const cont = scriptedCallee(t, [{ s: 100, r: 'Continue', h: [] }, { s: 200, r: 'OK', h: [] }, 'final', FIN])
  t.same(await outcome(cont.dispatcher, 'http://app.plt.local/'), overHttp, 'the frames wire: the same')
  for (let i = 0; i < 50 && cont.back.length === 0; i++) await sleep(10)
  t.equal(cont.back[0], RESET, 'and the callee told to reset, as the HTTP wire closes the connection')
  const upgrade = scriptedCallee(t, [{ s: 101, r: 'Switching Protocols', h: ['Upgrade', 'x'] }])
  t.same(await outcome(upgrade.dispatcher, 'http://app.plt.local/'),
    { error: { name: 'SocketError', code: 'UND_ERR_SOCKET', message: 'bad upgrade' }, infos: [] },
    "a 101 to a request that asked for no upgrade: undici's bad upgrade")
})
