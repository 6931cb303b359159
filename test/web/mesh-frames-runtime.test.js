// The drop-in's frames wire as the benches measure it: a variant transport
// (LAB_EXTRA_TRANSPORTS: mesh-port's code, `requires: 'mesh-frames-runtime'`) in a
// runtime the bench's own starter makes from watt.mesh-frames.json. Its fan-outs
// answer verified, and every call to every service goes as frames (the counter's
// wire label), none over the mesh or the HTTP wire.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { request } from 'undici'

const dir = mkdtempSync(join(tmpdir(), 'mesh-frames-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
const variant = join(dir, 'mesh-frames.json')
writeFileSync(variant, JSON.stringify([{ name: 'mesh-frames', description: 'mesh-port on the frames wire', crossesThreads: true, http: true, requires: 'mesh-frames-runtime', inDefaultBench: false, module: join(import.meta.dirname, '..', '..', 'web', 'tsfastify', 'lib', 'transports', 'mesh-port.ts') }]))
// read by the registry at import, here and in the runtime's workers
process.env.LAB_EXTRA_TRANSPORTS = variant

const { DOWNSTREAM_SERVICES } = await import('../../lib/contract.js')
const { routeOf } = await import('../../lib/topology.js')
const { startMeshFramesRuntimeRequirement } = await import('../../bench/outside/mesh-port-runtime.js')
const { expectedEntryBody } = await import('../../bench/transports/expected.js')

const CALLS = 40
const ROUTE = routeOf('mesh-frames')

/** @param {string} url  the runtime's metrics base URL: the drop-in's counter by target and wire */
async function byWire (url) {
  const text = await (await request(`${url}/metrics`)).body.text()
  /** @type {Record<string, number>} */
  const out = {}
  for (const line of text.split('\n')) {
    if (!line.startsWith('watt_lab_mesh_port_requests_total{')) continue
    const target = /target="([^"]*)"/.exec(line)?.[1]
    const wire = /wire="([^"]*)"/.exec(line)?.[1] ?? (/path="mesh"/.test(line) ? 'mesh' : 'none')
    out[`${target} ${wire}`] = (out[`${target} ${wire}`] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return out
}

t.test('mesh-frames: verified fan-outs, every call as frames', async (t) => {
  const started = await startMeshFramesRuntimeRequirement(process.env, { transports: ['mesh-frames'] })
  t.teardown(() => started.stop())
  const runtime = /** @type {any} */ (started.runtimeFor('mesh-frames'))
  const before = await byWire(runtime.metricsUrl)
  const answers = await Promise.all(Array.from({ length: CALLS }, async () => {
    const { statusCode, body } = await request(`${runtime.url}${ROUTE}?size=64&fanout=4`)
    return { statusCode, text: await body.text() }
  }))
  const after = await byWire(runtime.metricsUrl)
  const expected = expectedEntryBody('mesh-frames', 64, 4)
  t.same(answers.map((a) => a.statusCode === 200 && a.text === expected), Array(CALLS).fill(true), `${CALLS} fan-outs answered 200 with the exact body`)
  for (const service of DOWNSTREAM_SERVICES) {
    const delta = (/** @type {string} */ wire) => (after[`${service} ${wire}`] ?? 0) - (before[`${service} ${wire}`] ?? 0)
    t.equal(delta('frames'), CALLS, `${service}: every call as frames`)
    t.equal(delta('http'), 0, `${service}: none over the HTTP wire`)
    t.equal(delta('mesh'), 0, `${service}: none over the mesh`)
  }
})
