// The accessors of what Watt sets up in a worker thread: each reads its field of a fake
// `globalThis.platformatic` or `workerData` at call time, and gives undefined (never throws)
// where Watt put nothing: outside Watt, or before the application starts.
import t from 'tap'
import { EventEmitter, once } from 'node:events'
import { Worker } from 'node:worker_threads'
import {
  applicationId, configuredApplications, events, EXIT_EVENT, itc, logger, messaging, platformatic, prometheus,
  runtimeRoot, START_EVENT, STOP_EVENT, workerApplicationId, workerData, workerIndex
} from '../../lib/watt/globals.js'

/** @param {Record<string, unknown> | undefined} value  this test's globalThis.platformatic, restored after it */
function setPlatformatic (t, value) {
  const had = Object.hasOwn(globalThis, 'platformatic')
  const before = globalThis.platformatic
  if (value === undefined) delete globalThis.platformatic
  else globalThis.platformatic = value
  t.teardown(() => { if (had) globalThis.platformatic = before; else delete globalThis.platformatic })
}

t.test('each accessor reads its field of globalThis.platformatic, at call time', async (t) => {
  const fake = {
    messaging: { send () {}, handle () {} },
    itc: { send () {} },
    events: new EventEmitter(),
    logger: { info () {} },
    prometheus: { client: {}, registry: {} },
    applicationId: 'front'
  }
  setPlatformatic(t, {})
  t.equal(messaging(), undefined, 'read before the start: nothing yet')
  globalThis.platformatic = fake
  t.equal(platformatic(), fake)
  t.equal(messaging(), fake.messaging, 'messaging, once Watt set it')
  t.equal(itc(), fake.itc)
  t.equal(events(), fake.events)
  t.equal(logger(), fake.logger)
  t.equal(prometheus(), fake.prometheus)
  t.equal(applicationId(), 'front')
})

t.test('outside Watt: every accessor gives undefined', async (t) => {
  setPlatformatic(t, undefined)
  for (const read of [platformatic, messaging, itc, events, logger, prometheus, applicationId]) {
    t.equal(read(), undefined, `${read.name}() without globalThis.platformatic`)
  }
  setPlatformatic(t, { applicationId: 'front' })
  for (const read of [messaging, itc, events, logger, prometheus]) {
    t.equal(read(), undefined, `${read.name}() on a platformatic object without it`)
  }
})

t.test('messaging, itc and events also read a platformatic object handed to them', async (t) => {
  setPlatformatic(t, undefined)
  const given = { messaging: {}, itc: {}, events: new EventEmitter() }
  t.equal(messaging(given), given.messaging)
  t.equal(itc(given), given.itc)
  t.equal(events(given), given.events)
  for (const read of [messaging, itc, events]) t.equal(read(null), undefined, `${read.name}(null)`)
})

t.test('Watt\'s lifecycle event names', async (t) => {
  t.same([START_EVENT, STOP_EVENT, EXIT_EVENT], ['start', 'stop', 'exit'])
})

const WORKER_DATA = {
  config: { applications: [{ id: 'front', workers: 2 }, { id: 'catalog', workers: { static: 3 } }] },
  applicationConfig: { id: 'catalog' },
  worker: { index: 1 },
  dirname: '/srv/runtime'
}

t.test('the workerData accessors read the object handed to them', async (t) => {
  t.same(configuredApplications(WORKER_DATA), WORKER_DATA.config.applications)
  t.equal(workerApplicationId(WORKER_DATA), 'catalog')
  t.equal(workerIndex(WORKER_DATA), 1)
  t.equal(runtimeRoot(WORKER_DATA), '/srv/runtime')
  for (const data of [null, {}, { config: {}, applicationConfig: {}, worker: {} }]) {
    const all = [configuredApplications(data), workerApplicationId(data), workerIndex(data), runtimeRoot(data)]
    t.same(all, [undefined, undefined, undefined, undefined], `nothing in ${JSON.stringify(data)}`)
  }
  t.equal(configuredApplications({ config: { applications: 'front' } }), undefined, 'applications that are no list')
})

t.test('in the main thread (no workerData): every workerData accessor gives undefined', async (t) => {
  t.equal(workerData(), null, 'Node\'s workerData outside a worker')
  const all = [configuredApplications(), workerApplicationId(), workerIndex(), runtimeRoot()]
  t.same(all, [undefined, undefined, undefined, undefined])
})

t.test('in a worker thread: the accessors read the workerData it was started with', async (t) => {
  const globals = new URL('../../lib/watt/globals.js', import.meta.url).href
  const code = `
    const { parentPort } = require('node:worker_threads')
    import(${JSON.stringify(globals)}).then((w) => parentPort.postMessage({
      data: w.workerData(),
      applications: w.configuredApplications(),
      id: w.workerApplicationId(),
      index: w.workerIndex(),
      root: w.runtimeRoot()
    }))`
  const worker = new Worker(code, { eval: true, workerData: WORKER_DATA })
  const [seen] = await once(worker, 'message')
  await worker.terminate()
  const applications = WORKER_DATA.config.applications
  t.same(seen, { data: WORKER_DATA, applications, id: 'catalog', index: 1, root: '/srv/runtime' })
})
