// @ts-check
// The drop-in: an undici interceptor that Watt composes in front of its mesh in every worker. Requests to
// http://<app>.plt.local go over http-port to the app's own http.Server, one link per worker; the rest fall
// through to the mesh. The same factory installs the callee side, so one config entry serves both ends.
import { configuredApplications, workerApplicationId } from '../watt/globals.js'
import { installCallee } from './callee.js'
import { workerLog } from './log.js'
import { ChannelError, CODES } from '../errors.js'
import { OldApiView, poolHandler } from './pool-handler.js'
import { meshPortOptions } from './options.js'
import { ApplicationRoute } from './route.js'
import { checkSupport, standAside } from './support.js'
import { WorkerDirectory } from './workers.js'

const MESH_DOMAIN = '.plt.local'

/** @typedef {import('./options.js').MeshPortOptions} MeshPortOptions */

/** @type {Map<string, ApplicationRoute>} */
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
  const { connections, window, pool, exclude, retry, wire, flush } = meshPortOptions(options)
  const support = checkSupport()
  if (!support.supported) return standAside(support, workerLog())
  const log = workerLog()
  installCallee({ window, log })

  const known = applicationIds()
  directory ??= new WorkerDirectory((application) => routes.get(application)?.workersChanged())
  const workers = directory
  const caller = String(workerApplicationId() ?? 'caller')
  /** @type {Map<string, ApplicationRoute | null>} */
  const byOrigin = new Map()

  /** @param {unknown} origin */
  const routeOf = (origin) => {
    const text = typeof origin === 'string' ? origin : String(origin ?? '')
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
        if (known.has(application) || workers.named(application)) {
          route = routes.get(application) ??
            new ApplicationRoute(application, { connections, window, pool, workers, log, caller, wire, flush })
          routes.set(application, route)
        } else settled = false
      }
    } catch {}
    if (settled && byOrigin.size < 1024) byOrigin.set(text, route)
    return route
  }

  return (dispatch) => function meshPortDispatch (opts, handler) {
    const route = opts.origin ? routeOf(opts.origin) : null
    if (route === null) return dispatch(opts, handler)
    // Upgrades (WebSocket, CONNECT) stay on the mesh, which fails them at once: over http-port
    // the caller got its 101 and socket, and its WebSocket then hung (test/mesh-port/gateway.test.js).
    if (opts.upgrade || opts.method === 'CONNECT') { route.countMesh(); return dispatch(opts, handler) }
    const link = route.next()
    if (link !== null) return sendOver(link, opts, handler, retry ? route : null)
    if (route.onMesh) {
      route.countMesh()
      return dispatch(opts, handler)
    }
    // First contact, or a worker change under way: wait for the handshake rather
    // than mix paths. (An Express app the mesh has injected into once cannot serve
    // real HTTP any more: light-my-request rewires Express's request prototypes.)
    route.refresh().then(() => {
      const linked = route.next()
      if (linked !== null) return sendOver(linked, opts, handler, retry ? route : null)
      route.countMesh()
      dispatch(opts, handler)
    }).catch((err) => failHandler(handler, err))
    return true
  }
}

/**
 * @param {import('./route.js').Link} link
 * @param {import('undici').Dispatcher.DispatchOptions} opts
 * @param {any} handler
 * @param {ApplicationRoute | null} [route]  to send the request again through if its worker dies first
 */
function sendOver (link, opts, handler, route = null) {
  link.calls++
  const view = poolHandler(handler, link)
  if (route !== null && view instanceof OldApiView && idempotent(opts)) {
    view.again = (err) => sendAgain(route, link, opts, view, err)
  }
  return dispatchOn(link, opts, view)
}

/**
 * Over the link's frames wire when it has one and it can carry the request, its HTTP wire otherwise.
 * @param {import('./route.js').Link} link
 * @param {import('undici').Dispatcher.DispatchOptions} opts
 * @param {ReturnType<typeof poolHandler>} view
 */
function dispatchOn (link, opts, view) {
  if (link.frames !== undefined && link.frames.dispatch(opts, view)) return true
  link.tally.count++
  return link.pool.dispatch(opts, /** @type {any} */ (view))
}

/**
 * A request whose worker died before any byte of its answer arrived goes, once, to
 * another live worker: only GET, HEAD and OPTIONS without a body (the caller's
 * `retry: false` turns it off).
 * @param {ApplicationRoute} route
 * @param {import('./route.js').Link} from
 * @param {import('undici').Dispatcher.DispatchOptions} opts
 * @param {import('./pool-handler.js').OldApiView} view
 * @param {Error} err
 */
function sendAgain (route, from, opts, view, err) {
  view.again = null
  if (!(err instanceof ChannelError) || err.code !== CODES.CLOSED) return false
  const to = route.other(from)
  if (to === null) return false
  route.retried('crashed', from, to)
  view.moveTo(to)
  to.tally.count-- // retried() counted it; dispatchOn counts it again by its wire
  dispatchOn(to, opts, view)
  return true
}

/** @param {import('undici').Dispatcher.DispatchOptions} opts */
function idempotent (opts) {
  const safe = opts.method === 'GET' || opts.method === 'HEAD' || opts.method === 'OPTIONS'
  return safe && opts.body == null && !opts.upgrade
}

/**
 * Reports an error to a handler of either undici handler API.
 * @param {any} handler
 * @param {Error} err
 */
function failHandler (handler, err) {
  if (typeof handler.onResponseError === 'function') handler.onResponseError(null, err)
  else handler.onError?.(err)
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
 * @property {{ worker: number, thread: number, calls: number, stalled: boolean, stalls: number }[]} workers
 *   one link per target worker: requests over it, passed over now as silent, how often it was
 */

/** @typedef {Record<string, MeshPortTargetStats>} MeshPortStats  by target application id */

/**
 * What this thread's drop-in did so far, per target application: the path it
 * takes now, why it falls back if it does, requests over the mesh and per worker
 * (with whether it is passed over now as silent, and how often it was).
 * @returns {MeshPortStats}
 */
export function meshPortStats () {
  /** @type {ReturnType<typeof meshPortStats>} */
  const out = {}
  for (const [application, route] of routes) {
    out[application] = {
      path: route.mode,
      reason: route.reason,
      meshCalls: route.meshCalls,
      workers: route.links.map((l) => ({
        worker: l.worker, thread: l.thread, calls: l.calls, stalled: l.stalled, stalls: l.stalls
      }))
    }
  }
  return out
}
