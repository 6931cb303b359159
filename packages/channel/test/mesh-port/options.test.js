// The drop-in's options: each bad value stops the worker with a coded error naming it.
import t from 'tap'
import { DEFAULT_CONNECTIONS } from '../../lib/http/dispatcher.js'
import { meshPortOptions } from '../../lib/mesh-port/options.js'
import { DEFAULT_WINDOW } from '../../lib/wire/signals.js'

const invalid = (message) => ({ name: 'InvalidOptionError', code: 'WATT_CHANNEL_INVALID_OPTION', message })

t.test('the defaults', async (t) => {
  t.same(meshPortOptions(), { connections: DEFAULT_CONNECTIONS, window: DEFAULT_WINDOW, pool: {}, exclude: [], retry: true })
  t.same(meshPortOptions(null).connections, DEFAULT_CONNECTIONS, 'null is no options')
  t.same(meshPortOptions({ connections: 4, window: 65536, exclude: ['db'], retry: false, pool: { headersTimeout: 1000 } }),
    { connections: 4, window: 65536, pool: { headersTimeout: 1000 }, exclude: ['db'], retry: false })
})

t.test('each bad value, and an unknown name', async (t) => {
  const cases = [
    ['options', [], /"options" must be an object/],
    ['options', 'fast', /"options" must be an object/],
    ['unknown', { conections: 4 }, /unknown option "conections" \(known: connections, window, pool, exclude, retry\)/],
    ['removed in 0.3.0', { wire: 'http', flush: 'auto' }, /unknown option "wire", "flush"/],
    ['exclude', { exclude: 'db' }, /"exclude" must be an array of application ids, not "db"/],
    ['exclude', { exclude: [1] }, /"exclude" must be an array of application ids/],
    ['retry', { retry: 'yes' }, /"retry" must be true or false, not "yes"/],
    ['connections', { connections: 0 }, /mesh-port: connections must be a positive integer, not 0/],
    ['window', { window: 0 }, /mesh-port: window must be an integer of at least 1024 bytes, not 0/],
    ['pool', { pool: 5 }, /mesh-port: pool must be an object of undici Pool options/],
    ['pool', { pool: { connect: {} } }, /mesh-port: pool cannot set connect: the port pool owns them/],
    ['pool', { pool: { pipelining: 10 } }, /mesh-port: pool cannot set pipelining: the port pool owns them/]
  ]
  for (const [name, options, message] of cases) t.throws(() => meshPortOptions(options), invalid(message), name)
})
