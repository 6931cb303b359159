// @ts-check
// Binds: every socket the runtime and the suites listen on is on 127.0.0.1,
// as the OS sees it (/proc), metrics and the services' own ports included. The
// management API is a unix socket in a directory only its owner can enter.
import { statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { RESULTS_DIR } from '../../lib/paths.js'
import { isListening } from '../../lib/ports.js'
import { describeSocket, hasProcFs, listeningSockets, processTree } from '../os-sockets.js'
import { isAlive } from '../health.js'
import { managementSocketPath, removeStaleManagementDir } from '../../lib/management-dir.js'
import { privatePorts, runtimeEnv } from '../private-runtime.js'
import { RUNTIME_STARTED, spawnTransportsBench } from '../bench-process.js'

/**
 * Checks one process tree's listeners.
 * @param {{ label: string, pid: number, expectedPorts?: number[], managementPid?: number }} options
 */
export function checkTreeBinds ({ label, pid, expectedPorts = [], managementPid }) {
  const sockets = listeningSockets(processTree(pid))
  const failures = []
  for (const socket of sockets) {
    // the emulated remote host's sockets live in its own network namespace, off this host's network
    if (socket.proto !== 'unix' && !socket.elsewhere && socket.address !== '127.0.0.1') failures.push(`${label}: ${describeSocket(socket)} is not on 127.0.0.1`)
  }
  const inetPorts = new Set(sockets.filter((s) => s.proto !== 'unix').map((s) => s.port))
  for (const port of expectedPorts) {
    if (!inetPorts.has(port)) failures.push(`${label}: expected a listener on 127.0.0.1:${port}, the OS shows none (is the check blind?)`)
  }
  let management = null
  if (managementPid !== undefined) {
    const path = managementSocketPath(managementPid)
    const listed = sockets.some((s) => s.proto === 'unix' && s.path === path)
    let mode = null
    try {
      mode = (statSync(dirname(path)).mode & 0o777).toString(8)
    } catch {}
    management = { path, listening: listed, directoryMode: mode }
    if (!listed) failures.push(`${label}: the management API socket ${path} is not listening`)
    if (mode !== '700') failures.push(`${label}: the management socket's directory is mode ${mode}, not 700`)
  }
  return { failures, sockets: sockets.map(describeSocket), management }
}

/**
 * @param {import('../private-runtime.js').PrivateRuntime} runtime
 * @param {{ benchSeconds?: number, label?: string }} [options]
 *   benchSeconds: also run a transports bench that long and check its tree mid-run (omitted: the
 *   runtime and the runner only, as for mesh-port's runtime, whose bench the shutdown case checks mid-run)
 */
export async function checkBinds (runtime, { benchSeconds, label = 'runtime' } = {}) {
  if (!hasProcFs()) return { failures: ['no /proc here: binds can only be checked on Linux'] }
  const failures = []
  const ports = Object.values(runtime.ports)
  const ownRuntime = checkTreeBinds({ label, pid: runtime.pid, expectedPorts: ports, managementPid: runtime.pid })
  failures.push(...ownRuntime.failures)
  // The runner itself (load generator, fuzzer, observers) only ever connects.
  const runnerOwn = listeningSockets([process.pid]).map(describeSocket)
  if (runnerOwn.length > 0) failures.push(`this runner listens itself: ${runnerOwn.join(', ')}`)
  if (benchSeconds === undefined) return { failures, binds: { runtime: ownRuntime, runner: runnerOwn, suite: null } }

  // A suite as a user runs it: the transport bench, its runtime and load, checked mid-run.
  const benchPorts = await privatePorts()
  const bench = spawnTransportsBench({
    args: ['--duration', String(benchSeconds), '--warmup', '0', '--transports', 'tcp', '--profiles', 'latency', '--wrk', 'off', '--out', join(RESULTS_DIR, 'reliability-binds-bench.json')],
    env: runtimeEnv(benchPorts)
  })
  /** @type {ReturnType<typeof checkTreeBinds> | null} */
  let suite = null
  let benchRuntimePid = 0
  try {
    benchRuntimePid = Number((await bench.waitFor(RUNTIME_STARTED, 90_000))[1])
    suite = checkTreeBinds({ label: 'transports bench', pid: bench.pid, expectedPorts: Object.values(benchPorts), managementPid: benchRuntimePid })
    failures.push(...suite.failures)
    // unref'd: the deadline must not keep this process alive once the bench exits
    const { code } = await Promise.race([bench.exited, sleep((benchSeconds + 60) * 1000, { code: 'timeout' }, { ref: false })])
    if (code !== 0) failures.push(`the transports bench exited ${code}\n${bench.output().split('\n').slice(-5).join('\n')}`)
    if (isAlive(benchRuntimePid)) failures.push(`the bench's runtime (pid ${benchRuntimePid}) outlived it`)
    for (const port of Object.values(benchPorts)) {
      if (await isListening(port)) failures.push(`127.0.0.1:${port} still listening after the bench ended`)
    }
  } finally {
    if (bench.child.exitCode === null && bench.child.signalCode === null) bench.child.kill('SIGINT')
    await bench.exited
    if (benchRuntimePid) removeStaleManagementDir(benchRuntimePid)
  }
  return { failures, binds: { runtime: ownRuntime, runner: runnerOwn, suite } }
}
