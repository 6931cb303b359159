// watt.mesh-port.json is watt.json plus the drop-in's undici block and nothing
// else: the two runtimes the bench compares may differ only in that.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { MESH_PORT_RUNTIME } from '../../lib/topology.js'

const root = join(import.meta.dirname, '..', '..')
const read = (file) => JSON.parse(readFileSync(join(root, file), 'utf8'))

t.test('watt.mesh-port.json = watt.json + the undici block only', async (t) => {
  const plain = read('watt.json')
  const { undici, ...rest } = read(MESH_PORT_RUNTIME.configFile)
  t.notOk('undici' in plain, 'watt.json has no undici block: its runtime is the mesh')
  t.same(rest, plain, 'everything but undici is watt.json, key for key')
  t.same(undici, { interceptors: [{ module: '@watt-lab/channel/mesh-port', options: {} }] }, 'the one drop-in entry')
})
