// npm run compat on one cell of its matrix, so CI runs the command itself: a release
// other than the project's own Watt (3.67.0), on Node 22 (not the project's Node 24: the
// Node axis, installed on demand from tools/node/22, about 5 s). The release's lockfile
// installed in a temp app, the tarball on top, the app on the Node asked for, every call
// over http-port, a result JSON that says so. No app kinds (`--kinds none`): npm test
// checks the light one in test/scripts/compat-kinds.test.js.
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { PROJECT_NODE, PROJECT_ROOT } from '../../bench/lib/paths.js'
import { readNode } from '../../scripts/compat/nodes.js'

const RELEASE = '3.54.0'
const NODE = readNode('22').version

t.test(`npm run compat -- --releases ${RELEASE} --nodes 22: passes, every call over http-port`, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'compat-result-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const out = join(dir, 'compat.json')
  const { stdout } = await promisify(execFile)(PROJECT_NODE, [join(PROJECT_ROOT, 'scripts', 'compat.js'), '--releases', RELEASE, '--nodes', '22', '--kinds', 'none', '--out', out], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, CI: '1' }, // progress as lines, not a live bar
    maxBuffer: 16 * 1024 * 1024
  })
  const dots = (/** @type {string} */ s) => s.replace(/\./g, '\\.')
  t.match(stdout, new RegExp(`${dots(RELEASE)}\\s*│\\s*${dots(NODE)}\\s*│\\s*pass`), 'the table shows the cell passed')
  t.match(stdout, /npm run readme -- --compat /, 'it says how to publish the result')
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.match(result, { schema: 'watt-transport-lab/compat@3', failed: false, nodes: [{ major: '22', version: NODE }] })
  t.match(result.releases, [{ release: RELEASE, installed: { wattpm: RELEASE, '@platformatic/runtime': RELEASE }, nativeAddons: [] }])
  t.equal(result.cells.length, 1)
  const [cell] = result.cells
  t.match(cell, { release: RELEASE, node: '22', nodeVersion: NODE, seenNode: `v${NODE}`, result: 'pass', reason: '' }, 'passed on the Node asked for')
  for (const [target, seen] of Object.entries(cell.calls)) {
    t.ok(seen.calls > 0 && seen['http-port'] === seen.calls && seen.mesh === 0, `front→${target}: ${JSON.stringify(seen)}`)
  }
})
