// The drop-in's options: each bad value stops the worker with a coded error naming it.
import t from 'tap'
import { meshPortOptions } from '../../lib/mesh-port/options.js'
import { DEFAULT_WINDOW } from '../../lib/wire/signals.js'

const invalid = (message) => ({ name: 'InvalidOptionError', code: 'WATT_CHANNEL_INVALID_OPTION', message })

t.test('the defaults', async (t) => {
  t.same(meshPortOptions(), { connections: 32, window: DEFAULT_WINDOW, pool: {}, exclude: [], retry: true, wire: 'http', flush: 'auto' })
  t.same(meshPortOptions(null).connections, 32, 'null is no options')
  t.same(meshPortOptions({ connections: 4, window: 65536, exclude: ['db'], retry: false, wire: 'frames', flush: 'turn', pool: { headersTimeout: 1000 } }),
    { connections: 4, window: 65536, pool: { headersTimeout: 1000 }, exclude: ['db'], retry: false, wire: 'frames', flush: 'turn' })
})

t.test('each bad value, and an unknown name', async (t) => {
  const cases = [
    ['options', [], /"options" must be an object/],
    ['options', 'fast', /"options" must be an object/],
    ['unknown', { conections: 4 }, /unknown option "conections" \(known: connections, window, pool, exclude, retry, wire, flush\)/],
    ['wire', { wire: 'tcp' }, /"wire" must be "http" or "frames", not "tcp"/],
    ['flush', { flush: 'immediate' }, /"flush" must be "auto" or "turn", not "immediate"/],
    ['flush', { flush: 'callback' }, /"flush" must be "auto" or "turn", not "callback"/],
    ['exclude', { exclude: 'db' }, /"exclude" must be an array of application ids, not "db"/],
    ['exclude', { exclude: [1] }, /"exclude" must be an array of application ids/],
    ['retry', { retry: 'yes' }, /"retry" must be true or false, not "yes"/],
    ['connections', { connections: 0 }, /mesh-port: connections must be a positive integer, not 0/],
    ['window', { window: 0 }, /mesh-port: window must be an integer of at least 1024 bytes, not 0/],
    ['pool', { pool: 5 }, /mesh-port: pool must be an object of undici Pool options/],
    ['pool', { pool: { connect: {} } }, /mesh-port: pool cannot set connect or connections/]
  ]
  for (const [name, options, message] of cases) t.throws(() => meshPortOptions(options), invalid(message), name)
})
