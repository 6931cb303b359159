// @ts-check
// One target application as seen from one calling thread: an http-port link (a port and a pool
// over it) per started worker, or the reason it falls back to Watt's mesh. While no link is open
// (first contact, a restart in progress, a refusal) requests take the mesh or wait for the look.
import { choose, kept, NO_HOLD, without } from './balancer.js'
import { ChannelError, CODES } from '../errors.js'
import { poolOverSessions } from '../http/dispatcher.js'
import { PortSession } from '../http/session.js'
import { MESH_PORT_KIND } from './callee.js'
import { FramesClient } from './frames/client.js'
import { retryTally, tally } from './metrics.js'
import { refusal } from './refusal.js'
import { survey, unwatched } from './stall.js'
import { handshakeWorker } from './worker-handshake.js'

export { HOLD_MS, HOLD_SLACK, SPREAD } from './balancer.js'
export { STALL_MS } from './stall.js'

/**
 * @typedef {object} Link
 * @property {number} thread
 * @property {number} worker
 * @property {import('undici').Pool} pool
 * @property {PortSession} session
 * @property {number} calls   requests sent over it (the share each worker got)
 * @property {number} inFlight requests sent over it and not yet answered, failed or upgraded (pool-handler.js)
 * @property {import('./metrics.js').Tally} tally
 * @property {number} heard        session.heard when last looked at (stall.js)
 * @property {number} callsHeard   calls when it was last heard from
 * @property {number} silentSince  when it was first seen owing an answer (0: it owes none)
 * @property {number} pingedAt     when it was pinged in this silence (0: not yet)
 * @property {boolean} stalled     the ping unanswered for STALL_MS too: passed over
 * @property {number} stalls       times it was found stalled
 * @property {import('./frames/client.js').FramesClient} [frames]  the frames wire over the same session (wire: 'frames')
 */

/**
 * @typedef {object} RouteOptions
 * @property {number} connections  per worker
 * @property {number} [window]
 * @property {Omit<import('undici').Pool.Options, 'connect' | 'connections'>} pool
 * @property {import('./workers.js').WorkerDirectory} workers
 * @property {import('./log.js').Log} log
 * @property {string} caller
 * @property {'http' | 'frames'} [wire]  'frames': requests go as frames where they can (frames/), the HTTP wire otherwise
 * @property {import('../http/session.js').Flush} [flush]  both ends of each link flush so (the callee reads it from the handshake)
 */

export class ApplicationRoute {
  /**
   * @param {string} application
   * @param {RouteOptions} options
   */
  constructor (application, options) {
    this.application = application
    this.options = options
    /** @type {Link[]} */
    this.links = []
    /** 'unknown' until the first look; then 'http-port', 'mesh' (refused) or 'waiting' (no worker yet) */
    this.mode = 'unknown'
    this.reason = ''
    /** @type {Promise<void> | null} */
    this.refreshing = null
    this.again = false
    this.meshCalls = 0
    /** Looks again while a started worker has no link (a handshake failed without a refusal). */
    this.retries = 0
    /** @type {NodeJS.Timeout | null} */
    this.retryTimer = null
    /** @type {import('./metrics.js').Tally | null} */
    this.meshTally = null
    /** @type {import('./balancer.js').Hold<Link>} the link held and since when (balancer.js) */
    this.hold = NO_HOLD
    /** a request of this turn was routed (reset by setImmediate at the turn's end) */
    this.inTurn = false
    this.endTurn = () => { this.inTurn = false }
    /** @type {import('./stall.js').StallEvents<Link>} */
    this.watch = {
      ping: (link) => link.session.ping(),
      stalled: (link, silentMs) => this.options.log.info(`mesh-port: ${this.application} worker ${link.worker} ` +
        `has not answered for ${Math.round(silentMs)} ms, nor a ping: no new requests to it until it does`),
      answers: (link) => this.options.log.info(`mesh-port: ${this.application} worker ${link.worker} answers again`)
    }
  }

  /** A request goes over the mesh. */
  countMesh () {
    this.meshCalls++
    ;(this.meshTally ??= tally(this.application, 'mesh', null)).count++
  }

  /**
   * The link for the next request, or null for the mesh (and a look starts if none ran).
   * @returns {Link | null}
   */
  next () {
    const links = this.links
    if (links.length === 0) {
      if (this.mode === 'unknown') this.refresh()
      return null
    }
    if (links.length === 1) return links[0]
    const inTurn = this.inTurn
    const held = inTurn ? kept(this.hold) : null // most requests: no clock, no look at loads
    if (held !== null) return (this.hold = held).held
    const now = performance.now()
    if (!inTurn) {
      survey(links, now, this.watch) // once a turn, before the turn's worker is picked
      this.inTurn = true
      setImmediate(this.endTurn)
    }
    this.hold = choose(this.links, this.hold, now, inTurn)
    return this.hold.held
  }

  /** Re-reads the workers and opens links to those without one; one look at a time. */
  refresh () {
    if (this.refreshing) {
      this.again = true
      return this.refreshing
    }
    this.refreshing = this.look().catch((err) => {
      this.options.log.warn(`mesh-port: ${this.application}: ${err.message}`)
    }).finally(() => {
      this.refreshing = null
      if (this.again) {
        this.again = false
        this.refresh()
      }
    })
    return this.refreshing
  }

  async look () {
    const { workers, log, caller } = this.options
    // Asked afresh each time (the runtime's own list): links are dropped by their
    // port (exit) or a GOAWAY (stop), never from a list that may be stale.
    const live = await workers.ask(this.application)
    const missing = () => live.filter((w) => !this.links.some((l) => l.thread === w.thread))
    for (const target of missing()) {
      let opened
      try {
        opened = await handshakeWorker({ caller, application: this.application, worker: target.worker, kind: MESH_PORT_KIND, meta: this.handshakeMeta() })
      } catch (err) {
        const why = refusal(/** @type {Error} */ (err))
        if (why.outcome === 'stopping') continue // on its way out: its replacement comes with the next change
        if (why.outcome === 'refused') return this.fallBack(why.reason)
        // Not a refusal (the worker went away meanwhile, a timeout): the mesh meanwhile if
        // nothing is linked, and a look again shortly.
        log.info(`mesh-port: ${this.application}: handshake with worker ${target.worker} failed (${why.reason}); looking again`)
        continue
      }
      const thread = Number(opened.answer.thread)
      if (this.links.some((l) => l.thread === thread)) {
        opened.port.close()
        continue
      }
      this.add(thread, Number(opened.answer.worker), opened.port)
    }
    if (missing().length > 0 && this.retries < MAX_RETRIES) {
      this.retries++
      if (this.retryTimer) clearTimeout(this.retryTimer)
      this.retryTimer = setTimeout(() => this.refresh(), 50 * this.retries).unref()
    }
    if (this.links.length === 0) {
      this.mode = 'waiting' // no worker started yet: look again when the workers change
      return
    }
    if (this.mode !== 'http-port') log.info(`mesh-port: ${this.application} over http-port (${this.links.length} worker${this.links.length === 1 ? '' : 's'})`)
    this.mode = 'http-port'
    this.reason = ''
  }

  /** What the callee is told of the link: who calls, and the wire and flush it is to use. */
  handshakeMeta () {
    const { caller, wire, flush } = this.options
    return { caller, ...(wire === 'frames' ? { wire } : {}), ...(flush === 'callback' ? { flush } : {}) }
  }

  /**
   * @param {number} thread
   * @param {number} worker
   * @param {import('node:worker_threads').MessagePort} port
   */
  add (thread, worker, port) {
    const { application } = this
    const wireTally = tally(application, 'http-port', worker, this.options.wire === 'frames' ? 'http' : undefined)
    /** @type {Link} */
    const link = /** @type {any} */ ({ thread, worker, calls: 0, inFlight: 0, tally: wireTally, ...unwatched() })
    link.session = new PortSession(port, {
      application,
      flush: this.options.flush,
      // The worker exited or crashed: its in-flight requests have failed at once
      // (WATT_CHANNEL_CLOSED); no new one goes there.
      onClose: () => this.drop(link, 'its port closed'),
      // The worker is stopping: no new request goes there, those in flight finish.
      onGoAway: () => this.retire(link),
      // A request the stopping worker refused goes to another one.
      relocate: (why) => this.relocate(link, why)
    })
    const session = link.session
    link.pool = poolOverSessions(`http://${application}.plt.local`, async () => session, {
      application,
      connections: this.options.connections,
      window: this.options.window,
      pool: this.options.pool
    })
    if (this.options.wire === 'frames') link.frames = new FramesClient(session, { application, window: this.options.window, tally: tally(application, 'http-port', worker, 'frames'), link, pool: link.pool })
    this.links = [...this.links, link]
  }

  /**
   * @param {Link} link
   * @param {string} why
   */
  drop (link, why) {
    if (!this.links.includes(link)) return
    this.links = this.links.filter((l) => l !== link)
    this.hold = without(this.hold, link)
    // Queued requests not yet on a connection fail too, naming the application.
    link.pool.destroy(new ChannelError(this.application, CODES.CLOSED, `worker ${link.worker} is gone (${why})`)).catch(() => {})
    link.session.close()
    this.options.log.info(`mesh-port: ${this.application} worker ${link.worker} dropped: ${why}`)
  }

  /**
   * Out of the rotation now; its pool closes once its requests are done (the
   * port's close still fails any left when the worker exits), and the workers
   * are looked at again for the replacement.
   * @param {Link} link
   */
  retire (link) {
    if (!this.release(link)) return
    this.options.log.info(`mesh-port: ${this.application} worker ${link.worker} is stopping: no new requests to it`)
    this.retries = 0
    this.refresh()
  }

  /**
   * Out of the rotation; those in flight finish on it, then its pool and port close.
   * @param {Link} link
   * @returns {boolean} whether it was in the rotation
   */
  release (link) {
    if (!this.links.includes(link)) return false
    this.links = this.links.filter((l) => l !== link)
    this.hold = without(this.hold, link)
    link.pool.close().catch(() => {}).finally(() => link.session.close())
    return true
  }

  /**
   * The session of a live worker other than `from`'s for a request to move to, once
   * one is linked (a restart starts the new worker first, but this thread may not have
   * linked it yet): null after RELOCATE_WAIT_MS without one.
   * @param {Link} from
   * @param {'refused' | 'crashed'} why
   * @returns {Promise<PortSession | null>}
   */
  async relocate (from, why) {
    const deadline = performance.now() + RELOCATE_WAIT_MS
    while (true) {
      const to = this.other(from)
      if (to !== null) {
        this.retried(why, from, to)
        return to.session
      }
      if (performance.now() >= deadline || this.mode === 'mesh') return null
      await Promise.race([this.refresh(), new Promise((resolve) => setTimeout(resolve, 20))])
    }
  }

  /**
   * A live worker's link other than `from`, the least loaded (null: none now).
   * @param {Link} from
   * @returns {Link | null}
   */
  other (from) {
    /** @type {Link | null} */
    let best = null
    for (const link of this.links) {
      if (link === from || link.session.closed || link.stalled) continue
      if (best === null || link.inFlight < best.inFlight) best = link
    }
    return best
  }

  /**
   * Counts and logs (debug) a request sent again to another worker: as a request over
   * `to` (each attempt counts where it was sent) and as a retry.
   * @param {'refused' | 'crashed'} why
   * @param {Link} from
   * @param {Link} to
   */
  retried (why, from, to) {
    to.calls++
    to.tally.count++
    retryTally(this.application, why).count++
    this.options.log.debug(`mesh-port: ${this.application}: a request ${why === 'refused' ? 'refused by stopping' : 'unanswered by crashed'} worker ${from.worker} sent again to worker ${to.worker}`)
  }

  /** @param {string} reason */
  fallBack (reason) {
    // The linked workers are alive: what is in flight on them finishes there, new requests take the mesh.
    for (const link of [...this.links]) {
      if (this.release(link)) this.options.log.info(`mesh-port: ${this.application} worker ${link.worker} released: the application falls back to the mesh`)
    }
    if (this.mode !== 'mesh' || this.reason !== reason) this.options.log.info(`mesh-port: ${this.application} over Watt's mesh: ${reason}`)
    this.mode = 'mesh'
    this.reason = reason
  }

  /** The application's workers changed (start, stop, crash, restart): look again, also after a fallback. */
  workersChanged () {
    this.retries = 0
    // Also during the first look: a worker that started meanwhile may be missing from it.
    if (this.mode !== 'unknown' || this.refreshing) this.refresh()
  }

  close () {
    if (this.retryTimer) clearTimeout(this.retryTimer)
    for (const link of [...this.links]) this.drop(link, 'the caller closed')
  }
}

/** Looks again at most this many times (50 ms, 100 ms, …) per change of the workers. */
const MAX_RETRIES = 10

/** How long a request waits for another live worker to move to before it fails. */
export const RELOCATE_WAIT_MS = 2000
