// The channel README's kinds table (scripts/readme/kinds-table.js), from a made-up compat
// result: versions, the path each way with the drop-in's reason when on the mesh, the traps.
import { test } from 'tap'
import { kindsTable } from '../../scripts/readme/kinds-table.js'

const calls = (/** @type {number} */ httpPort, /** @type {number} */ mesh, /** @type {string} */ decided) => ({ calls: httpPort + mesh, 'http-port': httpPort, mesh, decided })

test('a row per kind: versions, both directions, traps; the cost sentence', async (t) => {
  const compat = {
    nodes: [{ major: '24', version: '24.22.3' }],
    kinds: [
      { kind: 'next', capability: '@platformatic/next', result: 'pass', installedMiB: 508, seconds: 150, installSeconds: 87, buildSeconds: 32, installed: { '@platformatic/next': '3.54.0', next: '16.4.6', react: '19.3.1', 'react-dom': '19.3.1', wattpm: '3.67.0' }, calls: { 'frontend → api': calls(9, 0, 'http-port (2 workers)'), 'api → frontend': calls(0, 3, "Watt's mesh: 2 node:http servers | in this worker") }, traps: ['pins a | b'], problems: [] },
      { kind: 'vite', capability: '@platformatic/vite', result: 'fail', installedMiB: 90, seconds: 20, installed: { '@platformatic/vite': '3.54.0', vite: '7.3.8', wattpm: '3.67.0' }, calls: {}, traps: [], problems: ['wattpm build failed'] }
    ]
  }
  const lines = kindsTable(compat)
  const next = lines.find((l) => l.startsWith('| next |'))
  t.match(next, '| @platformatic/next 3.54.0, next 16.4.6, react 19.3.1, wattpm 3.67.0 | pass | 9 of 9 over http-port | 3 of 3 on the mesh (Watt\'s mesh: 2 node:http servers \\| in this worker) | pins a \\| b |')
  t.match(lines.find((l) => l.startsWith('| vite |')), '| **fail**: wattpm build failed | – | – | – |')
  t.match(lines[0], 'next 508 MiB installed, checked in 3 min (npm ci 87 s, build 32 s); vite 90 MiB installed, checked in 20 s (installed before)')
  t.match(lines[0], 'Node 24.22.3')
  t.same(kindsTable({ nodes: [] }), [], 'no kinds, no table')
})
