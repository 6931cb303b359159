// Shutdown: Ctrl-C (SIGINT to the process group, as a terminal sends it) in the
// middle of a 30 s transport bench, and SIGTERM to the bench alone after its
// first run. Each exits non-zero, keeps its partial result JSON, and leaves no
// process and no listening port behind (checked from the OS). Mid-run, every
// listener of the bench's tree is on 127.0.0.1. The same Ctrl-C in the middle of
// a bench over mesh-port, which starts mesh-port's runtime beside the plain one.
import t from 'tap'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { isListening } from '../../bench/lib/ports.js'
import { RUNTIME_STARTED, spawnTransportsBench } from '../../bench/reliability/bench-process.js'
import { isAlive } from '../../bench/reliability/health.js'
import { hasProcFs, listeningSockets, parseInetTable, processTree } from '../../bench/reliability/os-sockets.js'
import { privatePorts, runtimeEnv } from '../../bench/reliability/private-runtime.js'
import { interruptBench, OWN_RUNTIME_SUITES } from '../../bench/reliability/scenarios/shutdown.js'
import { managementSocketPath } from '../../bench/lib/management-dir.js'
import { checkTreeBinds } from '../../bench/reliability/scenarios/binds.js'
import { untilBusy } from '../helpers/wait.js'

t.jobs = 2 // two benches at a time run side by side: less wall time

function listeningInNamespace () {
  const ports = new Set()
  for (const [file, family] of [['/proc/net/tcp', 4], ['/proc/net/tcp6', 6]]) {
    for (const row of parseInetTable(readFileSync(file, 'utf8'), family)) if (row.state === '0A') ports.add(row.port)
  }
  return ports
}

t.test('Ctrl-C mid-run: exit non-zero, partial JSON kept, runtime gone, ports closed', { skip: !hasProcFs() && 'needs /proc' }, async (t) => {
  const dir = t.testdir()
  const out = join(dir, 'interrupted.json')
  const ports = await privatePorts()
  const bench = spawnTransportsBench({
    args: ['--duration', '300', '--warmup', '0', '--transports', 'ipc', '--profiles', 'seed', '--wrk', 'off', '--out', out],
    env: runtimeEnv(ports),
    detached: true
  })
  t.teardown(() => { if (bench.child.exitCode === null) bench.child.kill('SIGKILL') })
  const runtimePid = Number((await bench.waitFor(RUNTIME_STARTED, 180_000))[1])
  await bench.waitFor(/\[1\/1\]/, 60_000)
  // inside the 300 s run (interrupted long before its end): the runtime is busy with the load
  await untilBusy(runtimePid)
  const tree = processTree(bench.pid)
  t.ok(tree.includes(runtimePid), 'the runtime is the bench\'s child')
  const before = listeningSockets(tree).map((s) => s.port)
  for (const port of Object.values(ports)) t.ok(before.includes(port), `${port} listening before the signal`)
  // The suite as a user runs it (bench, runtime, load generator) listens on 127.0.0.1 only.
  t.same(checkTreeBinds({ label: 'bench', pid: bench.pid, expectedPorts: Object.values(ports), managementPid: runtimePid }).failures, [])

  process.kill(-bench.pid, 'SIGINT')
  // unref'd: a pending deadline kept this file's process alive for the rest of its 120 s
  const exit = await Promise.race([bench.exited, sleep(120_000, null, { ref: false })])
  t.ok(exit, 'the bench exited')
  t.not(exit?.code, 0, `exit code ${exit?.code} is non-zero`)
  t.ok(existsSync(out), 'the partial result JSON is kept')
  const partial = JSON.parse(readFileSync(out, 'utf8'))
  t.match(partial, { suite: 'transports', interrupted: true, complete: false })
  for (const pid of tree) t.notOk(isAlive(pid), `process ${pid} is gone`)
  const stillListening = listeningInNamespace()
  for (const port of Object.values(ports)) {
    t.notOk(await isListening(port), `nothing answers on ${port}`)
    t.notOk(stillListening.has(port), `the OS shows no listener on ${port}`)
  }
  // Watt exits before its management API removes its socket file; the harness tidies it
  t.notOk(existsSync(dirname(managementSocketPath(runtimePid))), 'no management socket dir is left behind')
})

t.test('SIGTERM after the first run: the measured run is kept, nothing left', { skip: !hasProcFs() && 'needs /proc' }, async (t) => {
  const { failures, shutdown } = await interruptBench({ suite: 'transports', signal: 'SIGTERM', to: 'process', when: 'after-first-run', outDir: t.testdir() })
  t.same(failures, [])
  t.not(shutdown.exitCode, 0)
  t.ok(shutdown.runsKept >= 1, `${shutdown.runsKept} run(s) kept`)
  t.ok(shutdown.portsBefore.length >= 6, `ports ${shutdown.portsBefore.join(', ')} were open before`)
})

t.test('Ctrl-C mid-run of a bench over mesh-port: both its runtimes gone, every port closed', { skip: !hasProcFs() && 'needs /proc' }, async (t) => {
  const { failures, shutdown } = await interruptBench({ suite: OWN_RUNTIME_SUITES['mesh-port'], signal: 'SIGINT', to: 'group', when: 'mid-run', outDir: t.testdir() })
  t.same(failures, [], 'no process, port or management socket dir left; every listener was on 127.0.0.1; the partial result kept')
  t.not(shutdown.exitCode, 0, `exit ${shutdown.exitCode ?? shutdown.exitSignal}`)
  // the plain runtime's six ports and mesh-port's runtime's six, both under the bench
  t.ok(shutdown.portsBefore.length >= 12, `ports ${shutdown.portsBefore.join(', ')} were open before`)
  const partial = JSON.parse(readFileSync(shutdown.result, 'utf8'))
  t.match(partial, { suite: 'transports', interrupted: true, complete: false, config: { transports: ['mesh-port'] } })
  t.match(partial.config.outside.about['mesh-port'], { baseConfig: 'watt.mesh-port.json' }, 'the bench ran mesh-port in its own runtime')
})
