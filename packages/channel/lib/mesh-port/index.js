// @ts-check
// The drop-in: an undici interceptor that Watt composes in front of its mesh in every worker. Requests to
// http://<app>.plt.local go over http-port to the app's own http.Server, one link per worker; the rest fall
// through to the mesh. The same factory installs the callee side, so one config entry serves both ends.
import { ChannelError, CODES } from '../errors.js'
import { configuredApplications, workerApplicationId } from '../watt/globals.js'
import { installCallee } from './callee.js'
import { workerLog } from './log.js'
import { meshPortOptions } from './options.js'
import { failHandler } from './pool-handler.js'
import { ApplicationRoute } from './route.js'
import { sendOver } from './send.js'
import { checkSupport, standAside } from './support.js'
import { WorkerDirectory } from './workers.js'

const MESH_DOMAIN = '.plt.local'
/** Origins kept in the scan before the map (routeOf): a runtime's targets, most of the time. */
const FIRST_ORIGINS = 8

/** @typedef {import('./options.js').MeshPortOptions} MeshPortOptions */

/**
 * This thread's routes, by target application: one per set of link options, so that each factory
 * call of a thread (a second dispatcher with other options) gets its own.
 * @type {Map<string, Map<string, ApplicationRoute>>}
 */
const routes = new Map()
/** @type {WorkerDirectory | null} */
let directory = null

/**
 * Watt calls this once per worker with the config's `options`.
 * @param {MeshPortOptions} [options]
 * @returns {import('undici').Dispatcher.DispatcherComposeInterceptor}
 */
export default function createMeshPortInterceptor (options = {}) {
  // checked first: a bad config is reported on every Watt, supported or not
  const { connections, window, pool, exclude, retry } = meshPortOptions(options)
  const support = checkSupport()
  if (!support.supported) return standAside(support, workerLog())
  const log = workerLog()
  installCallee({ log })

  const known = applicationIds()
  directory ??= new WorkerDirectory((application) => {
    for (const route of routes.get(application)?.values() ?? []) route.workersChanged()
  })
  const workers = directory
  const caller = String(workerApplicationId() ?? 'caller')
  const linkOptions = { connections, window, pool, workers, log, caller }
  const optionsKey = JSON.stringify({ connections, window, pool })
  /** @type {Map<string, ApplicationRoute | null>} */
  const byOrigin = new Map()
  /**
   * The origins seen first, scanned before the map: undici hands each request a new origin string
   * (URL's getter, a concatenation), which the map flattens and hashes at each lookup (D-57-one-wire).
   * @type {string[]}
   */
  const firstOrigins = []
  /** @type {(ApplicationRoute | null)[]} */
  const firstRoutes = []

  /** @param {string} application */
  const routeFor = (application) => {
    let mine = routes.get(application)
    if (mine === undefined) routes.set(application, (mine = new Map()))
    let route = mine.get(optionsKey)
    if (route === undefined) mine.set(optionsKey, (route = new ApplicationRoute(application, linkOptions)))
    return route
  }

  /** @param {unknown} origin */
  const routeOf = (origin) => {
    const text = typeof origin === 'string' ? origin : String(origin ?? '')
    for (let i = 0; i < firstOrigins.length; i++) if (firstOrigins[i] === text) return firstRoutes[i]
    let route = byOrigin.get(text)
    if (route !== undefined) return route
    route = null
    let settled = true
    try {
      const url = new URL(text)
      const application = url.hostname.endsWith(MESH_DOMAIN) ? url.hostname.slice(0, -MESH_DOMAIN.length) : ''
      if (url.protocol === 'http:' && application !== '' && !exclude.includes(application)) {
        // Configured, or added through the management API once its workers were broadcast. Other
        // *.plt.local hosts are left to the mesh, which fails them its own way; not remembered, as
        // an application added later may take that name.
        if (known.has(application) || workers.named(application)) route = routeFor(application)
        else settled = false
      }
    } catch {}
    if (settled && firstOrigins.length < FIRST_ORIGINS) { firstOrigins.push(text); firstRoutes.push(route) }
    if (settled && byOrigin.size < 1024) byOrigin.set(text, route)
    return route
  }

  return (dispatch) => function meshPortDispatch (opts, handler) {
    const route = opts.origin ? routeOf(opts.origin) : null
    if (route === null) return dispatch(opts, handler)
    if (opts.method === 'CONNECT') {
      // A tunnel has no 101 to tell its bytes from a request's, so a stopping worker's drain could
      // refuse them; the mesh fails it too.
      failHandler(handler, new ChannelError(route.application, CODES.UNSUPPORTED,
        'CONNECT is not carried between applications: a tunnel needs a TCP listener'))
      return true
    }
    // An upgrade (a WebSocket) goes over http-port as a request does, to the app's 'upgrade' event.
    const upgrade = opts.upgrade != null
    const resend = retry ? route : null
    const link = upgrade ? route.nextUpgrade() : route.next()
    if (link !== null) return sendOver(link, opts, handler, resend, dispatch)
    if (route.onMesh) {
      route.countMesh()
      return dispatch(opts, handler)
    }
    // First contact, or a worker change under way: wait for the handshake rather
    // than mix paths. (An Express app the mesh has injected into once cannot serve
    // real HTTP any more: light-my-request rewires Express's request prototypes.)
    route.refresh().then(() => {
      const linked = upgrade ? route.nextUpgrade() : route.next()
      if (linked !== null) return sendOver(linked, opts, handler, resend, dispatch)
      route.countMesh()
      dispatch(opts, handler)
    }).catch((err) => failHandler(handler, err))
    return true
  }
}

/** The runtime's application ids (the mesh's hosts), from the worker's config. */
function applicationIds () {
  return new Set((configuredApplications() ?? []).map((a) => String(a?.id)))
}

/**
 * One target application in meshPortStats().
 * @typedef {object} MeshPortTargetStats
 * @property {string} path  'http-port', 'mesh' (refused: see reason), 'waiting' (no worker started yet)
 *   or 'unknown' (not looked at yet)
 * @property {string} reason  why the target is on the mesh ('' otherwise)
 * @property {number} meshCalls  requests this thread left to the mesh
 * @property {MeshPortWorkerStats[]} workers  one link per target worker
 */

/**
 * @typedef {object} MeshPortWorkerStats
 * @property {number} worker  the target worker's index
 * @property {number} thread  its thread id
 * @property {number} calls  requests over the link (upgrades included)
 * @property {number} sockets  WebSockets (upgraded connections) open over it now
 * @property {boolean} stalled  passed over now as silent
 * @property {number} stalls  how often it was
 */

/** @typedef {Record<string, MeshPortTargetStats>} MeshPortStats  by target application id */

/**
 * What this thread's drop-in did so far, per target application: the path it
 * takes now, why it falls back if it does, requests over the mesh and per worker
 * (with whether it is passed over now as silent, and how often it was). With two
 * dispatchers of other options in the thread, the first one's path, and both's calls.
 * @returns {MeshPortStats}
 */
export function meshPortStats () {
  /** @type {ReturnType<typeof meshPortStats>} */
  const out = {}
  for (const [application, byOptions] of routes) {
    for (const route of byOptions.values()) {
      const seen = out[application] ??= { path: route.mode, reason: route.reason, meshCalls: 0, workers: [] }
      seen.meshCalls += route.meshCalls
      for (const l of route.links) {
        const { worker, thread, calls, sockets, stalled, stalls } = l
        seen.workers.push({ worker, thread, calls, sockets, stalled, stalls })
      }
    }
  }
  return out
}
