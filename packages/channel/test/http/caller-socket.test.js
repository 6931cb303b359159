// The caller's end of a connection: a request a stopping worker refused moves, with its
// connection, to another worker (its bytes sent again); one too large to keep, or with
// nowhere to go, fails with WATT_CHANNEL_REFUSED naming the application.
import { once } from 'node:events'
import { MessageChannel } from 'node:worker_threads'
import t from 'tap'
import { CallerSocket } from '../../lib/http/caller-socket.js'
import { PortMux } from '../../lib/wire/port-mux.js'
import { OPEN, REFUSED, REPLAY_BYTES } from '../../lib/wire/signals.js'

/** A caller mux whose peer is a bare port that records what arrives. */
function link (t, relocate) {
  const { port1, port2 } = new MessageChannel()
  const mux = new PortMux(port1, { peer: 'app', relocate })
  const got = []
  port2.on('message', (m) => got.push(...m))
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => { clearInterval(alive); mux.close(); port2.close() })
  return { mux, port2, got }
}

const settle = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)))

t.test('a refused request moves to another worker, its bytes sent again on a new connection', async (t) => {
  const b = link(t)
  const a = link(t, async (why) => { t.equal(why, 'refused'); return b.mux })
  const socket = new CallerSocket(a.mux, 1, { application: 'app' })
  socket.write('GET /x HTTP/1.1\r\n\r\n')
  await settle()
  a.port2.postMessage([1, REFUSED])
  await settle()
  await settle()
  t.same(b.got.slice(0, 4), [1, OPEN, 1, 'GET /x HTTP/1.1\r\n\r\n'], 'opened on the other worker, the request sent again')
  t.equal(socket.mux, b.mux)
  t.equal(socket.moves, 1)
  t.equal(socket.destroyed, false, 'undici keeps one socket throughout')
  b.port2.postMessage([1, 'HTTP/1.1 200 OK\r\n'])
  await once(socket, 'data')
  t.equal(socket.moves, 0, 'an answer keeps it where it is')
  socket.destroy()
})

t.test('nowhere to go, or too large to keep: the request fails WATT_CHANNEL_REFUSED', async (t) => {
  const nowhere = link(t, async () => null)
  const lonely = new CallerSocket(nowhere.mux, 1, { application: 'app' })
  lonely.write('GET / HTTP/1.1\r\n\r\n')
  await settle()
  nowhere.port2.postMessage([1, REFUSED])
  const [err] = await once(lonely, 'error')
  t.match(err, { code: 'WATT_CHANNEL_REFUSED', application: 'app', message: /app: worker stopping: the request was refused and no other worker could take it/ })

  const other = link(t)
  const big = link(t, async () => other.mux)
  const large = new CallerSocket(big.mux, 1, { application: 'app' })
  large.write(Buffer.alloc(REPLAY_BYTES + 1, 97))
  await settle()
  big.port2.postMessage([1, REFUSED])
  const [tooLarge] = await once(large, 'error')
  t.match(tooLarge, { code: 'WATT_CHANNEL_REFUSED', message: new RegExp(`is larger than ${REPLAY_BYTES} bytes, so it could not move`) })
  t.same(other.got, [], 'nothing was sent to the other worker')
})

t.test('a request refused more than MAX_MOVES times fails', async (t) => {
  const ring = []
  const relocate = async () => ring[(ring.findIndex((l) => l.mux === socket.mux) + 1) % ring.length].mux
  for (let i = 0; i < 5; i++) ring.push(link(t, relocate))
  const socket = new CallerSocket(ring[0].mux, 1, { application: 'app' })
  socket.write('GET / HTTP/1.1\r\n\r\n')
  const failed = once(socket, 'error')
  for (let i = 0; i < 4; i++) {
    await settle()
    await settle()
    const at = ring.find((l) => l.mux === socket.mux)
    at.port2.postMessage([socket.id, REFUSED])
  }
  const [err] = await failed
  t.equal(err.code, 'WATT_CHANNEL_REFUSED')
  t.equal(socket.moves, 3, 'three moves, then no more')
})
