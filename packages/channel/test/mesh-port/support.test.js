// The drop-in's support check: which Watt it runs on (a range of releases, and
// what it needs of a worker), and what it does on one it does not support:
// one warning, and an interceptor that hands every dispatch on unchanged.
import t from 'tap'
import { EventEmitter, once } from 'node:events'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createRequire } from 'node:module'
import createMeshPortInterceptor from '../../lib/mesh-port/index.js'
import { OLDEST_SUPPORTED, runtimeVersion, standAside, supportOf } from '../../lib/mesh-port/support.js'

const WORKER = { config: { applications: [{ id: 'front' }, { id: 'catalog' }] }, applicationConfig: { id: 'front' }, worker: { index: 0 } }
const PLATFORMATIC = { events: new EventEmitter() }
/** @param {string | null} version */
const decide = (version, { workerData = WORKER, platformatic = PLATFORMATIC } = {}) => supportOf({ version, workerData, platformatic })

t.test('the supported range: Watt 3 from the oldest release tested', async (t) => {
  for (const version of [OLDEST_SUPPORTED, '3.54.0', '3.62.2', '3.67.0', '3.99.1', '3.68.0-alpha.1']) {
    t.same(decide(version), { supported: true, version, reason: '' }, `${version} is supported`)
  }
  t.match(decide('3.40.9'), { supported: false, version: '3.40.9', reason: /older than 3\.41\.0/ }, 'older than the floor')
  t.match(decide('3.36.0'), { supported: false, reason: /older than/ })
  t.match(decide('2.75.0'), { supported: false, reason: /older than/ }, 'Watt 2')
  t.match(decide('4.0.0'), { supported: false, version: '4.0.0', reason: /only Watt 3/ }, 'the next major')
  t.match(decide('next'), { supported: false, reason: /cannot read the version "next"/ }, 'a version that is no version')
})

t.test('an unknown version is judged by what the worker offers', async (t) => {
  t.same(decide(null), { supported: true, version: 'unknown', reason: '' }, 'everything the drop-in needs is there')
  t.match(decide(null, { workerData: null }), { supported: false, version: 'unknown', reason: /workerData\.config\.applications/ }, 'not a Watt worker')
})

t.test('a missing capability: unsupported whatever the version', async (t) => {
  t.match(decide('3.67.0', { workerData: { ...WORKER, config: {} } }), { supported: false, reason: /applications/ }, 'no applications in the worker\'s config')
  t.match(decide('3.67.0', { workerData: { ...WORKER, applicationConfig: undefined } }), { supported: false, reason: /applications/ }, 'no application id')
  t.match(decide('3.67.0', { platformatic: {} }), { supported: false, reason: /globalThis\.platformatic\.events/ }, 'no runtime events')
  t.match(decide('3.67.0', { platformatic: null }), { supported: false, reason: /events/ }, 'no globalThis.platformatic')
})

t.test('unsupported: one warning that says why, every dispatch unchanged', async (t) => {
  const warnings = []
  const log = { info: () => {}, warn: (/** @type {string} */ msg) => warnings.push(msg) }
  const interceptor = standAside({ supported: false, version: '3.36.0', reason: 'older than 3.41.0, the oldest release tested' }, log)
  const dispatch = () => true
  t.equal(interceptor(dispatch), dispatch, 'the dispatch below (the mesh) is used as it is')
  t.same(warnings, ['mesh-port: Watt 3.36.0 is not supported (older than 3.41.0, the oldest release tested): every call stays on Watt\'s mesh'])
})

t.test('the factory stands aside outside a Watt worker (here: the main thread)', async (t) => {
  const warned = once(process, 'warning')
  const interceptor = createMeshPortInterceptor({})
  const dispatch = () => true
  t.equal(interceptor(dispatch), dispatch, 'every dispatch goes on unchanged')
  const [warning] = await warned
  t.match(warning.message, /^mesh-port: Watt .+ is not supported \(the worker has no runtime config .+\): every call stays on Watt's mesh$/)
})

t.test('the running runtime\'s version, from the worker file Watt starts', async (t) => {
  const argv = process.argv[1]
  t.teardown(() => { process.argv[1] = argv })
  // the Watt the workspace installs (the lab's): its worker file, as Watt starts it
  const manifest = createRequire(import.meta.url).resolve('@platformatic/runtime/package.json')
  process.argv[1] = join(dirname(manifest), 'lib', 'worker', 'main.js')
  const { version } = JSON.parse(readFileSync(manifest, 'utf8'))
  t.equal(runtimeVersion(), version, 'read from @platformatic/runtime\'s package.json')
  process.argv[1] = import.meta.filename
  t.equal(runtimeVersion(), null, 'not started by Watt: unknown (no workerData here to resolve from)')
})
