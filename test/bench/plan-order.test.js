// The order runs are measured in: rounds interleave the cases, and a phase (the
// transport bench's profile) runs all its rounds before the next, lightest first;
// and the longer warm-up before a case's first round.
import t from 'tap'
import { roundsOrder, warmupPhrase } from '../../bench/lib/format.js'
import { planRuns } from '../../bench/lib/runner.js'
import { byProfile, casesFrom, FLAGS, lightestFirst, warmupFor } from '../../bench/transports/plan.js'

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
  t.equal(roundsOrder(runs(['latency', 'latency', 'seed', 'seed'])), 'the targets interleaved in each round, each profile\'s rounds before the next (`latency`, then `seed`)')
  t.equal(roundsOrder(runs(['seed', 'latency', 'seed', 'latency'])), 'the targets and the profiles interleaved in each round')
  t.equal(roundsOrder(runs(['seed', 'seed'])), 'the targets interleaved in each round', 'one profile: nothing to order')
})

t.test('a case\'s first round warms up longer; --warmup 0 skips both; a suite without the flag keeps --warmup', async (t) => {
  const defaults = { warmup: FLAGS.warmup.default, firstWarmup: FLAGS['first-warmup'].default }
  t.ok(defaults.firstWarmup > defaults.warmup, `defaults: ${defaults.firstWarmup} s before round 1, ${defaults.warmup} s after`)
  t.equal(warmupFor(1, defaults), defaults.firstWarmup)
  t.equal(warmupFor(2, defaults), defaults.warmup)
  t.equal(warmupFor(1, { warmup: 0, firstWarmup: 10 }), 0, '--warmup 0 skips the first one too')
  t.equal(warmupFor(1, { warmup: 20, firstWarmup: 10 }), 20, 'never shorter than --warmup')
  t.equal(warmupFor(1, { warmup: 2 }), 2, 'the sweep has no --first-warmup')
  t.equal(warmupPhrase({ warmup: 3, firstWarmup: 10 }), '3 s warm-up (10 s before a case\'s first round)')
  t.equal(warmupPhrase({ warmup: 3 }), '3 s warm-up')
  t.equal(warmupPhrase({ warmup: 0, firstWarmup: 10 }), '0 s warm-up')
})
