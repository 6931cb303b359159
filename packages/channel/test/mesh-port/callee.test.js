// The drop-in's callee side (callee.js) in this thread, on a stand-in of what Watt gives a worker
// (events, messaging): its handshake registers once the application starts, hands a caller's
// connections to the app's one http.Server, refuses with NO_SERVER where there is none and with
// STOPPING once Watt stops the worker, whose open links get GOAWAY. Once per thread, whatever the calls.
import t from 'tap'
import { EventEmitter } from 'node:events'
import http from 'node:http'
import { threadId } from 'node:worker_threads'
import { request } from 'undici'
import { CODES } from '../../lib/errors.js'
import { openPortAnswered } from '../../lib/handshake.js'
import { PortPool } from '../../lib/http/dispatcher.js'
import { installCallee, MESH_PORT_KIND } from '../../lib/mesh-port/callee.js'
import { PortMux } from '../../lib/wire/port-mux.js'
import { DEFAULT_WINDOW } from '../../lib/wire/signals.js'
import { localMessaging } from '../helpers/local-messaging.js'

const HANDSHAKE = `watt-lab-channel:${MESH_PORT_KIND}`
/** @type {string[]} */
const warnings = []
const log = { debug () {}, info () {}, warn: (/** @type {string} */ msg) => { warnings.push(msg) } }
const messaging = localMessaging()
let registrations = 0
const handle = messaging.handle
messaging.handle = (name, fn) => { registrations++; handle(name, fn) }
const events = new EventEmitter()
globalThis.platformatic = /** @type {any} */ ({ events })
t.teardown(() => { delete globalThis.platformatic })

/** A caller's handshake with this thread, its window in meta as the drop-in's caller sends it. */
const shake = (meta = {}) => openPortAnswered('target', MESH_PORT_KIND, { messaging, meta: { caller: 'front', ...meta } })

/** @param {import('node:worker_threads').MessagePort} port @param {(() => void)} [onGoAway] */
function linkOver (port, onGoAway) {
  const mux = new PortMux(port, { peer: 'target', onGoAway })
  const pool = new PortPool('http://target.plt.local', async () => mux, { application: 'target', connections: 1, window: DEFAULT_WINDOW })
  t.teardown(() => pool.destroy())
  return pool
}

t.test("installed before the application starts, its handshake registers at Watt's 'start'", async (t) => {
  installCallee({ log })
  t.equal(messaging.handlers.size, 0, 'no messaging yet: nothing registered')
  globalThis.platformatic.messaging = messaging
  events.emit('start')
  t.same([...messaging.handlers.keys()], [HANDSHAKE])
  installCallee({ log })
  events.emit('start')
  t.equal(registrations, 1, 'once per thread, however many factory calls')
  t.same(warnings, [])
})

t.test('no server in this worker: the handshake is refused with NO_SERVER and why', async (t) => {
  const err = await shake().catch((e) => e)
  t.match(err, { code: CODES.UNREACHABLE, message: /could not open a mesh-http channel: no node:http server in this worker/ })
  t.equal(err.cause.code, CODES.NO_SERVER)
})

t.test("with one server: the link's connections are the server's; the answer names this thread", async (t) => {
  // made after installCallee (as an app's, after the drop-in): found by the wrapped createServer
  http.createServer((req, res) => res.end(`served ${req.url} for ${req.headers.host}`))
  const { port, answer } = await shake()
  t.same(answer, { thread: threadId, worker: 0, accepted: MESH_PORT_KIND }, 'worker 0 outside a Watt worker')
  const pool = linkOver(port)
  const { body } = await request('http://target.plt.local/x', { dispatcher: pool })
  t.equal(await body.text(), 'served /x for target.plt.local')
  const bad = await shake({ window: 10 }).catch((e) => e)
  t.match(bad, { code: CODES.UNREACHABLE, message: /window must be an integer of at least 1024 bytes, not 10/ })
  t.equal(bad.cause.code, CODES.INVALID_OPTION, "a caller's bad window is refused with its code")
})

t.test("Watt's 'stop': open links get GOAWAY, new handshakes STOPPING", async (t) => {
  const { port } = await shake()
  const heard = { goAway: 0 }
  const pool = linkOver(port, () => { heard.goAway++ })
  await (await request('http://target.plt.local/before', { dispatcher: pool })).body.text()
  events.emit('stop')
  for (let i = 0; i < 200 && heard.goAway === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5))
  t.equal(heard.goAway, 1, 'the caller heard the worker is stopping')
  const err = await shake().catch((e) => e)
  t.match(err, { code: CODES.UNREACHABLE, message: /this worker is stopping/ })
  t.equal(err.cause.code, CODES.STOPPING)
})

t.test('messaging that refuses the handler: a warning, and callers keep the mesh', async (t) => {
  const fresh = await t.mockImport('../../lib/mesh-port/callee.js')
  /** @type {string[]} */
  const warned = []
  globalThis.platformatic = /** @type {any} */ ({
    events: new EventEmitter(),
    messaging: { handle () { throw new Error('handlers are sealed') }, send: async () => {} }
  })
  fresh.installCallee({ log: { ...log, warn: (/** @type {string} */ msg) => warned.push(msg) } })
  t.same(warned, ['mesh-port: this worker does not serve http-port: handlers are sealed'],
    'messaging there at install: registered (or warned) at once')
})
