// examples/adopt: the same two apps run over Watt's mesh (watt.json) and over the
// mesh-port drop-in (watt.mesh-port.json). The configs differ by the undici block
// alone, the answers are the same both ways, and the drop-in's counter proves
// which path each call took.
import t from 'tap'
import { join } from 'node:path'
import { request } from 'undici'
import { freePorts } from '../../bench/lib/ports.js'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'
import { startRuntime } from '../../bench/lib/runtime.js'
import { assertOnlyUndiciDiffers } from '../helpers/config-diff.js'
import { countsSince, meshPortCounts } from '../helpers/mesh-port-metrics.js'

const DIR = 'examples/adopt'
// Each answers after catalog calls pricing; each /quote also has pricing call catalog.
const PATHS = []
for (let i = 0; i < 8; i++) PATHS.push(`/items/${1 + (i % 3)}`, `/quote?ids=1,${1 + (i % 3)}`)
PATHS.push('/items/9', '/quote?ids=2,9') // 404s: /items/9 calls nobody, the quote still asks catalog
const CALLS = {
  'catalog→pricing': PATHS.filter((p) => p !== '/items/9').length,
  'pricing→catalog': PATHS.filter((p) => p.startsWith('/quote')).length
}

t.test('the two configs differ only by the drop-in\'s undici block', async (t) => {
  assertOnlyUndiciDiffers(t, join(PROJECT_ROOT, DIR, 'watt.json'), join(PROJECT_ROOT, DIR, 'watt.mesh-port.json'))
})

/**
 * Starts the example with one config, makes every call, reads the counter.
 * @param {any} t
 * @param {string} config
 * @param {string} logLevel
 */
async function runExample (t, config, logLevel) {
  const [port, metricsPort] = await freePorts(2)
  const runtime = await startRuntime({
    configFile: `${DIR}/${config}`,
    // These calls cross both ways, so the drop-in's handshakes are done once ready.
    readyPaths: ['/items', '/items/1', '/quote?ids=1'],
    reuse: false,
    env: { PORT: String(port), PLT_METRICS_PORT: String(metricsPort), PLT_LOG_LEVEL: logLevel }
  })
  t.teardown(() => runtime.stop())
  const before = await meshPortCounts(runtime.metricsUrl)
  const answers = []
  for (const path of PATHS) {
    const { statusCode, body } = await request(runtime.url + path)
    answers.push({ path, status: statusCode, body: await body.text() })
  }
  const counts = countsSince(before, await meshPortCounts(runtime.metricsUrl))
  // Logged once per route when its handshake completes; read after the calls, as pino writes a little later.
  return { answers, counts, log: runtime.output() }
}

let overMesh

t.test('watt.json: every call answers over Watt\'s mesh, the drop-in is absent', async (t) => {
  const { answers, counts, log } = await runExample(t, 'watt.json', 'info')
  t.same(answers.find((a) => a.path === '/items/2'), { path: '/items/2', status: 200, body: '{"id":"2","name":"mug","cents":650}' })
  t.same(JSON.parse(answers.find((a) => a.path === '/quote?ids=1,3').body), { lines: [{ id: '1', name: 'kettle', cents: 2490 }, { id: '3', name: 'teapot', cents: 3100 }], totalCents: 5590 })
  t.same(answers.filter((a) => a.status !== 200).map((a) => [a.path, a.status]), [['/items/9', 404], ['/quote?ids=2,9', 404]])
  t.notMatch(log, /mesh-port/, 'nothing of the drop-in in the log')
  t.ok(Object.values(counts).every((c) => c['http-port'] === 0 && c.mesh === 0), `no drop-in counts: ${JSON.stringify(counts)}`)
  overMesh = answers
})

t.test('watt.mesh-port.json: the same answers, every call over http-port, the first included', async (t) => {
  const { answers, counts, log } = await runExample(t, 'watt.mesh-port.json', 'info')
  t.same(answers, overMesh, 'status and body identical to the mesh run')
  t.match(log, /mesh-port: pricing over http-port \(1 worker\)/, 'catalog logs its route to pricing')
  t.match(log, /mesh-port: catalog over http-port \(1 worker\)/, 'pricing logs its route to catalog')
  for (const [direction, calls] of Object.entries(CALLS)) {
    const seen = counts[direction] ?? { 'http-port': 0, mesh: 0 }
    t.equal(seen['http-port'] + seen.mesh, calls, `${direction}: every call counted once`)
    // The first call to each app waits for the handshake, so none takes the mesh.
    t.equal(seen['http-port'], calls, `${direction}: ${seen['http-port']} of ${calls} over http-port`)
    t.equal(seen.mesh, 0, `${direction}: none over the mesh`)
  }
})
