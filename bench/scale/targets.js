// @ts-check
// The five ways to run the handler on N cores. Each is started, waited for
// until all N workers answer, verified (status, bytes, headers), and stopped
// with nothing left behind: no process, no PM2 daemon, no listening port.
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isListening } from '../lib/ports.js'
import { wattpmCli } from '../lib/paths.js'
import { spawnTracked, stopChild } from '../lib/processes.js'
import { isAlive, killAll, waitGone } from './alive.js'
import { HOST } from './handler.js'
import { startPm2Cluster } from './pm2.js'
import { verifyResponse, waitForWorkers } from './ready.js'

const HERE = dirname(fileURLToPath(import.meta.url))
const SERVERS = join(HERE, 'servers')
const WATT_DIR = join(HERE, 'watt')

/**
 * What a launcher hands back before readiness is known.
 * @typedef {object} Launched
 * @property {() => boolean} isDead             gave up before it was ready
 * @property {() => number[]} pids              every process that must be gone after stop
 * @property {() => string} output              recent output, for start errors
 * @property {() => Promise<string[]>} problems why it is no longer as started ([] when fine)
 * @property {() => Promise<void>} stop         polite stop, SIGKILL after a grace period
 */

/**
 * @typedef {object} StartedTarget
 * @property {string} url                base URL, http://127.0.0.1:PORT
 * @property {string[]} workerIds        "pid:threadId" of every worker that answered
 * @property {number} startMs            from launch to all workers ready and verified
 * @property {() => Promise<string[]>} problems
 * @property {() => Promise<{ leftovers: string[], forced: number[] }>} stop
 *   leftovers: what was still there after every attempt ([] when clean);
 *   forced: pids that ignored the polite stop and were SIGKILLed
 */

/**
 * @param {string} target  node | cluster | reuseport | pm2 | watt
 * @param {number} scale   workers (node is always 1)
 * @param {number} port
 * @param {{ readyTimeoutMs?: number }} [options]
 * @returns {Promise<StartedTarget>}
 */
export async function startTarget (target, scale, port, { readyTimeoutMs = 60_000 } = {}) {
  const began = Date.now()
  const url = `http://${HOST}:${port}`
  const workers = target === 'node' ? 1 : scale
  const launched = await launch(target, workers, port)
  /** @type {string[]} */
  let workerIds
  try {
    workerIds = await waitForWorkers(url, workers, { timeoutMs: readyTimeoutMs, isDead: launched.isDead })
    const wrong = await verifyResponse(url)
    if (wrong.length) throw new Error(`wrong answer: ${wrong.join('; ')}`)
  } catch (err) {
    const output = launched.output()
    await launched.stop()
    throw new Error(`${target}@${scale} did not start: ${/** @type {Error} */ (err).message}${output ? `\n--- output ---\n${output}` : ''}`)
  }
  const workerPids = workerIds.map((id) => Number(id.split(':')[0]))
  return {
    url,
    workerIds,
    startMs: Date.now() - began,
    problems: launched.problems,
    stop: async () => {
      const pids = [...new Set([...launched.pids(), ...workerPids])]
      await launched.stop()
      const forced = await waitGone(pids, 5000)
      killAll(forced)
      const leftovers = (await waitGone(forced, 2000)).map((pid) => `pid ${pid} still alive after stop`)
      if (await isListening(port)) leftovers.push(`port ${port} still accepts connections after stop`)
      return { leftovers, forced }
    }
  }
}

/**
 * @param {string} target
 * @param {number} workers
 * @param {number} port
 * @returns {Promise<Launched>}
 */
async function launch (target, workers, port) {
  const env = { ...process.env, PORT: String(port) }
  switch (target) {
    case 'node':
      return launchChildren([{ args: [join(SERVERS, 'node.js')], env }])
    case 'cluster':
      return launchChildren([{ args: [join(SERVERS, 'cluster.js')], env: { ...env, WORKERS: String(workers) } }])
    case 'reuseport':
      return launchChildren(Array.from({ length: workers }, () => ({ args: [join(SERVERS, 'reuseport.js')], env })))
    case 'watt':
      return launchChildren([{ args: [wattpmCli(), 'start'], env: { ...env, PLT_SCALE_WORKERS: String(workers) }, cwd: WATT_DIR }])
    case 'pm2':
      return launchPm2(workers, port)
    default:
      throw new Error(`unknown target ${target}`)
  }
}

/**
 * Node processes we spawn ourselves (tracked: stopped on exit and Ctrl-C too).
 * @param {{ args: string[], env: NodeJS.ProcessEnv, cwd?: string }[]} specs
 * @returns {Launched}
 */
function launchChildren (specs) {
  const spawned = specs.map(({ args, env, cwd }) => spawnTracked(process.execPath, args, { env, cwd }))
  /** @type {({ code: number | null, signal: string | null } | null)[]} */
  const exits = spawned.map(() => null)
  spawned.forEach((one, i) => one.exited.then((exit) => { exits[i] = exit }))
  return {
    isDead: () => exits.some((exit) => exit !== null),
    pids: () => /** @type {number[]} */ (spawned.map((one) => one.child.pid).filter((pid) => pid !== undefined)),
    output: () => spawned.map((one) => one.output()).filter(Boolean).join('\n'),
    problems: async () => exits.flatMap((exit, i) => exit ? [`process ${spawned[i].child.pid} exited during the run (${exit.signal ?? `code ${exit.code}`})`] : []),
    stop: async () => { await Promise.all(spawned.map((one) => stopChild(one.child))) }
  }
}

/**
 * PM2 cluster mode running the single-process server script N times.
 * @param {number} instances
 * @param {number} port
 * @returns {Promise<Launched>}
 */
async function launchPm2 (instances, port) {
  const pm2 = await startPm2Cluster({ script: join(SERVERS, 'node.js'), instances, env: { PORT: String(port) } })
  const daemon = pm2.pids()[0]
  return {
    isDead: () => daemon === undefined || !isAlive(daemon) || pm2.instanceDied(),
    pids: pm2.pids,
    output: pm2.output,
    problems: pm2.problems,
    stop: async () => { await pm2.stop() }
  }
}
