// Every option of the hand-wired http-port API is checked, with a clear error and a code,
// at the call, not later inside a connection.
import { createServer } from 'node:http'
import t from 'tap'
import { createHttpPortDispatcher, serveHttpPort } from '../../http.js'

const messaging = { handle () {}, send: async () => ({ accepted: 'http' }) }
const invalid = (message) => ({ name: 'InvalidOptionError', code: 'WATT_CHANNEL_INVALID_OPTION', message })

t.test('createHttpPortDispatcher refuses each bad value, and takes good ones', async (t) => {
  const cases = [
    [['', {}], /application must be a non-empty string/],
    [[42, {}], /application must be a non-empty string, not 42/],
    [['node3', { connections: 0 }], /connections must be a positive integer, not 0/],
    [['node3', { connections: 1.5 }], /connections must be a positive integer/],
    [['node3', { connections: '16' }], /connections must be a positive integer, not "16"/],
    [['node3', { window: 0 }], /window must be an integer of at least 1024 bytes, not 0/],
    [['node3', { window: -1 }], /window must be an integer/],
    [['node3', { pool: null }], /pool must be an object of undici Pool options/],
    [['node3', { pool: [] }], /pool must be an object/],
    [['node3', { pool: { connect: () => {} } }], /pool cannot set connect: the port pool owns them/],
    [['node3', { pool: { connections: 2, pipelining: 4 } }], /pool cannot set connections or pipelining/],
    [['node3', { origin: 'not a url' }], /origin must be a URL, not "not a url"/]
  ]
  for (const [args, message] of cases) {
    t.throws(() => createHttpPortDispatcher(...(args)), invalid(message), JSON.stringify(args))
  }
  const pool = createHttpPortDispatcher('node3', { messaging, connections: 2, window: 1024, pool: { keepAliveTimeout: 1000 } })
  t.teardown(() => pool.destroy())
  t.equal(typeof pool.dispatch, 'function', 'good options make a dispatcher')
})

t.test('serveHttpPort refuses what is not a server, and a bad window', async (t) => {
  t.throws(() => serveHttpPort(/** @type {any} */ ({}), { messaging }), invalid(/needs a node:http Server/))
  t.throws(() => serveHttpPort(/** @type {any} */ (null), { messaging }), invalid(/needs a node:http Server/))
  t.throws(() => serveHttpPort(createServer(), { messaging, window: 0 }), invalid(/window must be an integer of at least 1024 bytes/))
  const handled = []
  const server = serveHttpPort(createServer(), { messaging: { handle: (name) => handled.push(name), send: messaging.send } })
  t.ok(server, 'a good server is served')
  t.same(handled, ['watt-lab-channel:http'], 'its handshake is registered')
})
