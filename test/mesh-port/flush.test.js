// The drop-in's `flush` option (D-44-c10, D-wake): 'auto', the default, sends at once when the
// peer thread is idle (packages/channel/test/wire/wake.test.js); 'turn' sends the frames of one
// event-loop turn in one message. The caller picks it and tells the callee in the handshake, so
// both ends of a link flush alike; an unknown value is refused, an unnamed one is per turn.
// The mux's own 'callback' (a message channel's default) sends each callback's frames at its end.
// Then a runtime on 'turn' answers as the default does, every call over http-port.
import { createHash } from 'node:crypto'
import http from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { MessageChannel } from 'node:worker_threads'
import { test } from 'tap'
import { acceptConnections } from '../../packages/channel/lib/http/serve.js'
import { PortMux } from '../../packages/channel/lib/wire/port-mux.js'
import { flushOf } from '../../packages/channel/lib/wire/signals.js'
import { ApplicationRoute } from '../../packages/channel/lib/mesh-port/route.js'
import { startFixture } from '../helpers/mesh-fixture.js'
import { pattern } from './fixture/lib/handler.js'

/**
 * The messages the peer receives when two callbacks of one turn each send a frame.
 * @param {import('tap').Test} t
 * @param {'turn' | 'callback' | undefined} flush
 */
async function messagesOfOneTurn (t, flush) {
  const { port1, port2 } = new MessageChannel()
  const mux = new PortMux(port1, { peer: 'test', ...(flush ? { flush } : {}) })
  t.teardown(() => { port1.close(); port2.close() })
  /** @type {unknown[][]} */
  const received = []
  port2.on('message', (message) => received.push(message))
  // two immediates queued together run in the same check phase: one turn, two callbacks
  setImmediate(() => mux.send(7, 'a'))
  setImmediate(() => mux.send(7, 'b'))
  const deadline = Date.now() + 10_000
  while (received.flat().length < 4 && Date.now() < deadline) await sleep(5)
  return received
}

test('a mux flushes per turn by default: two callbacks\' frames leave in one message', async (t) => {
  t.same(await messagesOfOneTurn(t, undefined), [[7, 'a', 7, 'b']])
  t.same(await messagesOfOneTurn(t, 'turn'), [[7, 'a', 7, 'b']])
})

test('a mux on flush "callback": each callback\'s frames leave at its end', async (t) => {
  t.same(await messagesOfOneTurn(t, 'callback'), [[7, 'a'], [7, 'b']])
})

test('the caller names the flush in the handshake, and the callee takes it from there', async (t) => {
  const silent = { info () {}, warn () {}, debug () {} }
  const base = { connections: 1, pool: {}, workers: { ask: async () => [] }, log: silent, caller: 'front' }
  t.same(new ApplicationRoute('svc', /** @type {any} */ ({ ...base, flush: 'turn' })).handshakeMeta(), { caller: 'front' }, '\'turn\' is not named: an older callee takes it as its default')
  t.same(new ApplicationRoute('svc', /** @type {any} */ ({ ...base, flush: 'auto' })).handshakeMeta(), { caller: 'front', flush: 'auto' })
  t.same(new ApplicationRoute('svc', /** @type {any} */ ({ ...base, flush: 'auto', wire: 'frames' })).handshakeMeta(), { caller: 'front', wire: 'frames', flush: 'auto' })

  t.equal(flushOf({ caller: 'front', flush: 'callback' }), 'turn', 'a flush the drop-in no longer offers: per turn')
  t.equal(flushOf({ caller: 'front', flush: 'auto' }), 'auto')
  t.equal(flushOf({ caller: 'front' }), 'turn', 'a caller that names none (flush \'turn\', or an older one): per turn')
  t.equal(flushOf({ flush: 'sometimes' }), 'turn', 'an unknown value in a handshake: per turn')
  t.equal(flushOf(undefined), 'turn')

  const { port1, port2 } = new MessageChannel()
  t.teardown(() => { port1.close(); port2.close() })
  const callee = acceptConnections(http.createServer(), port2, { caller: 'front' })
  t.equal(callee.schedule, setImmediate, 'the callee flushes per turn when none is named')
  const { port1: p1, port2: p2 } = new MessageChannel()
  t.teardown(() => { p1.close(); p2.close() })
  const auto = acceptConnections(http.createServer(), p2, { caller: 'front', flush: 'auto' })
  t.equal(auto.auto, true, 'and reads the caller\'s idle flag when asked for auto')
})

test('a runtime on flush "turn" answers as the default does, every call over http-port', async (t) => {
  const fixture = await startFixture(t, 'drop-in', { apps: ['plain', 'svc'], dropIn: { flush: 'turn' } })
  t.equal((await fixture.call('http://plain.plt.local', '/hello')).text, 'hello plain')
  const size = 300_000
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => fixture.call(i % 2 ? 'http://plain.plt.local' : 'http://svc.plt.local', `/bytes?size=${size}`)))
  t.ok(answers.every((a) => a.status === 200 && a.bytes.equals(pattern(size))), '20 concurrent 300 kB answers, every byte right')
  const upload = pattern(6 * 1024 * 1024 + 7)
  const digest = JSON.parse((await fixture.call('http://plain.plt.local', '/digest', { method: 'POST', body: upload })).text)
  t.same(digest, { length: upload.length, sha256: createHash('sha256').update(upload).digest('hex') }, 'a 6 MiB upload arrives whole')
  const echoed = await fixture.call('http://plain.plt.local', '/echo', { method: 'POST', body: upload.subarray(0, 1024 * 1024) })
  t.ok(echoed.bytes.equals(upload.subarray(0, 1024 * 1024)), 'a 1 MiB echo streams back')
  const counted = await fixture.counted()
  t.ok((counted['plain http-port 0'] ?? 0) >= 13 && (counted['svc http-port 0'] ?? 0) >= 10, `both apps over http-port: ${JSON.stringify(counted)}`)
  t.notOk(Object.keys(counted).some((key) => key.includes(' mesh ')), 'none over the mesh')
})
