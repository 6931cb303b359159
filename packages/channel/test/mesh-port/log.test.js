// The drop-in's log (log.js): Watt's logger of the worker, read at each call; without one,
// debug and info go nowhere and a warning is a process warning (stderr), never lost.
import t from 'tap'
import { once } from 'node:events'
import { workerLog } from '../../lib/mesh-port/log.js'

t.afterEach(() => { delete globalThis.platformatic })

t.test("each level goes to Watt's logger, found when the line is logged", async (t) => {
  const log = workerLog() // made before the logger exists: read at call time
  /** @type {[string, string][]} */
  const lines = []
  const at = (/** @type {string} */ level) => (/** @type {string} */ msg) => { lines.push([level, msg]) }
  globalThis.platformatic = /** @type {any} */ ({ logger: { debug: at('debug'), info: at('info'), warn: at('warn') } })
  log.debug('d')
  log.info('i')
  log.warn('w')
  t.same(lines, [['debug', 'd'], ['info', 'i'], ['warn', 'w']])
})

t.test('outside Watt: debug and info are dropped, a warning is emitted', async (t) => {
  const log = workerLog()
  const warned = once(process, 'warning')
  log.debug('nobody hears this')
  log.info('nor this')
  log.warn('mesh-port: a warning with no logger')
  const [warning] = await warned
  t.equal(warning.message, 'mesh-port: a warning with no logger')
})
