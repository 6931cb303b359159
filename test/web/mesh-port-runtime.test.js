// mesh-port's two sides: in a runtime from watt.mesh-port.json (with the
// variable only that runtime gets), /tsfastify/mesh-port answers verified and
// every call goes over http-port, none over the mesh, to all four services (the
// drop-in's own counter, scraped before and after); in the plain runtime the
// same route answers 503 saying why instead of silently being the mesh (in
// routes.test.js, whose plain runtime serves it). Both stop without Watt timing
// out or killing a worker.
import t from 'tap'
import { request } from 'undici'
import { DOWNSTREAM_SERVICES } from '../../lib/contract.js'
import { MESH_PORT_RUNTIME, readyPaths, routeOf } from '../../lib/topology.js'
import { requestDelta, scrapeMetrics } from '../../bench/lib/metrics.js'
import { untilOverHttpPort } from '../../bench/outside/mesh-port-runtime.js'
import { expectedEntryBody } from '../../bench/transports/expected.js'
import { privateRuntime } from '../helpers/runtime.js'

const ROUTE = routeOf('mesh-port')
const KILLED = /Timeout while (waiting|stopping)|Killing a worker/
const CALLS = 40

/** @param {string} url */
async function get (url) {
  const { statusCode, body } = await request(url)
  return { statusCode, text: await body.text() }
}

t.test('the drop-in runtime: verified answers, every call over http-port, none over the mesh', async (t) => {
  const runtime = await privateRuntime(t, { [MESH_PORT_RUNTIME.env]: '1' }, { configFile: MESH_PORT_RUNTIME.configFile, readyPaths: [ROUTE] })
  // the first request to each service takes the mesh while its link opens
  await untilOverHttpPort(runtime.url + ROUTE, runtime.metricsUrl)

  const before = await scrapeMetrics(runtime.metricsUrl)
  const answers = await Promise.all(Array.from({ length: CALLS }, () => get(`${runtime.url}${ROUTE}?size=64&fanout=4`)))
  const after = await scrapeMetrics(runtime.metricsUrl)
  const expected = expectedEntryBody('mesh-port', 64, 4)
  t.same(answers.map((a) => a.statusCode === 200 && a.text === expected), Array(CALLS).fill(true), `${CALLS} fan-outs answered 200 with the exact body`)

  const { meshPort } = requestDelta(before, after)
  for (const service of DOWNSTREAM_SERVICES) {
    const overHttpPort = Object.values(meshPort[service]?.httpPort ?? {}).reduce((a, b) => a + b, 0)
    t.equal(overHttpPort, CALLS, `${service}: every call over http-port`)
    t.equal(meshPort[service]?.mesh, 0, `${service}: none over the mesh`)
  }
  await runtime.stop()
  t.notMatch(runtime.output(), KILLED, 'Watt neither timed out nor killed a worker at the stop')
})

// The plain runtime's 503 on this route is asserted in routes.test.js, on the plain runtime it starts anyway.
t.test('the plain runtime: the route is no ready path', async (t) => {
  t.notOk(readyPaths({}).includes(ROUTE), 'not a ready path without the variable')
  t.ok(readyPaths({ [MESH_PORT_RUNTIME.env]: '1' }).includes(ROUTE), 'a ready path with it')
})
