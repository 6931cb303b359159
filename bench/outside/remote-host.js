// @ts-check
// The `tcp-remote` target: the four services on a second "host" (a network
// namespace joined by a veth pair), with an emulated round trip: netem where the
// kernel has it, else the delay relay (bench/outside/delay-relay.js) inside the
// namespace. Everything made here is removed by stop(), on Ctrl-C and on failure.
import { createInterface } from 'node:readline'
import { join } from 'node:path'
import { DOWNSTREAM_SERVICES } from '../../lib/contract.js'
import { createNamespace, namespaceSupport, setNetemDelay } from './netns.js'
import { processCpuSeconds } from '../lib/proc-cpu.js'
import { onCleanup, spawnTracked, stopChild } from '../lib/processes.js'
import { PROJECT_NODE, PROJECT_ROOT } from '../lib/paths.js'
import { startServiceProcesses } from './service-processes.js'

const RELAY = join(PROJECT_ROOT, 'bench', 'outside', 'delay-relay.js')

/**
 * @typedef {object} RemoteHost
 * @property {'netem' | 'relay'} emulation   what emulates the round trip
 * @property {string} namespace
 * @property {string} hostAddress           our end of the veth pair
 * @property {string} remoteAddress         the services' host
 * @property {Record<string, { host: string, port: number }>} addresses
 * @property {() => number} rttMs
 * @property {(rttMs: number) => Promise<void>} setRtt
 * @property {(service: string) => Promise<void>} crash    one service's process killed (SIGKILL)
 * @property {(service: string) => Promise<void>} restart  and started again in the namespace
 * @property {() => { services: Record<string, number | null>, relay: number | null }} cpuSeconds
 * @property {() => Promise<void>} stop
 */

/**
 * @param {object} options
 * @param {number} options.rttMs
 * @param {Record<string, number>} options.ports       the services' ports (in the namespace)
 * @param {'auto' | 'relay'} [options.emulation]      'relay' even where netem exists (to compare)
 * @param {readonly string[]} [options.services]
 * @param {readonly string[]} [options.nodeFlags]    the services' Node/V8 flags (bench/lib/node-flags.js)
 * @returns {Promise<RemoteHost>}
 */
export async function startRemoteHost ({ rttMs, ports, emulation = 'auto', services = DOWNSTREAM_SERVICES, nodeFlags = [] }) {
  const support = namespaceSupport()
  if (!support.ok) throw new Error(`tcp-remote needs a network namespace: ${support.reason}`)
  const ns = await createNamespace()
  /** @type {{ stop: () => Promise<void> }[]} */
  const parts = []
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    unregister()
    for (const part of parts.reverse()) await part.stop().catch(() => {})
    await ns.remove()
  }
  const unregister = onCleanup(stop)
  try {
    let current = rttMs
    const useNetem = emulation === 'auto' && await setNetemDelay(ns, rttMs)
    /** @type {Awaited<ReturnType<typeof startRelay>> | null} */
    let relay = null
    if (!useNetem) {
      relay = await startRelay(ns, Object.values(ports), rttMs)
      parts.push(relay)
    }
    const processes = await startServiceProcesses({
      ports,
      services,
      // Behind the relay the services keep to the namespace's loopback and only the
      // relay is on the wire; with netem they listen on the namespace's address.
      bindHost: useNetem ? ns.remoteAddress : '127.0.0.1',
      reachAt: (service) => ({ host: ns.remoteAddress, port: ports[service] }),
      wrap: ns.exec,
      nodeFlags
    })
    parts.push(processes)
    return {
      emulation: useNetem ? 'netem' : 'relay',
      namespace: ns.name,
      hostAddress: ns.hostAddress,
      remoteAddress: ns.remoteAddress,
      addresses: processes.addresses,
      rttMs: () => current,
      setRtt: async (next) => {
        if (relay) await relay.setRtt(next)
        else await setNetemDelay(ns, next)
        current = next
      },
      cpuSeconds: () => ({ services: processes.cpuSeconds(), relay: relay ? processCpuSeconds(relay.pid) : null }),
      crash: processes.crash,
      restart: processes.restart,
      stop
    }
  } catch (err) {
    await stop()
    throw err
  }
}

/**
 * @param {import('./netns.js').Namespace} ns
 * @param {number[]} ports
 * @param {number} rttMs
 */
async function startRelay (ns, ports, rttMs) {
  const [command, ...args] = [...ns.exec, PROJECT_NODE, RELAY, '--listen', ns.remoteAddress, '--ports', ports.join(','), '--rtt-ms', String(rttMs)]
  const { child, exited, output } = spawnTracked(command, args, { cwd: PROJECT_ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
  const lines = createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) })
  /** @type {Array<(line: string) => boolean>} */
  const waiters = []
  lines.on('line', (line) => {
    const index = waiters.findIndex((test) => test(line))
    if (index >= 0) waiters.splice(index, 1)
  })
  /**
   * @param {(line: string) => boolean} test
   * @param {string} what
   */
  const waitForLine = (test, what) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`delay relay: no "${what}" within 15 s\n${output()}`)), 15_000)
    exited.then(() => { clearTimeout(timer); reject(new Error(`delay relay exited before "${what}"\n${output()}`)) })
    waiters.push((line) => {
      if (!test(line)) return false
      clearTimeout(timer)
      resolve(line)
      return true
    })
  })
  try {
    await waitForLine((line) => line === 'ready', 'ready')
  } catch (err) {
    await stopChild(child, { signal: 'SIGTERM', graceMs: 2000 })
    throw err
  }
  return {
    pid: /** @type {number} */ (child.pid),
    /** @param {number} next */
    setRtt: async (next) => {
      const answer = waitForLine((line) => line.startsWith(`rtt ${next} `), `rtt ${next} ok`)
      child.stdin?.write(`rtt ${next}\n`)
      const line = /** @type {string} */ (await answer)
      if (!line.endsWith(' ok')) throw new Error(`delay relay: ${line}`)
    },
    stop: async () => {
      child.stdin?.end()
      await stopChild(child, { signal: 'SIGTERM', graceMs: 2000 })
    }
  }
}
