// @ts-check
// A request sent over one link: counted where it goes (the link's calls and tally; its load in the view) and
// handed to the link's Pool. With a route to resend through, a GET, HEAD or OPTIONS without a body may go once
// more: to another worker if its own dies before any byte of the answer, and to the mesh if its stopping worker
// refused it and no worker was linked to take it (route.js resend).
import { ChannelError, CODES } from '../errors.js'
import { countCall } from './links.js'
import { OldApiView, poolHandler } from './pool-handler.js'

/**
 * @param {import('./links.js').Link} link
 * @param {import('undici').Dispatcher.DispatchOptions} opts
 * @param {any} handler  a compose()d handler (either undici handler API)
 * @param {import('./route.js').ApplicationRoute | null} resend  null: the caller's `retry: false`
 * @param {import('undici').Dispatcher['dispatch']} [mesh]  the dispatch after the drop-in's (Watt's mesh)
 */
export function sendOver (link, opts, handler, resend, mesh) {
  const view = poolHandler(handler, link)
  if (resend !== null && view instanceof OldApiView && idempotent(opts)) view.resendVia(resend, opts, mesh ?? null)
  return dispatchOn(link, opts, view)
}

/**
 * @param {import('./links.js').Link} link
 * @param {import('undici').Dispatcher.DispatchOptions} opts
 * @param {OldApiView | import('./pool-handler.js').NewApiView} view
 */
export function dispatchOn (link, opts, view) {
  countCall(link)
  return link.pool.dispatch(opts, /** @type {any} */ (view))
}

/**
 * Safe to send again: an upgrade is not (its handshake may have been taken, and its bytes are never replayed).
 * @param {import('undici').Dispatcher.DispatchOptions} opts
 */
function idempotent (opts) {
  const safe = opts.method === 'GET' || opts.method === 'HEAD' || opts.method === 'OPTIONS'
  return safe && opts.body == null && !opts.upgrade
}

/**
 * A GET, HEAD or OPTIONS without a body that no worker served goes once more (false: it stays failed):
 * - its worker died before any byte of the answer (CLOSED): to another live worker of `route`, if one is linked;
 * - its stopping worker refused it (REFUSED), after the connection waited RELOCATE_WAIT_MS for another worker
 *   and none was linked (a hot reload stops every worker first): to the mesh, where a new request goes now,
 *   so the gap fails as it does without the drop-in ("No target found"), or a worker the mesh knows answers.
 * @param {import('./route.js').ApplicationRoute} route
 * @param {OldApiView} view
 * @param {Error} err
 */
export function resendElsewhere (route, view, err) {
  if (!(err instanceof ChannelError)) return false
  const from = /** @type {import('./links.js').Link} */ (view.link)
  if (err.code === CODES.CLOSED) {
    const to = route.linked.other(from)
    if (to === null) return false
    route.retried('crashed', from, to)
    view.moveTo(to)
    dispatchOn(to, /** @type {any} */ (view.opts), view)
    return true
  }
  if (err.code !== CODES.REFUSED || view.mesh === null) return false
  const mesh = view.mesh
  route.countMesh()
  view.settle()
  // The mesh may throw as it is called (undici-thread-interceptor's "No target found"): its
  // caller, here a socket's close, is no request's, so the error goes to the handler.
  try {
    mesh(/** @type {any} */ (view.opts), /** @type {any} */ (view))
  } catch (thrown) {
    view.onError(/** @type {Error} */ (thrown))
  }
  return true
}
