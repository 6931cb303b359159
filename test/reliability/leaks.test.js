// Leaks, short form: five back-to-back seed-profile runs over every transport;
// after a full GC, RSS and every application's heap after the fifth run are
// within 20% of after the first.
import t from 'tap'
import { startPrivateRuntime } from '../../bench/reliability/private-runtime.js'
import { createWattControl } from '../../bench/reliability/watt-control.js'
import { memoryAcrossRuns } from '../../bench/reliability/scenarios/leaks.js'

const runtime = await startPrivateRuntime()
const control = createWattControl(runtime.pid)
t.teardown(async () => {
  await control.close()
  await runtime.stop()
})

t.test('memory after five seed runs stays within 20% of after the first', async (t) => {
  const { failures, leaks } = await memoryAcrossRuns(runtime, control, { runs: 5, secondsPerTransport: 1, maxGrowth: 0.2, transports: ['ipc', 'tcp', 'rpc'] })
  for (const r of leaks.readings) t.comment(`run ${r.run}: ${r.requests} requests, RSS ${(r.rssBytes / 1048576).toFixed(0)} MiB`)
  t.same(failures, [], 'no load error, no growth past the limit')
  t.equal(leaks.readings.length, 5)
  const [first, fifth] = [leaks.readings[0], leaks.readings[4]]
  t.ok(first.rssBytes > 100 * 1048576, `RSS read (${(first.rssBytes / 1048576).toFixed(0)} MiB)`)
  t.ok(fifth.rssBytes <= first.rssBytes * 1.2, `RSS ${(first.rssBytes / 1048576).toFixed(0)} → ${(fifth.rssBytes / 1048576).toFixed(0)} MiB`)
  t.same(Object.keys(first.heapUsedBytes).sort(), ['fastify2', 'node3', 'tsfastify', 'type1', 'type4'], 'a heap reading for every application')
  for (const [app, bytes] of Object.entries(first.heapUsedBytes)) {
    t.ok(fifth.heapUsedBytes[app] <= bytes * 1.2, `${app} heap ${(bytes / 1048576).toFixed(1)} → ${(fifth.heapUsedBytes[app] / 1048576).toFixed(1)} MiB`)
  }
})
