// The order runs are measured in: rounds interleave the cases, and a phase (the
// transport bench's profile) runs all its rounds before the next, lightest first.
import t from 'tap'
import { roundsOrder } from '../../bench/lib/format.js'
import { planRuns } from '../../bench/lib/runner.js'
import { byProfile, casesFrom, lightestFirst } from '../../bench/transports/plan.js'

const label = ({ kase, round }) => `${kase.profile}/${round}/${kase.transport}`
const flags = (over = {}) => ({ profiles: ['seed', 'latency'], transports: ['ipc', 'tcp'], rounds: 2, fanout: 4, size: 64, ...over })

t.test('without phases every case runs once per round, rounds one after another', async (t) => {
  const cases = [{ profile: 'a', transport: 'x' }, { profile: 'b', transport: 'x' }, { profile: 'a', transport: 'y' }]
  t.same(planRuns(cases, 2).map(label), ['a/1/x', 'b/1/x', 'a/1/y', 'a/2/x', 'b/2/x', 'a/2/y'])
})

t.test('with phases, a phase runs all its rounds before the next, in first-seen order', async (t) => {
  const cases = [{ profile: 'b', transport: 'x' }, { profile: 'a', transport: 'x' }, { profile: 'b', transport: 'y' }]
  t.same(planRuns(cases, 2, byProfile).map(label), ['b/1/x', 'b/1/y', 'b/2/x', 'b/2/y', 'a/1/x', 'a/2/x'])
  t.same(planRuns(cases, 1, byProfile).length, 3, 'nothing lost or repeated')
})

t.test('the transport bench measures latency (10 in flight) before seed (1,000), whatever the flag order', async (t) => {
  for (const profiles of [['seed', 'latency'], ['latency', 'seed']]) {
    const cases = casesFrom(flags({ profiles }))
    t.same(planRuns(cases, 2, byProfile).map(label), [
      'latency/1/ipc', 'latency/1/tcp', 'latency/2/ipc', 'latency/2/tcp',
      'seed/1/ipc', 'seed/1/tcp', 'seed/2/ipc', 'seed/2/tcp'
    ], profiles.join(','))
  }
})

t.test('lightestFirst orders by connections × pipelining and keeps its input', async (t) => {
  const input = [{ name: 'c', connections: 100, pipelining: 10 }, { name: 'a', connections: 1, pipelining: 1 }, { name: 'b', connections: 10, pipelining: 2 }]
  t.same(lightestFirst(input).map((p) => p.name), ['a', 'b', 'c'])
  t.same(input.map((p) => p.name), ['c', 'a', 'b'], 'not sorted in place')
})

t.test('the reports say the order the runs were measured in, read from the runs', async (t) => {
  const runs = (profiles) => profiles.map((profile) => ({ profile }))
  t.equal(roundsOrder(runs(['latency', 'latency', 'seed', 'seed']), 2), '2 interleaved round(s), each profile\'s before the next (`latency`, then `seed`)')
  t.equal(roundsOrder(runs(['seed', 'latency', 'seed', 'latency']), 2), '2 interleaved round(s), profiles alternating')
  t.equal(roundsOrder(runs(['seed', 'seed']), 2), '2 interleaved round(s)', 'one profile: nothing to order')
})
