// @ts-check
// A request sent over one link: counted where it goes (the link's calls and tally; its load in the view) and
// handed to the link's Pool. With a route to resend through, a GET, HEAD or OPTIONS without a body may go once
// more to another worker if its own dies before any byte of the answer (route.js resend).
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
