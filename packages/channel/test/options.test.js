// connect() and serve() check every option at the call, with a coded error that names it.
import t from 'tap'
import { connect, serve } from '../index.js'

const messaging = { handle () {}, send: async () => ({}) }
const invalid = (message) => ({ name: 'InvalidOptionError', code: 'WATT_CHANNEL_INVALID_OPTION', message })

t.test('connect refuses each bad value', async (t) => {
  const cases = [
    [['', {}], /application must be a non-empty string/],
    [['app', { kind: 'tcp' }], /kind must be one of port, shm, not "tcp"/],
    [['app', { timeoutMs: 0 }], /timeoutMs must be a positive number of milliseconds/],
    [['app', { timeoutMs: 2 ** 31 }], /timeoutMs must be a positive number/],
    [['app', { maxPayloadBytes: 0 }], /maxPayloadBytes must be a positive integer, not 0/],
    [['app', { maxPayloadBytes: 1.5 }], /maxPayloadBytes must be a positive integer/],
    [['app', { flush: 'later' }], /flush must be 'callback' or 'turn', not "later"/],
    [['app', { bell: 'port' }], /unknown option "bell" \(known: kind, timeoutMs, maxPayloadBytes, flush, ringBytes, messaging\)/],
    [['app', { bellWhenIdleOnly: true, timeout: 5 }], /unknown option "bellWhenIdleOnly", "timeout"/],
    [['app', { kind: 'shm', ringBytes: 5000 }], /ringBytes must be a power of two from 4096 bytes to 1 GiB, not 5000/],
    [['app', { kind: 'shm', ringBytes: 2048 }], /ringBytes must be a power of two/],
    [['app', { messaging: {} }], /messaging must have send\(application/]
  ]
  for (const [args, message] of cases) t.throws(() => connect(...(args)), invalid(message), JSON.stringify(args))
  t.equal(connect('app', { messaging }).application, 'app', 'good options make a client')
  for (const flush of ['callback', 'turn']) t.ok(connect('app', { messaging, flush }), `flush ${flush}`)
  t.throws(() => connect('app', { messaging, flush: /** @type {any} */ ('immediate') }), /flush must be 'callback' or 'turn', not "immediate"/, "0.2's names are gone (0.3.0)")
})

t.test('a call refuses a bad name or deadline without sending anything', async (t) => {
  const client = connect('app', { messaging })
  await t.rejects(client.call(''), invalid(/handler name must be a string of 1 to 256 characters/))
  await t.rejects(client.call('x'.repeat(257)), invalid(/handler name/))
  await t.rejects(client.call('echo', 1, { timeoutMs: -5 }), invalid(/timeoutMs must be a positive number/))
  t.equal(client.pending, 0)
})

t.test('serve refuses each bad value', async (t) => {
  const cases = [
    [[null, { messaging }], /handlers must be an object of functions by name/],
    [[{ echo: 'not a function' }, { messaging }], /handler echo must be a function/],
    [[{}, { messaging, kinds: [] }], /kinds must be a non-empty array/],
    [[{}, { messaging, kinds: 'port' }], /kinds must be a non-empty array/],
    [[{}, { messaging, kinds: ['udp'] }], /kind must be one of port, shm, not "udp"/],
    [[{}, { messaging, maxPayloadBytes: -1 }], /maxPayloadBytes must be a positive integer/],
    [[{}, { messaging, flush: 'never' }], /flush must be 'callback' or 'turn'/],
    [[{}, { messaging: { send () {} } }], /messaging must have handle\(name, handler\)/]
  ]
  for (const [args, message] of cases) t.throws(() => serve(...(args)), invalid(message), JSON.stringify(args))
  t.equal(serve({ echo: (x) => x }, { messaging }).channels, 0, 'good options serve')
})
