// The outside transports in the reliability check: they are in its plan (load,
// a crash of one service process, a stop), and when node3's own process is killed
// under load, only the transport that reaches it sees errors (502s naming node3),
// which stop once the process is back; every other transport answers throughout.
import t from 'tap'
import { startRequirements } from '../../bench/lib/requirements.js'
import { namespaceSupport } from '../../bench/outside/netns.js'
import { casesFrom, outsideTransports, resolveSettings } from '../../bench/reliability/plan.js'
import { startPrivateRuntime } from '../../bench/reliability/private-runtime.js'
import { createWattControl } from '../../bench/reliability/watt-control.js'
import { faultUnderLoad } from '../../bench/reliability/scenarios/faults.js'
import { SUITES } from '../../bench/reliability/scenarios/shutdown.js'
import { isAlive } from '../../bench/reliability/health.js'
import { availableTransports, inOwnRuntime, TRANSPORTS } from '../../lib/topology.js'

// the transports whose services run outside the runtime (service processes, a remote host, containers);
// not mesh-port, which runs in a private runtime of its own (test/reliability/mesh-port.test.js)
const OUTSIDE = TRANSPORTS.filter((t) => t.requires && !inOwnRuntime(t.name)).map((t) => t.name)

t.test('the plan lists the outside transports for load and a process crash, and a stop of a bench over all of them', async (t) => {
  t.ok(OUTSIDE.length >= 3, `outside transports: ${OUTSIDE.join(', ')}`)
  t.same(outsideTransports({}), OUTSIDE, 'the harness can start each')
  const cases = casesFrom(resolveSettings({ scenarios: ['load', 'faults', 'shutdown'], quick: false, faults: ['crash', 'process-crash'], faultService: 'node3', callTimeoutMs: 3000, fuzzRequests: 1, leakRuns: 2, shutdownSuites: ['transports-outside'] }))
  const targets = cases.map((kase) => `${kase.profile} ${kase.target}`)
  for (const transport of OUTSIDE) {
    t.ok(targets.includes(`load ${transport}`), `load over ${transport}`)
    t.ok(targets.includes(`faults process-crash node3 (${transport})`), `a crash of node3's process behind ${transport}`)
  }
  t.ok(targets.includes('faults crash node3'), 'the worker crash stays one case')
  t.ok(targets.some((target) => target.startsWith('shutdown transports-outside')), 'a stop of a bench over them')
  t.ok(SUITES['transports-outside'].args.join(' ').includes(`--transports ${OUTSIDE.join(',')}`), 'the stop is of a bench over every outside transport')
})

t.test("node3's own process killed under load: only its transport sees it", async (t) => {
  const outside = namespaceSupport().ok ? ['tcp-process', 'tcp-remote'] : ['tcp-process']
  const needs = await startRequirements(outside, process.env, {})
  t.teardown(() => needs.stop())
  const runtime = await startPrivateRuntime({ callTimeoutMs: 1000, env: needs.env })
  const control = createWattControl(runtime.pid)
  t.teardown(async () => {
    await control.close()
    await runtime.stop()
  })
  const transports = [...availableTransports(), ...outside]
  const result = await faultUnderLoad(runtime, control, {
    kind: 'process-crash',
    service: 'node3',
    outside: 'tcp-process',
    processes: needs.faultsOf('tcp-process'),
    transports,
    holdMs: 2000,
    connections: 4,
    probeRateHz: 20,
    preMs: 1500,
    postMs: 2500,
    recoveryLimitMs: 5000,
    latencySlackMs: 1000
  })
  t.same(result.failures, [], 'every check of the scenario passed')
  t.ok(isAlive(runtime.pid), 'the runtime is alive')
  t.same(result.restarts.after, result.restarts.before, 'Watt restarted nothing: its workers were not touched')
  const hit = result.transports['tcp-process']
  t.ok(hit.errors + hit.load.non2xx > 0, `tcp-process saw the crash (${hit.errors} probe errors, ${hit.load.non2xx} non-2xx under load)`)
  t.same(Object.keys(hit.byStatus), ['502'], 'refused connections answer 502')
  t.equal(hit.wrongAnswers, 0, 'every error named node3')
  t.ok(hit.servedAgain, 'tcp-process serves verified answers again')
  for (const transport of transports.filter((name) => name !== 'tcp-process')) {
    const seen = result.transports[transport]
    t.equal(seen.errors + seen.load.non2xx, 0, `${transport} unaffected`)
  }
})
