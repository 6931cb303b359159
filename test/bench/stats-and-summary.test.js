import t from 'tap'
import { ratio, spread } from '../../bench/lib/stats.js'
import { summarize } from '../../bench/lib/results.js'

t.test('spread gives median, min and max of the finite values', async (t) => {
  t.same(spread([3, 1, 2]), { median: 2, min: 1, max: 3, n: 3 })
  t.same(spread([4, 1, 3, 2]), { median: 2.5, min: 1, max: 4, n: 4 })
  t.same(spread([5, NaN, undefined, null]), { median: 5, min: 5, max: 5, n: 1 })
  t.equal(spread([]), null)
  t.equal(ratio(6, 3), 2)
  t.equal(ratio(1, 0), null)
  t.equal(ratio(null, 3), null)
})

const run = (target, round, requestsPerSec, ok = true) => ({
  target, profile: 'seed', round, ok, failures: ok ? [] : ['3 non-2xx (3×502)'], requestsPerSec, latencyMs: { avg: 1, p99: round * 10 }
})

t.test('summarize: medians across rounds, ratios paired per round against the baseline', async (t) => {
  const runs = [run('ipc', 1, 100), run('tcp', 1, 400), run('ipc', 2, 150), run('tcp', 2, 300), run('ipc', 3, 120), run('tcp', 3, 600)]
  const summary = summarize(runs, { baseline: 'tcp' })
  t.same(summary.seed.ipc.requestsPerSec, { median: 120, min: 100, max: 150, n: 3 })
  t.same(summary.seed.tcp.requestsPerSec, { median: 400, min: 300, max: 600, n: 3 })
  // per-round ratios 0.25, 0.5, 0.2: the median of pairs, not the ratio of medians (0.3)
  t.same(summary.seed.ipc.ratioTo_tcp, { median: 0.25, min: 0.2, max: 0.5, n: 3 })
  t.equal(summary.seed.tcp.ratioTo_tcp.median, 1)
  t.same(summary.seed.ipc.latencyP99Ms, { median: 20, min: 10, max: 30, n: 3 })
})

t.test('summarize: a target with any failed round is FAILED, never a number', async (t) => {
  const runs = [run('ipc', 1, 100), run('tcp', 1, 400), run('ipc', 2, 90, false), run('tcp', 2, 300)]
  const summary = summarize(runs, { baseline: 'tcp' })
  t.equal(summary.seed.ipc.failed, true)
  t.notOk('requestsPerSec' in summary.seed.ipc)
  t.same(summary.seed.ipc.failures, ['3 non-2xx (3×502)'])
  t.equal(summary.seed.tcp.failed, false)
})
