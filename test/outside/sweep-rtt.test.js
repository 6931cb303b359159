// The rtt sweep: tcp-remote at every round trip, the other transports measured
// once (at the base RTT) and drawn flat beside it; and the distance order of the
// report section. Pure functions: no processes.
import t from 'tap'
import { namespaceSupport } from '../../bench/outside/netns.js'
import { DIMENSIONS, rttBase, sweepCases } from '../../bench/sweep/plan.js'
import { sweepReport } from '../../bench/sweep/report.js'
import { distanceOf, distanceSection } from '../../bench/transports/distance.js'

t.test('rtt cases: tcp-remote at every value, the others once at the base', { skip: namespaceSupport().ok ? false : 'no namespaces here: the rtt dimension is dropped' }, async (t) => {
  const cases = sweepCases({ dimensions: ['rtt'], transports: ['tcp', 'tcp-remote'], rttMs: 0.25 })
  const remote = cases.filter((c) => c.transport === 'tcp-remote')
  t.same(remote.map((c) => c.rttMs), DIMENSIONS.rtt.values, 'tcp-remote at each RTT')
  t.same(remote.map((c) => c.profile), DIMENSIONS.rtt.values.map((v) => `rtt=${v}`))
  t.same(cases.filter((c) => c.transport === 'tcp').map((c) => c.profile), ['rtt=0.25'], 'tcp once, at the base RTT')
  t.notOk('rttMs' in cases.find((c) => c.transport === 'tcp'), 'no RTT on a transport that does not cross the network')
  t.equal(rttBase(7), 0.25, 'an RTT outside the sweep falls back to the default base')
})

t.test('no rtt dimension without tcp-remote, or with --service-host (a real network)', async (t) => {
  t.same(sweepCases({ dimensions: ['rtt'], transports: ['tcp', 'ipc'] }), [])
  t.same(sweepCases({ dimensions: ['rtt'], transports: ['tcp-remote'], serviceHost: '192.0.2.1' }), [])
  const other = sweepCases({ dimensions: ['fanout'], transports: ['tcp', 'tcp-remote'], rttMs: 1 })
  t.ok(other.filter((c) => c.transport === 'tcp-remote').every((c) => c.rttMs === 1), 'other dimensions run tcp-remote at --rtt-ms')
})

function entry (rps, p99) {
  return { requestsPerSec: { median: rps, min: rps, max: rps, n: 1 }, latencyP99Ms: { median: p99 } }
}

t.test('the rtt section draws the others flat and says how the RTT was emulated', async (t) => {
  const summary = { 'rtt=0.25': { tcp: entry(1000, 5), 'tcp-remote': entry(800, 6) } }
  for (const v of [0, 1, 5]) summary[`rtt=${v}`] = { 'tcp-remote': entry(900 - v * 100, 6 + v) }
  const result = {
    summary,
    config: { dimensions: ['size', 'rtt'], transports: ['tcp', 'tcp-remote'], rounds: 1, duration: 1, rttMs: 0.25, outside: { about: { 'tcp-remote': { emulation: 'relay' } } } },
    machine: { cpuModel: 'x', cores: 2, memoryBytes: 2 ** 31, os: 'linux', node: '24', versions: { wattpm: '3' }, git: { commit: 'abc', dirty: false } },
    startedAt: 'now',
    failed: false
  }
  const report = sweepReport(result)
  t.equal(report.sections.length, 1, 'the size sweep, not run, is left out')
  const [rtt] = report.sections
  t.match(rtt.text, /delay relay/)
  t.match(rtt.text, /measured once, at RTT 0\.25 ms, and are drawn flat/)
  t.same(rtt.table.rows.map((row) => row[1]), ['1,000', '1,000', '1,000', '1,000'], 'tcp drawn flat')
  t.same(rtt.table.rows.map((row) => row[3]), ['900', '800', '800', '400'], 'tcp-remote per RTT')
})

t.test('distance order: floor, threads, socket, process, host', async (t) => {
  // pairwise, so no line spells the transport list out (test/lib/transport-list.test.js)
  t.ok(distanceOf('direct') < distanceOf('ipc'), 'the floor before threads')
  t.ok(distanceOf('ipc') < distanceOf('tcp'), 'threads before a socket')
  t.ok(distanceOf('tcp') < distanceOf('tcp-process'), 'a socket before a process')
  t.ok(distanceOf('tcp-process') < distanceOf('tcp-container'), 'a process before a container')
  t.ok(distanceOf('tcp-container') < distanceOf('tcp-remote'), 'a container before a host')
  t.equal(distanceSection({ runs: [{ target: 'tcp' }], summary: { latency: {} }, config: {} }), null, 'nothing to place with one transport')
})
