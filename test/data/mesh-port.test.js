// The net-mesh-port source: the mesh source's request (via=ipc, the
// http://data-source.plt.local URL) in the data runtime whose config adds the
// mesh-port drop-in. Its config differs from the plain one by that block alone;
// there it answers the same bytes, and the data-api's own tally shows its
// data-source calls went over http-port, where the plain runtime has none.
import t from 'tap'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { request } from 'undici'
import { ensureDataset } from '../../bench/data/dataset/cache.js'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'
import { CONFIG_FILE, MESH_PORT_CONFIG_FILE, startDataRuntime } from '../../bench/data/runtime.js'
import { runtimeKindOf, SOURCES } from '../../bench/data/plan.js'
import { variantPath } from '../../bench/data/expected.js'
import { assertOnlyUndiciDiffers } from '../helpers/config-diff.js'

// The two runtimes' cases side by side: each starts its own data runtime on free ports,
// and most of a case was waiting for it to start.
t.jobs = 2

const cacheDir = t.testdir()
const small = await ensureDataset({ dataset: 'small', targetBytes: 300e3, seed: 5, cacheDir })
const records = JSON.parse(readFileSync(small.file, 'utf8'))
const id = records[0].speakerId
const expected = JSON.stringify(records.filter((record) => record.speakerId === id))

t.test('the drop-in config is the data config plus the undici block, nothing else', async (t) => {
  assertOnlyUndiciDiffers(t, join(PROJECT_ROOT, CONFIG_FILE), join(PROJECT_ROOT, MESH_PORT_CONFIG_FILE))
})

t.test('net-mesh-port asks what net-ipc asks, of the drop-in runtime; the others of the plain one', async (t) => {
  t.ok(SOURCES.includes('net-mesh-port'))
  t.equal(variantPath('small', 'net-mesh-port', 'scan', id), variantPath('small', 'net-ipc', 'scan', id))
  t.same(SOURCES.map(runtimeKindOf), SOURCES.map((s) => s === 'net-mesh-port' ? 'mesh-port' : 'plain'))
})

/** @param {any} runtime */
async function askAndTally (runtime) {
  const answers = []
  for (const mode of ['stream', 'scan', 'promise']) {
    const { statusCode, body } = await request(runtime.url + variantPath('small', 'net-mesh-port', mode, id))
    answers.push({ mode, statusCode, text: await body.text() })
  }
  const { body } = await request(`${runtime.apiUrl}/stats`)
  return { answers, meshPort: (await body.json()).meshPort }
}

for (const kind of ['plain', 'mesh-port']) {
  t.test(`the ${kind} data runtime answers the mesh source's request`, async (t) => {
    const runtime = await startDataRuntime({ files: { small: small.file }, kind })
    t.teardown(() => runtime.stop())
    t.equal(runtime.kind, kind)
    const { answers, meshPort } = await askAndTally(runtime)
    for (const { mode, statusCode, text } of answers) {
      t.equal(statusCode, 200, mode)
      t.equal(text, expected, `${mode}: the exact records`)
    }
    if (kind === 'plain') {
      t.same(meshPort, {}, 'no drop-in: nothing routed by it')
      return
    }
    const route = meshPort['data-source']
    t.equal(route?.path, 'http-port', `data-source over http-port: ${JSON.stringify(meshPort)}`)
    const overPort = route.workers.reduce((sum, w) => sum + w.calls, 0)
    // /ready's calls did the handshake; every request since went over the port
    t.ok(overPort >= answers.length, `${overPort} data-source calls over http-port, ${route.meshCalls} over the mesh`)
  })
}
