// @ts-check
// A request sent over one link: counted where it goes (the link's calls and tally; its load in the view) and
// handed to the link's Pool. With a route to resend through, a GET, HEAD or OPTIONS without a body may go once
// more to another worker if its own dies before any byte of the answer (route.js resend).
import { ChannelError, CODES } from '../errors.js'
import { countCall } from './links.js'
import { OldApiView, poolHandler } from './pool-handler.js'

/**
 * @param {import('./links.js').Link} link
 * @param {import('undici').Dispatcher.DispatchOptions} opts
 * @param {any} handler  a compose()d handler (either undici handler API)
 * @param {import('./route.js').ApplicationRoute | null} resend  null: the caller's `retry: false`
 */
export function sendOver (link, opts, handler, resend) {
  const view = poolHandler(handler, link)
  if (resend !== null && view instanceof OldApiView && idempotent(opts)) view.resendVia(resend, opts)
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
 * A GET, HEAD or OPTIONS without a body whose worker died before any byte of its answer goes to
 * another live worker of `route` (false: not a death, or none to take it).
 * @param {import('./route.js').ApplicationRoute} route
 * @param {OldApiView} view
 * @param {Error} err
 */
export function resendElsewhere (route, view, err) {
  if (!(err instanceof ChannelError) || err.code !== CODES.CLOSED) return false
  const from = /** @type {import('./links.js').Link} */ (view.link)
  const to = route.linked.other(from)
  if (to === null) return false
  route.retried('crashed', from, to)
  view.moveTo(to)
  dispatchOn(to, /** @type {any} */ (view.opts), view)
  return true
}
