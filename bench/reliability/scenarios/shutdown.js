// @ts-check
// Shutdown: Ctrl-C (SIGINT to the whole process group, as a terminal sends it)
// or SIGTERM (to the bench alone, as `kill` or a CI timeout sends it) during a
// transport bench. Pass = it exits non-zero, keeps the partial results JSON,
// and leaves no process of its tree and no listening port behind (checked from
// the OS: /proc, and a connect to each port).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { onCleanup } from '../../lib/processes.js'
import { isListening } from '../../lib/ports.js'
import { RUN_FINISHED, RUNTIME_STARTED, spawnTransportsBench } from '../bench-process.js'
import { isAlive } from '../health.js'
import { listeningSockets, parseInetTable, processTree } from '../os-sockets.js'
import { privatePorts, runtimeEnv } from '../private-runtime.js'
import { managementSocketPath } from '../watt-control.js'

/**
 * @typedef {object} ShutdownOptions
 * @property {'SIGINT' | 'SIGTERM'} signal
 * @property {'group' | 'process'} to     the whole process group (Ctrl-C) or the bench process only
 * @property {'mid-run' | 'after-first-run'} when
 * @property {string} outDir              where the interrupted bench writes its result JSON
 */

/**
 * @param {ShutdownOptions} options
 */
export async function interruptBench ({ signal, to, when, outDir }) {
  const ports = await privatePorts()
  const out = join(outDir, `interrupted-${signal.toLowerCase()}-${Date.now()}.json`)
  // mid-run: one long run, cut in its middle. after-first-run: short runs, cut once one is measured.
  const args = when === 'mid-run'
    ? ['--duration', '30', '--warmup', '0', '--transports', 'ipc', '--profiles', 'seed', '--wrk', 'off', '--out', out]
    : ['--duration', '1', '--warmup', '0', '--rounds', '10', '--transports', 'direct', '--profiles', 'seed', '--wrk', 'off', '--out', out]
  const bench = spawnTransportsBench({ args, env: runtimeEnv(ports), detached: to === 'group' })
  /** @type {number[]} */
  let tree = []
  // If a check throws half-way, nothing of the bench's tree may outlive us.
  const unregister = onCleanup(async () => { killSurvivors(tree) })
  try {
    const runtimePid = Number((await bench.waitFor(RUNTIME_STARTED, 90_000))[1])
    if (when === 'mid-run') {
      await bench.waitFor(/\[1\/1\]/, 10_000)
      await sleep(3000) // well inside the 30 s run
    } else {
      await bench.waitFor(RUN_FINISHED, 60_000)
    }
    tree = processTree(bench.pid)
    const listening = listeningSockets(tree).filter((s) => s.proto !== 'unix').map((s) => /** @type {number} */ (s.port))
    const signalledAt = Date.now()
    if (to === 'group') process.kill(-bench.pid, signal)
    else process.kill(bench.pid, signal)
    const exit = await Promise.race([bench.exited, sleep(45_000).then(() => null)])
    const stoppedMs = Date.now() - signalledAt

    const failures = []
    if (exit === null) failures.push('the bench did not exit within 45 s of the signal')
    else if (exit.code === 0) failures.push('the bench exited 0 after being interrupted')
    const survivors = tree.filter(isAlive)
    if (survivors.length > 0) failures.push(`processes left: ${survivors.join(', ')}`)
    const allPorts = [...new Set([...Object.values(ports), ...listening])]
    const stillListening = []
    for (const port of allPorts) if (await isListening(port)) stillListening.push(port)
    const osListening = listeningPortsInNamespace().filter((port) => allPorts.includes(port))
    if (stillListening.length > 0 || osListening.length > 0) failures.push(`ports still listening: ${[...new Set([...stillListening, ...osListening])].join(', ')}`)
    if (!listening.includes(ports.PORT)) failures.push(`the entry port ${ports.PORT} was not seen listening before the signal (is the check blind?)`)

    let partial = null
    if (!existsSync(out)) {
      failures.push(`no partial result at ${out}`)
    } else {
      partial = JSON.parse(readFileSync(out, 'utf8'))
      if (partial.interrupted !== true || partial.complete !== false) failures.push(`the result is not marked interrupted and incomplete (interrupted ${partial.interrupted}, complete ${partial.complete})`)
      if (when === 'after-first-run' && !(partial.runs?.length >= 1 && partial.runs[0].ok)) failures.push('the run measured before the signal was not kept')
    }
    return {
      failures,
      shutdown: {
        signal,
        to,
        when,
        exitCode: exit?.code ?? null,
        exitSignal: exit?.signal ?? null,
        stoppedMs,
        processesBefore: tree.length,
        runtimePid,
        portsBefore: listening,
        runsKept: partial?.runs?.length ?? null,
        result: out,
        // Watt (close-with-grace exits before its management API's clean-up runs) leaves this behind;
        // a stale socket file, not a listener: reported, not failed.
        staleManagementSocket: existsSync(managementSocketPath(runtimePid))
      }
    }
  } finally {
    if (bench.child.exitCode === null && bench.child.signalCode === null) bench.child.kill('SIGKILL')
    await bench.exited
    killSurvivors(tree)
    unregister()
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
