// Faults, short form: under load on every transport at once, node3's worker
// crashes (Watt restarts it), then node3 stops answering (event loop blocked).
// The entry never crashes or hangs; every error is a 502/504 naming node3 within
// the per-call timeout; errors stop within a few seconds of node3 being back;
// direct, which calls nobody, sees nothing.
import t from 'tap'
import { startPrivateRuntime } from '../../bench/reliability/private-runtime.js'
import { createWattControl } from '../../bench/reliability/watt-control.js'
import { faultUnderLoad } from '../../bench/reliability/scenarios/faults.js'
import { isAlive } from '../../bench/reliability/health.js'
import { availableTransports, transportNamed } from '../../lib/topology.js'

const CALL_TIMEOUT_MS = 1000
const runtime = await startPrivateRuntime({ callTimeoutMs: CALL_TIMEOUT_MS })
const control = createWattControl(runtime.pid)
t.teardown(async () => {
  await control.close()
  await runtime.stop()
})

const options = { service: 'node3', holdMs: 2500, connections: 8, probeRateHz: 20, preMs: 1500, postMs: 2500, recoveryLimitMs: 5000, latencySlackMs: 1000 }

for (const kind of ['crash', 'hang']) {
  t.test(`node3 ${kind}es under load`, async (t) => {
    const result = await faultUnderLoad(runtime, control, { ...options, kind })
    t.same(result.failures, [], 'every check of the scenario passed')
    t.ok(isAlive(runtime.pid), 'the runtime is alive')
    t.equal(result.restarts.after.tsfastify, result.restarts.before.tsfastify, 'the entry was never restarted')
    t.equal(result.restarts.after.node3 - result.restarts.before.node3, kind === 'crash' ? 1 : 0, 'Watt restarted node3 only after the crash')
    for (const transport of availableTransports().filter((name) => transportNamed(name).crossesThreads)) {
      const seen = result.transports[transport]
      t.ok(seen.errors > 0, `${transport} saw the fault (${seen.errors} errors of ${seen.answers})`)
      t.equal(seen.wrongAnswers, 0, `${transport}: every error named node3 (${seen.wrongSamples.join(' | ')})`)
      // Queueing on a busy box delays successes and errors alike: the error may take the timeout more.
      // While the entry itself stalls (a worker restarting on 2 busy cores) every answer is an
      // error, so direct's slowest answer, not the successes', shows that wait.
      const waited = Math.max(seen.okLatencyP99Ms, result.entryStallMs)
      t.ok(seen.maxErrorLatencyMs <= CALL_TIMEOUT_MS + 1000 + waited, `${transport}: slowest error ${seen.maxErrorLatencyMs} ms (successes' p99 ${seen.okLatencyP99Ms} ms, direct's slowest ${result.entryStallMs} ms)`)
      t.ok(seen.recoveryMs <= 5000 + seen.okLatencyP99Ms, `${transport}: errors stopped ${seen.recoveryMs} ms after node3 was back (successes' p99 ${seen.okLatencyP99Ms} ms)`)
      t.ok(seen.servedAgain, `${transport} serves verified answers again`)
      t.equal(seen.load.errors + seen.load.timeouts, 0, `${transport}: no connection error or timeout under load`)
      t.ok(Object.keys(seen.load.byCode).every((code) => ['200', '502', '504'].includes(code)), `${transport} codes ${JSON.stringify(seen.load.byCode)}`)
      t.ok(Object.keys(seen.byStatus).every((code) => code === (kind === 'crash' ? '502' : '504')), `${transport}: ${kind === 'crash' ? '502 (refused)' : '504 (timeout)'} as expected: ${JSON.stringify(seen.byStatus)}`)
    }
    t.equal(result.transports.direct.errors + result.transports.direct.load.non2xx, 0, 'direct is untouched')
  })
}
