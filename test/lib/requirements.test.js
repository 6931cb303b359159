// The hook for transports that need something outside the runtime: a `requires`
// tag, what it means (REQUIREMENTS), whether it can run here and why not, and a
// start/stop the benches call once per tag before the runtime.
import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

const dir = t.testdir()
const extra = join(dir, 'extra.json')
writeFileSync(extra, JSON.stringify([
  { name: 'far-a', description: 'needs a target', crossesThreads: true, http: true, requires: 'test-target', module: join(dir, 'far-a.ts') },
  { name: 'far-b', description: 'needs the same target', crossesThreads: true, http: true, requires: 'test-target', module: join(dir, 'far-b.ts'), inDefaultBench: false },
  { name: 'odd', description: 'needs something nobody described', crossesThreads: true, http: false, requires: 'nobody-knows', module: join(dir, 'odd.ts') }
]))
// Before the registry is first imported in this process: the test-only hook.
process.env.LAB_EXTRA_TRANSPORTS = extra
const topology = await import('../../lib/topology.js')
const { startRequirements } = await import('../../bench/lib/requirements.js')

const log = []
topology.REQUIREMENTS['test-target'] = {
  description: 'a pretend target process',
  check: (env) => env.TEST_TARGET_PORT ? null : 'set TEST_TARGET_PORT or let the bench start it',
  startable: true
}
const starters = {
  'test-target': async () => {
    log.push('start')
    return { env: { TEST_TARGET_PORT: '4999' }, stop: async () => { log.push('stop') } }
  }
}

t.test('what must be started, and whether it can run here', async (t) => {
  t.same(topology.requirementsOf('far-a'), [{ tag: 'test-target', description: 'a pretend target process' }])
  t.same(topology.requirementsOf('direct'), [])
  t.same(topology.availabilityOf('far-a', {}), { available: false, reason: 'far-a: set TEST_TARGET_PORT or let the bench start it' })
  t.same(topology.availabilityOf('far-a', { TEST_TARGET_PORT: '1' }), { available: true })
  t.match(topology.availabilityOf('odd', {}), { available: false, reason: /no REQUIREMENTS entry/ })
  t.notOk(topology.readyPaths({}).includes('/tsfastify/far-a'), 'not a ready path while unavailable')
  t.ok(topology.readyPaths({ TEST_TARGET_PORT: '1' }).includes('/tsfastify/far-a'))
  t.same(topology.availabilityOf('far-a', {}, { startable: true }), { available: true }, 'the bench can start its target')
  t.match(topology.availabilityOf('odd', {}, { startable: true }), { available: false })
  t.ok(topology.defaultBenchTransports({}).includes('far-a'), 'startable, so in the default bench')
  t.notOk(topology.defaultBenchTransports({}).includes('odd'), 'cannot run here, so not in the default bench')
  t.notOk(topology.defaultBenchTransports({ TEST_TARGET_PORT: '1' }).includes('far-b'), 'inDefaultBench: false')
  t.ok(topology.TRANSPORT_NAMES.includes('far-b'), 'still a choice')
})

t.test('the bench starts each needed tag once, hands its env on, stops it', async (t) => {
  const needs = await startRequirements(['far-a', 'far-b', 'direct'], {}, {}, starters)
  t.same(needs.tags, ['test-target'])
  t.same(needs.env, { TEST_TARGET_PORT: '4999' })
  t.same(log, ['start'], 'once for two transports')
  t.same(topology.availabilityOf('far-a', { ...needs.env }), { available: true })
  await needs.stop()
  await needs.stop()
  t.same(log, ['start', 'stop'], 'stopped once')
  const none = await startRequirements(['direct'], {}, {}, starters)
  t.match(none, { tags: [], env: {}, skipped: [], about: {} })
  t.equal(none.cpuSeconds('direct'), null)
})

t.test('a bench asked for a transport that cannot run here refuses, saying why', async (t) => {
  const { assertTransportsAvailable } = await import('../../bench/transports/profiles.js')
  t.throws(() => assertTransportsAvailable(['direct', 'odd'], {}), { name: 'UsageError', message: /cannot run here: odd/ })
  t.doesNotThrow(() => assertTransportsAvailable(['direct', 'far-a'], {}), 'far-a: the bench starts its target')
})

t.test('npm run transports says, per transport, whether it runs here and why not', async (t) => {
  const { execFile } = await import('node:child_process')
  const { promisify } = await import('node:util')
  const script = join(import.meta.dirname, '..', '..', 'scripts', 'transports.js')
  const { stdout } = await promisify(execFile)(process.execPath, [script, '--json'], { env: { ...process.env, LAB_EXTRA_TRANSPORTS: extra } })
  const rows = JSON.parse(stdout)
  t.same(rows.map((r) => r.name), topology.TRANSPORT_NAMES)
  t.match(rows.find((r) => r.name === 'direct'), { crossesThreads: false, status: 'runs here', requires: null })
  // another process: REQUIREMENTS there has no test-target, so nobody can say what it is
  t.match(rows.find((r) => r.name === 'far-a'), { requires: /^test-target/, status: /^unavailable: far-a requires "test-target"/ })
})
