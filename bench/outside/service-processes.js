// @ts-check
// The four downstream services, each as its own Node 24 process: the very files
// Watt runs (web/<service>/), outside any runtime, on ports of their own. Started
// with readiness waited for, tracked so Ctrl-C or a failure stops them, and
// measured from /proc. Optionally wrapped in a command (`ip netns exec <ns>`).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { DOWNSTREAM_SERVICES } from '../../lib/contract.js'
import { processCpuSeconds } from '../lib/proc-cpu.js'
import { spawnTracked, stopChild } from '../lib/processes.js'
import { PROJECT_NODE, PROJECT_ROOT } from '../lib/paths.js'

/**
 * The file a service's package runs (`main` of web/<service>/package.json).
 * @param {string} service
 */
export function serviceEntryFile (service) {
  const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'web', service, 'package.json'), 'utf8'))
  return join(PROJECT_ROOT, 'web', service, manifest.main ?? 'index.js')
}

/**
 * @typedef {object} ServiceProcesses
 * @property {Record<string, { host: string, port: number }>} addresses  where the entry reaches each service
 * @property {Record<string, number>} pids
 * @property {() => Record<string, number | null>} cpuSeconds  per service, null once a process is gone
 * @property {() => string[]} exited  services whose process has exited
 * @property {(service: string) => Promise<void>} crash    SIGKILL one service's process (a crash), resolves once it is gone
 * @property {(service: string) => Promise<void>} restart  starts a crashed service's process again, resolves once it answers
 * @property {() => Promise<void>} stop
 */

/**
 * Starts one process per service and waits until every one answers `/hello`.
 * @param {object} options
 * @param {Record<string, number>} options.ports       each service's listen port
 * @param {readonly string[]} [options.services]
 * @param {string} [options.bindHost]                  what the services bind (default 127.0.0.1)
 * @param {(service: string) => { host: string, port: number }} [options.reachAt]  where the caller reaches one (default bindHost:port)
 * @param {string[]} [options.wrap]                    command prefix, e.g. ['ip', 'netns', 'exec', 'ns']
 * @param {readonly string[]} [options.nodeFlags]              Node/V8 flags (bench/lib/node-flags.js)
 * @param {number} [options.readyTimeoutMs]
 * @returns {Promise<ServiceProcesses>}
 */
export async function startServiceProcesses ({ ports, services = DOWNSTREAM_SERVICES, bindHost = '127.0.0.1', reachAt, wrap = [], nodeFlags = [], readyTimeoutMs = 30_000 }) {
  /** @type {Array<ReturnType<typeof spawnTracked> & { service: string }>} */
  const started = []
  const gone = new Set()
  const stop = async () => {
    await Promise.all(started.map(({ child }) => stopChild(child, { signal: 'SIGTERM', graceMs: 5000 })))
  }
  /** @param {string} service */
  const spawnService = (service) => {
    const env = { ...process.env, [`${service.toUpperCase()}_PORT`]: String(ports[service]), SERVICE_BIND_HOST: bindHost }
    const [command, ...args] = [...wrap, PROJECT_NODE, ...nodeFlags, serviceEntryFile(service)]
    const tracked = { ...spawnTracked(command, args, { cwd: PROJECT_ROOT, env }), service }
    tracked.exited.then(() => { if (started.includes(tracked)) gone.add(service) })
    started.push(tracked)
    return tracked
  }
  const addresses = Object.fromEntries(services.map((service) => [service, reachAt ? reachAt(service) : { host: bindHost, port: ports[service] }]))
  /** @param {ReturnType<typeof spawnService>} tracked */
  const ready = (tracked) => waitForHello(tracked.service, addresses[tracked.service], {
    timeoutMs: readyTimeoutMs,
    isDead: () => gone.has(tracked.service),
    output: tracked.output
  })
  /** @param {string} service */
  const current = (service) => {
    const tracked = started.findLast((item) => item.service === service)
    if (!tracked) throw new RangeError(`no process of ${service} was started`)
    return tracked
  }
  try {
    await Promise.all(services.map((service) => ready(spawnService(service))))
    /** @type {Record<string, number>} */
    const pids = Object.fromEntries(started.map(({ service, child }) => [service, /** @type {number} */ (child.pid)]))
    return {
      addresses,
      pids,
      cpuSeconds: () => Object.fromEntries(Object.entries(pids).map(([service, pid]) => [service, processCpuSeconds(pid)])),
      exited: () => [...gone],
      crash: async (service) => {
        const tracked = current(service)
        // Through `env`, `ip netns exec` and node: the whole group dies, as a crashed host process would.
        tracked.child.kill('SIGKILL')
        await tracked.exited
      },
      restart: async (service) => {
        const old = current(service)
        if (old.child.exitCode === null && old.child.signalCode === null) throw new Error(`${service} is still running`)
        started.splice(started.indexOf(old), 1)
        gone.delete(service)
        const tracked = spawnService(service)
        pids[service] = /** @type {number} */ (tracked.child.pid)
        await ready(tracked)
      },
      stop
    }
  } catch (err) {
    await stop()
    throw err
  }
}

/**
 * Polls `GET /hello?size=1` until it answers 200 with the service's own name.
 * @param {string} service
 * @param {{ host: string, port: number }} address
 * @param {{ timeoutMs: number, isDead: () => boolean, output: () => string }} options
 */
export async function waitForHello (service, { host, port }, { timeoutMs, isDead, output }) {
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/hello?size=1`
  const deadline = Date.now() + timeoutMs
  let last = 'no answer yet'
  while (Date.now() < deadline) {
    if (isDead()) throw new Error(`${service} exited before it answered ${url}\n--- ${service} output ---\n${output()}`)
    try {
      const { statusCode, body } = await request(url, { headersTimeout: 2000, bodyTimeout: 2000, reset: true })
      const text = await body.text()
      if (statusCode === 200 && JSON.parse(text).service === service) return
      last = `${statusCode} ${text.slice(0, 80)}`
    } catch (err) {
      last = /** @type {NodeJS.ErrnoException} */ (err).code ?? /** @type {Error} */ (err).message
    }
    await sleep(100)
  }
  throw new Error(`${service} did not answer ${url} within ${timeoutMs} ms (${last})\n--- ${service} output ---\n${output()}`)
}
