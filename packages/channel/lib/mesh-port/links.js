// @ts-check
// The links from one calling thread to one target's workers: a port (its mux) and a pool
// over it per worker. A link leaves when its worker exits (its port closes), stops (GOAWAY)
// or the target falls back to the mesh; the route is told, to look for a replacement.
import { ChannelError, CODES } from '../errors.js'
import { PortPool } from '../http/dispatcher.js'
import { PortMux } from '../wire/port-mux.js'
import { DEFAULT_WINDOW } from '../wire/signals.js'
import { tally } from './metrics.js'
import { unwatched } from './stall.js'

/**
 * @typedef {object} Link
 * @property {number} thread
 * @property {number} worker
 * @property {PortPool} pool
 * @property {PortMux} mux  the link's port
 * @property {number} calls   requests sent over it (the share each worker got)
 * @property {number} inFlight requests sent over it and not yet answered, failed or upgraded (pool-handler.js)
 * @property {number} sockets  upgraded connections (WebSockets) open over it (pool-handler.js)
 * @property {import('./metrics.js').Tally} tally
 * @property {number} heard        mux.heard when last looked at (stall.js)
 * @property {number} callsHeard   calls when it was last heard from
 * @property {number} silentSince  when it was first seen owing an answer (0: it owes none)
 * @property {number} pingedAt     when it was pinged in this silence (0: not yet)
 * @property {boolean} stalled     the ping unanswered for STALL_MS too: passed over
 * @property {number} stalls       times it was found stalled
 */

/**
 * @typedef {object} LinkOptions
 * @property {number | null} connections  per worker (null: no bound)
 * @property {number} [window]
 * @property {Omit<import('undici').Pool.Options, 'connect' | 'connections'>} pool
 * @property {import('./log.js').Log} log
 */

/**
 * What the links tell the route.
 * @typedef {object} LinkEvents
 * @property {(link: Link) => void} left  out of the rotation (dropped, released or retired)
 * @property {(link: Link) => void} retired  its worker is stopping: its replacement is to be linked
 * @property {(link: Link, why: 'refused' | 'crashed') => Promise<PortMux | null>} relocate
 *   where a request the link's worker did not serve may go instead
 */

/**
 * A request goes over `link` (a first send, a resend or a move): the share its worker got, and the counter.
 * @param {Link} link
 */
export function countCall (link) {
  link.calls++
  link.tally.count++
}

export class WorkerLinks {
  /**
   * @param {string} application
   * @param {LinkOptions} options
   * @param {LinkEvents} events
   */
  constructor (application, options, events) {
    this.application = application
    this.options = options
    this.events = events
    /** @type {Link[]} replaced on each change, never changed in place: a loop over it is not disturbed */
    this.all = []
  }

  /** @param {number} thread */
  has (thread) {
    return this.all.some((l) => l.thread === thread)
  }

  /**
   * @param {number} thread
   * @param {number} worker
   * @param {import('node:worker_threads').MessagePort} port
   * @returns {Link}
   */
  add (thread, worker, port) {
    const { application, options } = this
    /** @type {Link} */
    const link = /** @type {any} */ ({
      thread, worker, calls: 0, inFlight: 0, sockets: 0, tally: tally(application, 'http-port', worker), ...unwatched()
    })
    link.mux = new PortMux(port, {
      peer: application,
      // The worker exited or crashed: its in-flight requests have failed at once
      // (WATT_CHANNEL_CLOSED); no new one goes there.
      onClose: () => this.drop(link, 'its port closed'),
      // The worker is stopping: no new request goes there, those in flight finish.
      onGoAway: () => this.retire(link),
      // A request the stopping worker refused goes to another one.
      relocate: (why) => this.events.relocate(link, why)
    })
    const mux = link.mux
    link.pool = new PortPool(`http://${application}.plt.local`, async () => mux, {
      application,
      connections: options.connections,
      window: options.window ?? DEFAULT_WINDOW,
      pool: options.pool
    })
    this.all = [...this.all, link]
    return link
  }

  /**
   * @param {Link} link
   * @param {string} why
   */
  drop (link, why) {
    if (!this.leave(link)) return
    // Queued requests not yet on a connection fail too, naming the application.
    const gone = new ChannelError(this.application, CODES.CLOSED, `worker ${link.worker} is gone (${why})`)
    link.pool.destroy(gone).catch(() => {})
    link.mux.close()
    this.options.log.info(`mesh-port: ${this.application} worker ${link.worker} dropped: ${why}`)
  }

  /**
   * Out of the rotation now; its pool closes once its requests are done (the
   * port's close still fails any left when the worker exits), and the route looks
   * at the workers again for the replacement.
   * @param {Link} link
   */
  retire (link) {
    if (!this.release(link)) return
    this.options.log.info(`mesh-port: ${this.application} worker ${link.worker} is stopping: no new requests to it`)
    this.events.retired(link)
  }

  /**
   * Out of the rotation; those in flight finish on it, then its pool closes, and its port once the
   * WebSockets open over it have closed too (the app or the worker's end closes them, not this).
   * @param {Link} link
   * @returns {boolean} whether it was in the rotation
   */
  release (link) {
    if (!this.leave(link)) return false
    link.pool.close().catch(() => {}).finally(() => link.mux.closeWhenIdle())
    return true
  }

  /**
   * A live worker's link other than `from`, the least loaded (null: none now).
   * @param {Link} from
   * @returns {Link | null}
   */
  other (from) {
    /** @type {Link | null} */
    let best = null
    for (const link of this.all) {
      if (link === from || link.mux.closed || link.stalled) continue
      if (best === null || link.inFlight < best.inFlight) best = link
    }
    return best
  }

  /**
   * @param {Link} link
   * @returns {boolean} whether it was in the rotation
   */
  leave (link) {
    if (!this.all.includes(link)) return false
    this.all = this.all.filter((l) => l !== link)
    this.events.left(link)
    return true
  }
}
