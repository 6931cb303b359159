// Flags → cases: which strategy runs at which scale, with which load.
import t from 'tap'
import { UsageError } from '../../bench/lib/cli.js'
import { casesFrom, resolveScales, TARGETS } from '../../bench/scale/plan.js'

const flags = (over = {}) => ({ targets: [...TARGETS], scale: ['1', '2', 'max'], connections: 100, ...over })
const label = (kase) => `${kase.target}@${kase.scale}`

t.test('max is the available cores; duplicates go, order is numeric', async (t) => {
  t.same(resolveScales(['1', '2', 'max'], 2), [1, 2])
  t.same(resolveScales(['max', '8', '2'], 4), [2, 4, 8])
  for (const bad of ['0', '-1', '1.5', 'two', '65', '']) {
    t.throws(() => resolveScales([bad], 2), UsageError, `rejects ${JSON.stringify(bad)}`)
  }
})

t.test('the default on 2 cores covers every strategy at 1 and 2, node once', async (t) => {
  const cases = casesFrom(flags(), 2)
  t.same(cases.map(label), ['node@1', 'cluster@1', 'reuseport@1', 'pm2@1', 'watt@1', 'cluster@2', 'reuseport@2', 'pm2@2', 'watt@2'])
  for (const kase of cases) {
    t.equal(kase.profile, `scale-${kase.scale}`, `${label(kase)} profile`)
    t.equal(kase.connections, 100)
    t.equal(kase.autocannonWorkers, kase.scale > 1 ? kase.scale : 0, `${label(kase)}: autocannon workers = scale above 1`)
  }
})

t.test('node stays the one-process baseline even when only scale 2 is asked for', async (t) => {
  t.same(casesFrom(flags({ scale: ['2'] }), 2).map(label), ['node@1', 'cluster@2', 'reuseport@2', 'pm2@2', 'watt@2'])
  t.same(casesFrom(flags({ targets: ['node'], scale: ['4'] }), 2).map(label), ['node@1'])
  t.same(casesFrom(flags({ targets: ['pm2', 'watt'], scale: ['max'] }), 4).map(label), ['pm2@4', 'watt@4'])
})
