// A real runtime: every route, fan-out 1..4, sizes across the mesh's 32 KiB
// step, bad input, 502 and 504 naming the service, and a clean stop.
import t from 'tap'
import { connect } from 'node:net'
import { once } from 'node:events'
import { request } from 'undici'
import { isListening } from '../../bench/lib/ports.js'
import { availableTransports, routeOf, SERVICES as SERVICE_RECORDS } from '../../lib/topology.js'
import { privateRuntime } from '../helpers/runtime.js'

const TRANSPORTS = availableTransports()
const SERVICES = SERVICE_RECORDS.map((s) => s.name)
const SIZES = [0, 31 * 1024, 33 * 1024, 256 * 1024]
const CALL_TIMEOUT_MS = 400
const DELAY_MS = 3000

// Independent of lib/contract.js: what a downstream body must weigh.
const expectedBytes = (service, size) => Buffer.byteLength(JSON.stringify({ service, size, pad: 'x'.repeat(size) }))

async function get (url) {
  const started = process.hrtime.bigint()
  const { statusCode, headers, body } = await request(url)
  const json = await body.json()
  return { statusCode, headers, json, ms: Number(process.hrtime.bigint() - started) / 1e6 }
}

const runtime = await privateRuntime(t, { CALL_TIMEOUT_MS: String(CALL_TIMEOUT_MS) })

t.test('every transport answers verified results for fan-out 1..4 and every size', async (t) => {
  for (const transport of TRANSPORTS) {
    for (const size of SIZES) {
      for (let fanout = 1; fanout <= 4; fanout++) {
        const { statusCode, json } = await get(`${runtime.url}/tsfastify/${transport}?size=${size}&fanout=${fanout}`)
        const label = `${transport} size=${size} fanout=${fanout}`
        t.equal(statusCode, 200, label)
        t.equal(json.transport, transport, label)
        t.equal(json.size, size, label)
        t.equal(json.fanout, fanout, label)
        t.same(json.results, SERVICES.slice(0, fanout).map((service) => ({ service, status: 200, bytes: expectedBytes(service, size) })), label)
      }
    }
  }
})

t.test('each downstream serves the contract on its own loopback port', async (t) => {
  for (const service of SERVICES) {
    const port = runtime.ports[SERVICE_RECORDS.find((s) => s.name === service).portEnv]
    const { statusCode, headers, json } = await get(`http://127.0.0.1:${port}/hello?size=40000`)
    t.equal(statusCode, 200, service)
    t.equal(headers['content-length'], String(expectedBytes(service, 40000)), `${service} sets content-length`)
    t.equal(headers['content-type'], 'application/json', service)
    t.equal(json.service, service)
    t.equal(json.pad.length, 40000)
    const bad = await get(`http://127.0.0.1:${port}/hello?size=-3`)
    t.equal(bad.statusCode, 400, `${service} rejects a bad size`)
  }
})

t.test('bad query values answer 400 with a JSON error, never 500', async (t) => {
  const bad = ['size=-1', 'size=abc', 'size=1.5', 'size=1048577', 'fanout=0', 'fanout=5', 'fanout=x', 'fault=nobody:corrupt', 'fault=node3:explode', 'fault=node3:delay:999999',
    // Ajv alone coerces these to ±Infinity or reads them as other bases
    'size=1e400', 'size=-1e400', 'fanout=1e400', 'size=1e3', 'size=0x10', 'size=1&size=2']
  for (const transport of TRANSPORTS) {
    for (const query of bad) {
      const { statusCode, json } = await get(`${runtime.url}/tsfastify/${transport}?${query}`)
      t.equal(statusCode, 400, `${transport}?${query}`)
      t.equal(json.statusCode, 400)
      t.type(json.message, 'string')
      t.ok(json.message.length > 0, 'says what is wrong')
    }
  }
})

// Requests Node's HTTP server would answer with a bare status before any handler.
async function raw (port, text) {
  const socket = connect({ port, host: '127.0.0.1' })
  await once(socket, 'connect')
  socket.end(text)
  let answer = ''
  for await (const chunk of socket) answer += chunk
  const [head, body] = answer.split('\r\n\r\n')
  return { status: Number(head.split(' ')[1]), body }
}

t.test('protocol errors answer JSON too: missing Host, unknown Expect, malformed header', async (t) => {
  const ports = { entry: runtime.port, ...Object.fromEntries(SERVICE_RECORDS.map((s) => [s.name, runtime.ports[s.portEnv]])) }
  for (const [name, port] of Object.entries(ports)) {
    const cases = [
      [400, 'GET /hello HTTP/1.1\r\nConnection: close\r\n\r\n', /missing Host/],
      [417, 'GET /hello HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n', /unsupported Expect/],
      [400, 'GET /hello HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', /./]
    ]
    for (const [status, text, message] of cases) {
      const answer = await raw(port, text)
      t.equal(answer.status, status, `${name}: ${JSON.stringify(text.split('\r\n')[1])}`)
      const json = JSON.parse(answer.body)
      t.equal(json.statusCode, status)
      t.match(json.message, message)
    }
  }
})

t.test('a downstream answering wrongly gives 502 naming it', async (t) => {
  for (const transport of TRANSPORTS) {
    for (const service of SERVICES) {
      const { statusCode, json } = await get(`${runtime.url}/tsfastify/${transport}?fault=${service}:corrupt`)
      t.equal(statusCode, 502, `${transport} ${service}`)
      t.equal(json.service, service)
      t.equal(json.transport, transport)
      t.match(json.message, new RegExp(`^${service} `))
    }
  }
})

t.test('a downstream too slow gives 504 naming it, within the per-call timeout', async (t) => {
  for (const transport of TRANSPORTS) {
    const { statusCode, json, ms } = await get(`${runtime.url}/tsfastify/${transport}?fault=type4:delay:${DELAY_MS}`)
    t.equal(statusCode, 504, transport)
    t.equal(json.service, 'type4')
    t.match(json.message, `within ${CALL_TIMEOUT_MS} ms`)
    // the slow answer would come after DELAY_MS: 2.6 s of slack for a loaded box
    t.ok(ms < DELAY_MS, `${transport} answered in ${ms.toFixed(0)} ms, before the ${DELAY_MS} ms delay`)
  }
  // the entry keeps serving after the abandoned calls
  const { statusCode } = await get(`${runtime.url}/tsfastify/ipc`)
  t.equal(statusCode, 200)
})

// test/web/mesh-port-runtime.test.js's plain side, on this runtime (its start was most of that case)
t.test('the plain runtime: the mesh-port route says it needs the drop-in runtime (503)', async (t) => {
  const { statusCode, json } = await get(`${runtime.url}${routeOf('mesh-port')}`)
  t.equal(statusCode, 503)
  t.match(json, { statusCode: 503, transport: 'mesh-port', message: /no mesh-port drop-in.*watt\.mesh-port\.json/ })
  const ipc = await get(`${runtime.url}${routeOf('ipc')}`)
  t.equal(ipc.statusCode, 200, 'ipc, the mesh, answers beside it')
})

t.test('the runtime stops cleanly: process gone, no port left listening', async (t) => {
  await runtime.stop()
  t.notMatch(runtime.output(), /Timeout while (waiting|stopping)|Killing a worker/, 'Watt neither timed out nor killed a worker at the stop')
  t.throws(() => process.kill(runtime.pid, 0), { code: 'ESRCH' }, 'runtime process has exited')
  for (const [name, port] of Object.entries(runtime.ports)) {
    t.notOk(await isListening(port), `${name} ${port} is closed`)
  }
})
