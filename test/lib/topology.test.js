// lib/topology.js is the one source of services, ports, settings and transports:
// watt.env matches it, and a default changed there changes everywhere it is read.
import t from 'tap'
import { cpSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { renderWattEnv } from '../../lib/watt-env.js'
import { APPLICATIONS, availabilityOf, CROSS_THREAD_TRANSPORTS, defaultBenchTransports, ENTRY, PORTS, readyPaths, routeOf, SERVICES, TRANSPORT_NAMES, TRANSPORTS, transportNamed } from '../../lib/topology.js'
import { DOWNSTREAM_SERVICES } from '../../lib/contract.js'
import { entryPort, metricsPort, tcpPortOf } from '../../lib/ports.js'

const root = join(import.meta.dirname, '..', '..')

t.test('the committed watt.env is what lib/topology.js renders (npm run watt-env)', async (t) => {
  t.equal(readFileSync(join(root, 'watt.env'), 'utf8'), renderWattEnv())
})

t.test('services, ports and the contract read the topology', async (t) => {
  t.same(DOWNSTREAM_SERVICES, SERVICES.map((s) => s.name))
  t.same(APPLICATIONS, [ENTRY.name, ...DOWNSTREAM_SERVICES])
  for (const s of SERVICES) {
    t.equal(tcpPortOf(s.name, {}), s.defaultPort, `${s.name} default port`)
    t.equal(tcpPortOf(s.name, { [s.portEnv]: '4999' }), 4999, `${s.portEnv} overrides it`)
  }
  t.equal(entryPort({}), ENTRY.defaultPort)
  t.equal(new Set(PORTS.map((p) => p.defaultPort)).size, PORTS.length, 'no two listeners share a default port')
  t.throws(() => tcpPortOf('nobody', {}), /unknown service/)
})

t.test('transports: names, flags, routes and availability', async (t) => {
  t.same(TRANSPORT_NAMES, TRANSPORTS.map((x) => x.name))
  t.ok(TRANSPORT_NAMES.length >= 4)
  t.same(CROSS_THREAD_TRANSPORTS, TRANSPORTS.filter((x) => x.crossesThreads).map((x) => x.name))
  for (const record of TRANSPORTS) {
    t.equal(routeOf(record.name), `/tsfastify/${record.name}`)
    t.notOk(record.description.includes('\n'), `${record.name}: one-line description`)
    if (!record.requires) t.same(availabilityOf(record.name, {}), { available: true }, `${record.name} runs anywhere`)
  }
  t.same(readyPaths({}), TRANSPORTS.filter((x) => !x.requires).map((x) => routeOf(x.name)))
  t.ok(defaultBenchTransports({}).every((name) => TRANSPORT_NAMES.includes(name)))
  t.throws(() => transportNamed('carrier-pigeon'), /unknown transport "carrier-pigeon"/)
})

// A fresh copy of lib/ (and the entry's settings reader) with one default changed:
// every reader of that default must follow, with no other edit.
function copyWithChangedDefaults (t) {
  const dir = t.testdir()
  cpSync(join(root, 'lib'), join(dir, 'lib'), { recursive: true })
  mkdirSync(join(dir, 'web', 'tsfastify', 'lib'), { recursive: true })
  cpSync(join(root, 'web', 'tsfastify', 'lib', 'settings.ts'), join(dir, 'web', 'tsfastify', 'lib', 'settings.ts'))
  const file = join(dir, 'lib', 'topology.js')
  const source = readFileSync(file, 'utf8')
  const changed = source
    .replace("service('node3', 'JavaScript', 'node:http', 3102)", "service('node3', 'JavaScript', 'node:http', 3999)")
    .replace('defaultPort: 3043,', 'defaultPort: 3998,')
    .replace("{ env: 'CALLS_IN_FLIGHT_PER_SERVICE', default: 16,", "{ env: 'CALLS_IN_FLIGHT_PER_SERVICE', default: 7,")
  t.not(changed, source, 'the defaults were found in lib/topology.js')
  writeFileSync(file, changed)
  return dir
}

t.test('changing a default in lib/topology.js changes it everywhere', async (t) => {
  const dir = copyWithChangedDefaults(t)
  const at = (path) => import(pathToFileURL(join(dir, path)).href)
  const ports = await at('lib/ports.js')
  t.equal(ports.tcpPortOf('node3', {}), 3999, 'the tcp transport and node3 listen on the new port')
  t.equal(ports.entryPort({}), 3998, 'the harness finds the entry on the new port')
  t.equal(ports.metricsPort({}), metricsPort({}), 'the others unchanged')
  const settings = await at('web/tsfastify/lib/settings.ts')
  t.equal(settings.readSettings({}).callsInFlightPerService, 7, 'the entry bounds calls with the new default')
  const env = (await at('lib/watt-env.js')).renderWattEnv()
  t.match(env, /^NODE3_PORT=3999$/m, 'watt.env would carry it')
  t.match(env, /^PORT=3998$/m)
  t.match(env, /^CALLS_IN_FLIGHT_PER_SERVICE=7$/m)
  t.not(env, renderWattEnv(), 'so the committed watt.env check would fail until regenerated')
})
