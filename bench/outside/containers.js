// @ts-check
// The `tcp-container` target: the four downstream services, each in its own
// Docker container on a network of this run's own, with its port published on
// 127.0.0.1 only. Everything made here carries the label watt-lab=<run id> and
// is removed by stop(), on Ctrl-C and on failure; a dockerd started here is
// stopped again, one already running never is. CPU: each service's process,
// and apart the engine's part of the path (docker-proxy, containerd-shim).
import { readdirSync, readFileSync } from 'node:fs'
import { DOWNSTREAM_SERVICES } from '../../lib/contract.js'
import { processCpuSeconds } from '../lib/proc-cpu.js'
import { onCleanup } from '../lib/processes.js'
import { IMAGES, buildImages, removeImages } from '../../deploy/images.js'
import { docker, ensureEngine, LAB_LABEL } from './docker.js'
import { waitForHello } from './service-processes.js'

/**
 * @typedef {object} ServiceContainers
 * @property {string} runId                   the value of the watt-lab label on all it made
 * @property {string} network
 * @property {string} engineVersion
 * @property {boolean} engineStartedHere
 * @property {Record<string, { host: string, port: number }>} addresses  the published ports
 * @property {Record<string, string>} containers   service → container id
 * @property {Record<string, number>} pids         service → its process, as the host sees it
 * @property {() => { services: Record<string, number | null>, engine: number | null }} cpuSeconds
 * @property {() => string} path               how traffic reaches a container from 127.0.0.1
 * @property {(service: string) => Promise<void>} crash    its container's process killed (docker kill: SIGKILL)
 * @property {(service: string) => Promise<void>} restart  the same container started again, resolves once it answers
 * @property {() => Promise<void>} stop
 */

/** A run id unique on this machine: the pid and a clock. */
export function newRunId () {
  return `${process.pid}-${Date.now().toString(36)}`
}

/**
 * Removes every container and network (and volume) labelled watt-lab=<runId>
 * (any run id when `runId` is '*'); returns what it removed.
 * @param {string} runId
 */
export async function removeLabelled (runId) {
  const filter = runId === '*' ? `label=${LAB_LABEL}` : `label=${LAB_LABEL}=${runId}`
  const list = async (/** @type {string[]} */ args) => (await docker(args)).stdout.split('\n').filter(Boolean)
  const containers = await list(['ps', '-aq', '--filter', filter])
  if (containers.length) await docker(['rm', '-f', '-v', ...containers])
  const networks = await list(['network', 'ls', '-q', '--filter', filter])
  if (networks.length) await docker(['network', 'rm', ...networks])
  const volumes = await list(['volume', 'ls', '-q', '--filter', filter])
  if (volumes.length) await docker(['volume', 'rm', ...volumes])
  return { containers, networks, volumes }
}

/**
 * Run ids whose process no longer exists but whose containers or networks are
 * still there (the run was killed beyond clean-up, kill -9). Only ids of the
 * form <pid>-<time> (newRunId) count: a compose run's WATT_LAB_RUN is left alone.
 */
export async function orphanRuns () {
  const values = new Set()
  for (const args of [['ps', '-a'], ['network', 'ls'], ['volume', 'ls']]) {
    const { stdout } = await docker([...args, '--filter', `label=${LAB_LABEL}`, '--format', `{{.Label "${LAB_LABEL}"}}`])
    for (const value of stdout.split('\n')) if (value) values.add(value)
  }
  return [...values].filter((value) => {
    const match = /^(\d+)-[0-9a-z]+$/.exec(value)
    return match !== null && !pidAlive(Number(match[1]))
  })
}

/** Removes what orphanRuns() finds; returns the run ids removed. */
export async function removeOrphans () {
  const orphans = await orphanRuns()
  for (const runId of orphans) await removeLabelled(runId)
  return orphans
}

/** @param {number} pid */
function pidAlive (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM'
  }
}

/**
 * What carries the lab's label now: containers, networks, volumes (for tests and checks).
 * @param {string} [runId]  one run's, or every run's
 */
export async function labelled (runId) {
  const filter = runId ? `label=${LAB_LABEL}=${runId}` : `label=${LAB_LABEL}`
  const list = async (/** @type {string[]} */ args) => (await docker(args)).stdout.split('\n').filter(Boolean)
  return {
    containers: await list(['ps', '-a', '--filter', filter, '--format', '{{.Names}}']),
    networks: await list(['network', 'ls', '--filter', filter, '--format', '{{.Name}}']),
    volumes: await list(['volume', 'ls', '--filter', filter, '--format', '{{.Name}}'])
  }
}

/**
 * Host pids of the engine's processes on this run's path: the docker-proxy of
 * each published port and the containerd-shim above each container's process.
 * @param {number[]} ports
 * @param {number[]} containerPids
 */
export function enginePids (ports, containerPids) {
  /** @type {number[]} */
  const pids = []
  const wanted = new Set(ports.map(String))
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let args
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')
    } catch {
      continue
    }
    if (!args[0]?.endsWith('docker-proxy')) continue
    const hostPort = args[args.indexOf('-host-port') + 1]
    if (wanted.has(hostPort)) pids.push(Number(entry))
  }
  for (const pid of containerPids) {
    const parent = parentOf(pid)
    if (parent && commandOf(parent).startsWith('containerd-shim')) pids.push(parent)
  }
  return pids
}

/** @param {number} pid */
function parentOf (pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
  } catch {
    return 0
  }
}

/** @param {number} pid */
function commandOf (pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
  } catch {
    return ''
  }
}

/**
 * Builds the images if needed, starts one container per service and waits until
 * each answers /hello through its published port.
 * @param {object} options
 * @param {Record<string, number>} options.ports    each service's port, in the container and published on 127.0.0.1
 * @param {readonly string[]} [options.services]
 * @param {string} [options.runId]
 * @param {number} [options.readyTimeoutMs]
 * @param {Awaited<ReturnType<typeof ensureEngine>>} [options.engine]  one already ensured (then owned here: stop() stops it if it was started)
 * @param {boolean} [options.removeImages]  stop() also removes the lab's images (kept by default)
 * @param {readonly string[]} [options.nodeFlags]  the services' Node/V8 flags (bench/lib/node-flags.js); the image's CMD without them
 * @returns {Promise<ServiceContainers>}
 */
export async function startServiceContainers ({ ports, services = DOWNSTREAM_SERVICES, runId = newRunId(), readyTimeoutMs = 60_000, engine, removeImages: alsoImages = false, nodeFlags = [] }) {
  engine ??= await ensureEngine()
  const network = `watt-lab-${runId}`
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    unregister()
    try {
      await removeLabelled(runId)
      // Images another run still uses cannot go: say so, the run itself succeeded.
      if (alsoImages) process.stderr.write(`removed the lab's images: ${(await removeImages().catch((err) => [`none (${err.message.split('\n')[0]})`])).join(', ') || 'none'}\n`)
    } finally {
      await engine.stop()
    }
  }
  const unregister = onCleanup(stop)
  try {
    await removeOrphans()
    await buildImages()
    await docker(['network', 'create', '--label', `${LAB_LABEL}=${runId}`, network])
    /** @type {Record<string, string>} */
    const containers = {}
    for (const service of services) {
      const port = ports[service]
      const { stdout } = await docker([
        'run', '--detach',
        '--name', `${network}-${service}`,
        '--label', `${LAB_LABEL}=${runId}`,
        '--network', network,
        '--env', `SERVICE=${service}`,
        '--env', `${service.toUpperCase()}_PORT=${port}`,
        '--env', 'SERVICE_BIND_HOST=0.0.0.0',
        // Published on the host's loopback only: nothing outside this machine reaches it.
        '--publish', `127.0.0.1:${port}:${port}`,
        IMAGES.service,
        // the image's own CMD (deploy/Dockerfile), with the flags in front of the script
        ...(nodeFlags.length ? ['node', ...nodeFlags, 'deploy/run-service.js'] : [])
      ])
      containers[service] = stdout.trim()
    }
    const addresses = Object.fromEntries(services.map((service) => [service, { host: '127.0.0.1', port: ports[service] }]))
    await Promise.all(services.map(async (service) => {
      try {
        await waitForHello(service, addresses[service], { timeoutMs: readyTimeoutMs, isDead: () => false, output: () => '' })
      } catch (err) {
        const logs = await docker(['logs', '--tail', '40', containers[service]]).then((o) => o.stdout + o.stderr, () => '(no logs)')
        throw new Error(`${/** @type {Error} */ (err).message}\n--- docker logs ${service} ---\n${logs}`)
      }
    }))
    /** @type {Record<string, number>} */
    const pids = {}
    for (const service of services) {
      pids[service] = Number((await docker(['inspect', '--format', '{{.State.Pid}}', containers[service]])).stdout.trim())
    }
    const engineOf = enginePids(Object.values(ports), Object.values(pids))
    const proxies = engineOf.filter((pid) => commandOf(pid) === 'docker-proxy')
    return {
      runId,
      network,
      engineVersion: engine.version,
      engineStartedHere: engine.startedHere,
      addresses,
      containers,
      pids,
      cpuSeconds: () => {
        const services = Object.fromEntries(Object.entries(pids).map(([service, pid]) => [service, processCpuSeconds(pid)]))
        let total = 0
        for (const pid of engineOf) {
          const seconds = processCpuSeconds(pid)
          if (seconds === null) return { services, engine: null }
          total += seconds
        }
        return { services, engine: total }
      },
      crash: async (service) => { await docker(['kill', containers[service]]) },
      restart: async (service) => {
        await docker(['start', containers[service]]) // same container, same published port
        await waitForHello(service, addresses[service], { timeoutMs: readyTimeoutMs, isDead: () => false, output: () => '' })
        pids[service] = Number((await docker(['inspect', '--format', '{{.State.Pid}}', containers[service]])).stdout.trim())
      },
      path: () => proxies.length
        ? `127.0.0.1:<port> → docker-proxy (the engine's userland proxy, ${proxies.length} processes) → bridge ${network} → container`
        : `127.0.0.1:<port> → the engine's NAT rules (no userland proxy) → bridge ${network} → container`,
      stop
    }
  } catch (err) {
    await stop()
    throw err
  }
}
