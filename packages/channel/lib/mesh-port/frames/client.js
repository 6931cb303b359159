// @ts-check
// A link's frames wire (caller side): requests it can carry go as frames on the
// link's PortSession; the rest (a handler of undici's new API, bodies undici must
// encode itself, framing headers, a query object, expect-continue) take the link's
// HTTP wire. Each path has its own tally, so the counter says which wire took what.
import { DEFAULT_WINDOW } from '../../http/port-socket.js'
import { STRING_LIMIT } from '../../http/session.js'
import { OldApiView } from '../pool-handler.js'
import { FramesCall } from './call.js'
import { requestHead } from './request-head.js'

export class FramesClient {
  /**
   * @param {import('../../http/session.js').PortSession} session
   * @param {{ application: string, window?: number, tally: import('../metrics.js').Tally }} options
   */
  constructor (session, { application, window = DEFAULT_WINDOW, tally }) {
    this.session = session
    this.options = { application, window }
    this.tally = tally
    /** @type {Map<string, string>} Host header by origin */
    this.hosts = new Map()
  }

  /**
   * Sends the request as frames; false when the HTTP wire must carry it (nothing was done).
   * @param {import('undici').Dispatcher.DispatchOptions} opts
   * @param {unknown} view  poolHandler()'s view of the caller's handler
   * @returns {boolean}
   */
  dispatch (opts, view) {
    if (!(view instanceof OldApiView)) return false
    const outgoing = requestHead(opts, this.host(opts.origin), STRING_LIMIT)
    if (outgoing === null) return false
    this.tally.count++
    new FramesCall(this.session, view, outgoing, this.options).start()
    return true
  }

  /** @param {unknown} origin */
  host (origin) {
    const text = String(origin)
    let host = this.hosts.get(text)
    if (host === undefined) {
      host = new URL(text).host
      if (this.hosts.size < 64) this.hosts.set(text, host)
    }
    return host
  }
}
