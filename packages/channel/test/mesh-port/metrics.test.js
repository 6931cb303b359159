// The drop-in's request counter: a request bumps a plain number, and the
// Prometheus counter takes what is new each time it is read. Checked against the
// prom-client Watt itself uses, through a registry as Watt's endpoint reads it.
import promClient from '@platformatic/prom-client'
import { test } from 'tap'

const registry = new promClient.Registry()
Object.assign(globalThis, { platformatic: { prometheus: { client: promClient, registry } } })
const { REQUESTS_METRIC, tally } = await import('../../lib/mesh-port/metrics.js')

/** @returns {Promise<Record<string, number>>} 'target path worker' → value */
async function read () {
  const metric = registry.getSingleMetric(REQUESTS_METRIC)
  if (!metric) return {}
  const { values } = await metric.get()
  return Object.fromEntries(values.map((v) => [`${v.labels.target} ${v.labels.path} ${v.labels.targetWorker}`, v.value]))
}

test('reads give the running totals, counted once each', async (t) => {
  const one = tally('one', 'http-port', 0)
  const mesh = tally('one', 'mesh', null)
  one.count += 3
  t.same(await read(), { 'one http-port 0': 3 }, 'a label set with no request yet has no line')
  one.count += 2
  mesh.count++
  t.same(await read(), { 'one http-port 0': 5, 'one mesh ': 1 })
  t.same(await read(), { 'one http-port 0': 5, 'one mesh ': 1 }, 'a read without new requests changes nothing')
})

test('a new link to a restarted worker goes on counting under the same labels', async (t) => {
  const before = (await read())['one http-port 0'] ?? 0
  const again = tally('one', 'http-port', 0)
  again.count += 4
  t.equal((await read())['one http-port 0'], before + 4)
  tally('one', 'http-port', 1).count++
  t.equal((await read())['one http-port 1'], 1, 'another worker has its own line')
})

test('registered once in the worker\'s registry', async (t) => {
  tally('two', 'http-port', 0).count++
  t.equal(registry.getMetricsAsArray().filter((m) => m.name === REQUESTS_METRIC).length, 1)
  t.match(await registry.metrics(), /watt_lab_mesh_port_requests_total\{target="two",path="http-port",targetWorker="0"\} 1/)
})
