// @ts-check
// The single source of truth of what this runtime is made of: the services and
// their default ports, the runtime's tunables, and the transports the entry fans
// out over. Ports, routes, ready paths, the benches' --transports choices,
// report columns, private runtimes, watt.env and the tests all derive from here.
//
// Adding a transport: write web/tsfastify/lib/transports/<name>.ts exporting
// `create(settings)`, and add ONE line to TRANSPORTS below. Nothing else.
import { readFileSync } from 'node:fs'
import { isAbsolute } from 'node:path'

export const HOST = '127.0.0.1'

/**
 * @typedef {object} ServiceRecord
 * @property {string} name       Watt application id (folder under web/)
 * @property {string} language
 * @property {string} framework
 * @property {string} portEnv    environment variable overriding its TCP port
 * @property {number} defaultPort
 */

/**
 * The entry service: Watt's entrypoint, which serves the fan-out routes.
 * @type {Readonly<ServiceRecord & { routePrefix: string }>}
 */
export const ENTRY = Object.freeze({ name: 'tsfastify', language: 'TypeScript', framework: '@platformatic/service (Fastify)', portEnv: 'PORT', defaultPort: 3043, routePrefix: '/tsfastify' })

/** Prometheus metrics and `/ready` (Watt's metrics server). */
export const METRICS = Object.freeze({ portEnv: 'PLT_METRICS_PORT', defaultPort: 9090 })

/**
 * The downstream services, in fan-out order (fanout=N calls the first N). Each
 * listens on its own loopback port too (the tcp transport), as well as on the mesh.
 * @type {readonly Readonly<ServiceRecord>[]}
 */
export const SERVICES = Object.freeze([
  service('fastify2', 'JavaScript', 'Fastify', 3101),
  service('node3', 'JavaScript', 'node:http', 3102),
  service('type1', 'TypeScript', 'node:http', 3103),
  service('type4', 'TypeScript', 'node:http', 3104)
])

/**
 * The runtime's tunables, with their defaults (watt.env is generated from these).
 * @typedef {{ env: string, default: string | number, min?: number, max?: number, description: string }} SettingRecord
 * @type {readonly Readonly<SettingRecord>[]}
 */
export const SETTINGS = Object.freeze([
  { env: 'CALL_TIMEOUT_MS', default: 3000, min: 1, max: 600_000, description: 'per-call deadline of the fan-out' },
  { env: 'CALLS_IN_FLIGHT_PER_SERVICE', default: 16, min: 1, max: 1024, description: 'calls in flight to each downstream service on every transport that crosses threads' },
  { env: 'PLT_LOG_LEVEL', default: 'warn', description: 'runtime log level (no per-request logging)' }
])

/**
 * @typedef {object} TransportRecord
 * @property {string} name            route /tsfastify/<name>; file web/tsfastify/lib/transports/<name>.ts
 * @property {string} description     one line: how the entry reaches a downstream service
 * @property {boolean} crossesThreads calls leave the entry's thread: the entry bounds them to
 *                                    CALLS_IN_FLIGHT_PER_SERVICE per service (unless the transport
 *                                    says it bounds itself, as tcp's pool does)
 * @property {boolean} http           the call has HTTP semantics (status, headers, bytes)
 * @property {string} [requires]      a tag naming what must run before this transport works (see
 *                                    REQUIREMENTS); the harness starts or checks it first
 * @property {boolean} [inDefaultBench]  false keeps it out of the benches' default --transports
 * @property {string} [module]        absolute path of its file, for transports that live outside
 *                                    web/tsfastify/lib/transports/ (only the test hook below uses it)
 */

/** @type {TransportRecord[]} */
const BUILT_IN = [
  { name: 'ipc', description: "HTTP over Watt's mesh (MessagePort between worker threads)", crossesThreads: true, http: true },
  { name: 'tcp', description: 'HTTP over loopback TCP to the same worker, through a keep-alive pool per service', crossesThreads: true, http: true },
  { name: 'rpc', description: 'Watt messaging: structured-clone RPC over a persistent MessagePort, no HTTP', crossesThreads: true, http: false },
  { name: 'direct', description: 'no call: the same bytes built and verified in-process (the floor)', crossesThreads: false, http: false },
  { name: 'port', description: '@watt-lab/channel: batched request/response messages over a dedicated MessagePort per service', crossesThreads: true, http: false },
  { name: 'shm', description: '@watt-lab/channel: JSON frames in SharedArrayBuffer rings per service, a MessagePort as doorbell', crossesThreads: true, http: false },
  { name: 'http-port', description: "real HTTP/1.1 to the service's own http.Server over one in-process MessagePort per service (@watt-lab/channel/http), a keep-alive pool sized as tcp's", crossesThreads: true, http: true },
  { name: 'tcp-process', description: 'HTTP over loopback TCP to the same service code run as its own Node process, through a keep-alive pool per service', crossesThreads: true, http: true, requires: 'service-processes' },
  { name: 'tcp-remote', description: 'HTTP over TCP to the services on another host (a network namespace behind a veth pair, emulated RTT), through a keep-alive pool per service', crossesThreads: true, http: true, requires: 'remote-host' },
  { name: 'tcp-container', description: "HTTP over TCP to the services each in its own Docker container, through ports the engine publishes on 127.0.0.1, with tcp's keep-alive pool per service", crossesThreads: true, http: true, requires: 'containers' },
  { name: 'mesh-port', description: "ipc's code unchanged (http://<service>.plt.local), in a runtime whose config adds the @watt-lab/channel/mesh-port drop-in: every mesh request goes over http-port to the service's own http.Server", crossesThreads: true, http: true, requires: 'mesh-port-runtime' }
]

/** The transport every ratio is taken against (the classic microservice call). */
export const BASELINE_TRANSPORT = 'tcp'

/**
 * What a `requires` tag means. `check(env)` returns null when the transport can run
 * here, otherwise why not (e.g. no remote host configured). `startable` says the
 * harness knows how to start what the tag needs (bench/outside/targets.js holds the
 * starters, keyed by tag): this registry only names requirements, it starts nothing,
 * so the entry, which reads this file too, never imports the harness.
 * Transports whose targets the harness must start or find add their tag here.
 * @typedef {object} Requirement
 * @property {string} description
 * @property {(env: NodeJS.ProcessEnv) => string | null} check
 * @property {boolean} [startable]
 * @property {boolean} [ownRuntime]  the harness measures its transports in a runtime of their own
 *   (not the plain one): checks that load the plain runtime leave them out
 */
/**
 * The runtime mesh-port is measured in: its config, and the variable only that
 * runtime gets (the requirement's check reads it in the entry's worker).
 */
export const MESH_PORT_RUNTIME = Object.freeze({ configFile: 'watt.mesh-port.json', env: 'WATT_LAB_MESH_PORT' })

/** @type {Record<string, Requirement>} */
export const REQUIREMENTS = {
  'service-processes': {
    description: 'the four services, each its own Node process on loopback (the bench starts and stops them)',
    check: (env) => outsideAddressesMissing(env, 'process', 'the service processes are not running (the bench starts them for --transports tcp-process)'),
    startable: true
  },
  'remote-host': {
    description: 'the four services on another host: a network namespace the bench makes (root, iproute2), or --service-host',
    check: (env) => outsideAddressesMissing(env, 'remote', 'no remote host is running (the bench makes one for --transports tcp-remote: root and iproute2 needed, or --service-host)'),
    startable: true
  },
  containers: {
    description: 'the four services, each in its own Docker container with its port published on 127.0.0.1 (the bench builds the images, starts the engine if needed, and removes the containers)',
    check: (env) => outsideAddressesMissing(env, 'container', 'the service containers are not running (the bench starts them for --transports tcp-container: a Docker engine is needed, apt-get install docker.io)'),
    startable: true
  },
  // The drop-in sends ALL *.plt.local traffic of its runtime over http-port, so ipc there
  // would no longer be the mesh: mesh-port gets a runtime of its own (watt.mesh-port.json).
  'mesh-port-runtime': {
    description: `a second runtime started from ${MESH_PORT_RUNTIME.configFile} (watt.json plus the drop-in), on ports of its own (the bench starts and stops it)`,
    check: (env) => env[MESH_PORT_RUNTIME.env] === '1'
      ? null
      : `this runtime has no mesh-port drop-in, so the route would silently be the mesh; it runs only in a runtime started from ${MESH_PORT_RUNTIME.configFile} (the bench starts one for --transports mesh-port); ${MESH_PORT_RUNTIME.env} not set`,
    startable: true,
    ownRuntime: true
  }
}

/**
 * The runtime a transport measured in a runtime of its own is started from (null: the plain one).
 * @param {string} name
 * @returns {{ configFile: string, env: string } | null}
 */
export function ownRuntimeOf (name) {
  const tag = transportNamed(name).requires
  if (tag === 'mesh-port-runtime') return MESH_PORT_RUNTIME
  return null
}

/**
 * Where the transports that leave the runtime find the services by default: as
 * processes 10 ports above the in-runtime listeners, on the remote host on the
 * same ports at the first address the harness gives its namespace, in containers
 * published 20 ports above. The entry is told the real addresses through
 * <SERVICE>_PROCESS_ADDR / <SERVICE>_REMOTE_ADDR / <SERVICE>_CONTAINER_ADDR.
 * @typedef {'process' | 'remote' | 'container'} Placement
 */
export const OUTSIDE = Object.freeze({
  process: Object.freeze({ defaultHost: HOST, portOffset: 10 }),
  remote: Object.freeze({ defaultHost: '10.213.0.2', portOffset: 0 }),
  container: Object.freeze({ defaultHost: HOST, portOffset: 20 })
})

/** The placements, for code that checks every outside address. */
export const PLACEMENTS = /** @type {readonly Placement[]} */ (Object.freeze(Object.keys(OUTSIDE)))

/**
 * null when every service's address for `placement` is set, else why not.
 * @param {NodeJS.ProcessEnv} env
 * @param {Placement} placement
 * @param {string} reason
 */
function outsideAddressesMissing (env, placement, reason) {
  const missing = SERVICES.map((s) => `${s.name.toUpperCase()}_${placement.toUpperCase()}_ADDR`).filter((name) => !env[name])
  return missing.length === 0 ? null : `${reason}; ${missing.join(', ')} not set`
}

/**
 * Test-only hook: LAB_EXTRA_TRANSPORTS names a JSON file holding more transport
 * records (each with an absolute `module`). The entry's worker and the benches
 * read the same environment, so a test can add a throwaway transport to both
 * without touching this file.
 * @param {NodeJS.ProcessEnv} env
 * @returns {TransportRecord[]}
 */
function extraTransports (env) {
  const file = env.LAB_EXTRA_TRANSPORTS
  if (!file) return []
  const records = JSON.parse(readFileSync(file, 'utf8'))
  if (!Array.isArray(records)) throw new TypeError(`LAB_EXTRA_TRANSPORTS (${file}) must hold a JSON array of transport records`)
  for (const record of records) {
    if (typeof record.module !== 'string' || !isAbsolute(record.module)) throw new TypeError(`extra transport ${record.name}: "module" must be an absolute path`)
  }
  return records
}

/**
 * Every registered transport, in report order.
 * @type {readonly Readonly<TransportRecord>[]}
 */
export const TRANSPORTS = Object.freeze(validated([...BUILT_IN, ...extraTransports(process.env)]).map((record) => Object.freeze(record)))

/** Their names, in the same order. */
export const TRANSPORT_NAMES = Object.freeze(TRANSPORTS.map((transport) => transport.name))

/** Names of the transports whose calls leave the entry's thread. */
export const CROSS_THREAD_TRANSPORTS = Object.freeze(TRANSPORTS.filter((transport) => transport.crossesThreads).map((transport) => transport.name))

/**
 * @param {string} name
 * @returns {Readonly<TransportRecord>}
 */
export function transportNamed (name) {
  const record = TRANSPORTS.find((transport) => transport.name === name)
  if (!record) throw new RangeError(`unknown transport ${JSON.stringify(name)} (known: ${TRANSPORT_NAMES.join(', ')})`)
  return record
}

/** @param {string} name */
export function routeOf (name) {
  return `${ENTRY.routePrefix}/${name}`
}

/**
 * What must be started or in place before transport `name` works here: its
 * `requires` tags with what they mean (empty for in-runtime transports).
 * @param {string} name
 * @returns {{ tag: string, description: string }[]}
 */
export function requirementsOf (name) {
  const tag = transportNamed(name).requires
  if (!tag) return []
  return [{ tag, description: REQUIREMENTS[tag]?.description ?? `unknown requirement ${tag}` }]
}

/**
 * Whether the harness measures transport `name` in a runtime of its own (its
 * requirement says `ownRuntime`), so checks that load the plain runtime leave it out.
 * @param {string} name
 */
export function inOwnRuntime (name) {
  return requirementsOf(name).some(({ tag }) => REQUIREMENTS[tag]?.ownRuntime === true)
}

/**
 * Whether transport `name` can run here, and if not, why.
 * @param {string} name
 * @param {NodeJS.ProcessEnv} [env]
 * @param {{ startable?: boolean }} [options]  startable: count requirements the harness
 *   can start itself (`startable`) as met: "could a bench run it", not "does it run now"
 * @returns {{ available: true } | { available: false, reason: string }}
 */
export function availabilityOf (name, env = process.env, { startable = false } = {}) {
  for (const { tag } of requirementsOf(name)) {
    const requirement = REQUIREMENTS[tag]
    if (!requirement) return { available: false, reason: `${name} requires "${tag}", which no REQUIREMENTS entry in lib/topology.js describes` }
    if (startable && requirement.startable) continue
    const reason = requirement.check(env)
    if (reason !== null) return { available: false, reason: `${name}: ${reason}` }
  }
  return { available: true }
}

/**
 * The registered transports that can run here (reliability checks all of them).
 * @param {NodeJS.ProcessEnv} [env]
 */
export function availableTransports (env = process.env) {
  return TRANSPORTS.filter((t) => availabilityOf(t.name, env).available).map((t) => t.name)
}

/**
 * The transports the benches run when --transports is not given: registered,
 * not opted out, and available here (or startable by the bench).
 * @param {NodeJS.ProcessEnv} [env]
 */
export function defaultBenchTransports (env = process.env) {
  return TRANSPORTS.filter((t) => t.inDefaultBench !== false && availabilityOf(t.name, env, { startable: true }).available).map((t) => t.name)
}

/**
 * The routes that prove a runtime ready: one per transport available here.
 * @param {NodeJS.ProcessEnv} [env]
 */
export function readyPaths (env = process.env) {
  return TRANSPORTS.filter((t) => availabilityOf(t.name, env).available).map((t) => routeOf(t.name))
}

/** Every Watt application of the runtime: the entry first, then the services. */
export const APPLICATIONS = Object.freeze([ENTRY.name, ...SERVICES.map((s) => s.name)])

/**
 * The environment variable of every port the runtime opens, with its default:
 * the entry, the metrics server, then each service.
 * @type {readonly { env: string, defaultPort: number, what: string }[]}
 */
export const PORTS = Object.freeze([
  { env: ENTRY.portEnv, defaultPort: ENTRY.defaultPort, what: `entry (${ENTRY.name})` },
  { env: METRICS.portEnv, defaultPort: METRICS.defaultPort, what: 'Prometheus metrics and /ready' },
  ...SERVICES.map((s) => ({ env: s.portEnv, defaultPort: s.defaultPort, what: `${s.name}'s own TCP listener` }))
])

/**
 * @param {string} name
 * @param {string} language
 * @param {string} framework
 * @param {number} defaultPort
 * @returns {ServiceRecord}
 */
function service (name, language, framework, defaultPort) {
  return Object.freeze({ name, language, framework, portEnv: `${name.toUpperCase()}_PORT`, defaultPort })
}

/** @param {TransportRecord[]} records */
function validated (records) {
  const seen = new Set()
  for (const record of records) {
    if (typeof record.name !== 'string' || !/^[a-z][a-z0-9-]*$/.test(record.name)) throw new TypeError(`transport name ${JSON.stringify(record.name)} must be lower-case letters, digits and dashes`)
    if (seen.has(record.name)) throw new TypeError(`transport ${record.name} is registered twice`)
    seen.add(record.name)
    if (typeof record.description !== 'string' || record.description.includes('\n')) throw new TypeError(`transport ${record.name} needs a one-line description`)
    if (typeof record.crossesThreads !== 'boolean' || typeof record.http !== 'boolean') throw new TypeError(`transport ${record.name} must say crossesThreads and http (booleans)`)
  }
  return records
}
