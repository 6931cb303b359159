// @ts-check
// Shutdown: Ctrl-C (SIGINT to the whole process group, as a terminal sends it)
// or SIGTERM (to the bench alone, as `kill` or a CI timeout sends it) during a
// bench. Pass = it exits non-zero, keeps the partial results JSON, and leaves
// no process of its tree and no listening port behind (checked from the OS:
// /proc, and a connect to each port). While it runs, every listener of its
// tree must be on 127.0.0.1 (the suites' binds).
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { inOwnRuntime, TRANSPORTS } from '../../../lib/topology.js'
import { onCleanup } from '../../lib/processes.js'
import { isListening } from '../../lib/ports.js'
import { RUN_FINISHED, spawnBench } from '../bench-process.js'
import { isAlive } from '../health.js'
import { describeSocket, listeningSockets, parseInetTable, processTree } from '../os-sockets.js'
import { privatePorts, runtimeEnv } from '../private-runtime.js'
import { managementSocketPath, removeStaleManagementDir } from '../../lib/management-dir.js'

/**
 * The suite that stops a bench over each transport measured in a runtime of its own, by
 * transport: mesh-port → transports-mesh-port.
 * @type {Record<string, string>}
 */
export const OWN_RUNTIME_SUITES = Object.fromEntries(TRANSPORTS.filter((t) => inOwnRuntime(t.name)).map((t) => [t.name, `transports-${t.name}`]))

/**
 * How to run each bench briefly on private ports. `runtimePorts`: it starts the
 * transport runtime from the environment (PORT, PLT_METRICS_PORT, the services' ports).
 * `shortRuns`: what makes its runs short and sure to pass, for the after-first-run case.
 * @type {Record<string, { script: string, args: string[], runtimePorts?: boolean, report?: boolean, shortRuns?: string[] }>}
 */
export const SUITES = {
  transports: {
    script: 'bench/transports/run.js',
    args: ['--duration', '30', '--warmup', '0', '--transports', 'ipc', '--profiles', 'seed', '--wrk', 'off'],
    runtimePorts: true,
    shortRuns: ['--duration', '1', '--rounds', '10', '--transports', 'direct']
  },
  // The transports whose targets the bench starts outside the runtime (service processes, a
  // namespace, containers): those must go too. Each is skipped, with the reason, where it cannot run.
  'transports-outside': {
    script: 'bench/transports/run.js',
    args: ['--duration', '30', '--warmup', '0', '--transports', TRANSPORTS.filter((t) => t.requires).map((t) => t.name).join(','), '--profiles', 'seed', '--wrk', 'off'],
    runtimePorts: true
  },
  // A bench over each transport measured in a runtime of its own (mesh-port): the bench starts that
  // runtime before the plain one, and both must go.
  ...Object.fromEntries(Object.entries(OWN_RUNTIME_SUITES).map(([transport, suite]) => [suite, {
    script: 'bench/transports/run.js',
    args: ['--duration', '30', '--warmup', '0', '--transports', transport, '--profiles', 'seed', '--wrk', 'off'],
    runtimePorts: true
  }])),
  sweep: { script: 'bench/sweep/run.js', args: ['--duration', '30', '--warmup', '0', '--transports', 'tcp', '--dimensions', 'size'], runtimePorts: true, report: true },
  profile: { script: 'bench/profile/run.js', args: ['--duration', '30', '--warmup', '0', '--transports', 'tcp'], report: true },
  scale: { script: 'bench/scale/run.js', args: ['--targets', 'watt', '--scale', '1', '--duration', '30', '--warmup', '0', '--wrk', 'off'] },
  frameworks: { script: 'bench/frameworks/run.js', args: ['--frameworks', 'fastify', '--duration', '30', '--warmup', '0', '--rounds', '1'], report: true },
  data: { script: 'bench/data/run.js', args: ['--datasets', 'small', '--sources', 'disk', '--modes', 'stream', '--duration', '30', '--warmup', '0', '--wrk', 'off'] }
}
export const SUITE_NAMES = Object.keys(SUITES)
// scale's Watt target opens Watt's health-probe server on its default 0.0.0.0:9090 (metrics: false
// does not turn it off): it fails the binds rule and takes a port other runtimes use. Opt-in
// (--shutdown-suites …,scale) until its watt.json sets healthProbes.
export const DEFAULT_SUITES = SUITE_NAMES.filter((name) => name !== 'scale')

/**
 * @typedef {object} ShutdownOptions
 * @property {string} suite               a SUITES name
 * @property {'SIGINT' | 'SIGTERM'} signal
 * @property {'group' | 'process'} to     the whole process group (Ctrl-C) or the bench process only
 * @property {'during-startup' | 'mid-run' | 'after-first-run'} when
 *   during-startup: as soon as its first server listens (nothing measured: no result file needed);
 *   mid-run: once its first run is under way; after-first-run: once a run is measured (it must be kept)
 * @property {string} outDir              where the interrupted bench writes its result JSON
 */

/**
 * @param {ShutdownOptions} options
 */
export async function interruptBench ({ suite, signal, to, when, outDir }) {
  const spec = SUITES[suite]
  if (!spec) throw new Error(`unknown suite ${suite}`)
  const ports = await privatePorts()
  const out = join(outDir, `${suite}-${signal.toLowerCase()}-${Date.now()}.json`)
  const args = [...spec.args, '--out', out, ...(spec.report ? ['--report', out.replace(/\.json$/, '')] : [])]
  // after-first-run: short runs, cut once one is measured (its result must be kept).
  if (when === 'after-first-run') {
    if (!spec.shortRuns) throw new Error(`no short runs defined for ${suite}`)
    args.push(...spec.shortRuns) // later flags win
  }
  const bench = spawnBench(spec.script, { args, env: spec.runtimePorts ? runtimeEnv(ports) : {}, detached: to === 'group' })
  /** @type {number[]} */
  let tree = []
  // If a check throws half-way, nothing of the bench's tree may outlive us.
  const unregister = onCleanup(async () => { killSurvivors(tree) })
  try {
    if (when !== 'during-startup') await bench.waitFor(when === 'mid-run' ? FIRST_RUN_STARTED : RUN_FINISHED, 180_000)
    await untilListening(bench.pid) // a suite may start its server after announcing the run
    if (when === 'mid-run') await sleep(3000) // load flowing
    const listenersBefore = listeningSockets(processTree(bench.pid))
    tree = processTree(bench.pid)
    const listening = listeningSockets(tree)
    const inetPorts = listening.filter((s) => s.proto !== 'unix').map((s) => /** @type {number} */ (s.port))
    const signalledAt = Date.now()
    if (to === 'group') process.kill(-bench.pid, signal)
    else process.kill(bench.pid, signal)
    // unref'd: once the bench exits, a pending deadline must not keep this process alive for its rest
    const exit = await Promise.race([bench.exited, sleep(45_000, null, { ref: false })])
    const stoppedMs = Date.now() - signalledAt

    const failures = []
    if (!listenersBefore.some((s) => s.proto !== 'unix')) failures.push('nothing of the bench was seen listening on TCP before the signal (is the check blind?)')
    for (const socket of listening) {
      // the emulated remote host's sockets live in its own network namespace, off this host's network
      if (socket.proto !== 'unix' && !socket.elsewhere && socket.address !== '127.0.0.1') failures.push(`mid-run, ${describeSocket(socket)} was not on 127.0.0.1`)
    }
    if (exit === null) failures.push('the bench did not exit within 45 s of the signal')
    else if (exit.code === 0) failures.push('the bench exited 0 after being interrupted')
    const survivors = tree.filter(isAlive)
    if (survivors.length > 0) failures.push(`processes left: ${survivors.join(', ')}`)
    const allPorts = [...new Set([...(spec.runtimePorts ? Object.values(ports) : []), ...inetPorts])]
    const stillListening = []
    for (const port of allPorts) if (await isListening(port)) stillListening.push(port)
    const osListening = listeningPortsInNamespace().filter((port) => allPorts.includes(port))
    if (stillListening.length > 0 || osListening.length > 0) failures.push(`ports still listening: ${[...new Set([...stillListening, ...osListening])].join(', ')}`)
    // Watt exits (close-with-grace) before its management API's clean-up runs; the harness
    // removes the socket directory it leaves when the runtime exits, so none may remain.
    const staleManagementDirs = tree.filter((pid) => existsSync(dirname(managementSocketPath(pid))))
    if (staleManagementDirs.length > 0) failures.push(`Watt management socket dirs left for pid(s) ${staleManagementDirs.join(', ')}`)

    let partial = null
    if (!existsSync(out)) {
      if (when !== 'during-startup') failures.push(`no partial result at ${out}`)
    } else {
      partial = JSON.parse(readFileSync(out, 'utf8'))
      if (partial.interrupted !== true || partial.complete !== false) failures.push(`the result is not marked interrupted and incomplete (interrupted ${partial.interrupted}, complete ${partial.complete})`)
      if (when === 'after-first-run' && !(partial.runs?.length >= 1 && partial.runs[0].ok)) failures.push('the run measured before the signal was not kept')
    }
    return {
      failures,
      shutdown: {
        suite,
        signal,
        to,
        when,
        exitCode: exit?.code ?? null,
        exitSignal: exit?.signal ?? null,
        stoppedMs,
        processesBefore: tree.length,
        portsBefore: inetPorts,
        runsKept: partial?.runs?.length ?? null,
        result: out,
        staleManagementSockets: staleManagementDirs.length
      }
    }
  } finally {
    if (bench.child.exitCode === null && bench.child.signalCode === null) bench.child.kill('SIGKILL')
    await bench.exited
    killSurvivors(tree)
    for (const pid of tree) removeStaleManagementDir(pid) // recorded above; now tidied
    unregister()
  }
}

/** runSuite's first progress line (non-TTY output): the first run has begun. */
const FIRST_RUN_STARTED = /^\[1\/\d+\]/m

/**
 * Waits until something in the bench's tree listens on TCP (a server starting).
 * @param {number} pid
 */
async function untilListening (pid) {
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline && isAlive(pid)) {
    if (listeningSockets(processTree(pid)).some((s) => s.proto !== 'unix')) return
    await sleep(50)
  }
}

/**
 * Last resort, by pid, for processes this scenario started (the bench's tree).
 * @param {number[]} pids
 */
function killSurvivors (pids) {
  for (const pid of pids) {
    if (pid !== process.pid && isAlive(pid)) {
      try { process.kill(pid, 'SIGKILL') } catch {}
    }
  }
}

/** Every TCP port in LISTEN state in this network namespace, whoever holds it. */
function listeningPortsInNamespace () {
  const ports = []
  for (const [file, family] of /** @type {const} */ ([['/proc/net/tcp', 4], ['/proc/net/tcp6', 6]])) {
    let text = ''
    try { text = readFileSync(file, 'utf8') } catch { continue }
    for (const row of parseInetTable(text, family)) if (row.state === '0A') ports.push(row.port)
  }
  return ports
}
