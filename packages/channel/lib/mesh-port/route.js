// @ts-check
// One target application as seen from one calling thread: an http-port link per started worker
// (links.js), or the reason it falls back to Watt's mesh. While no link is open (first contact,
// a restart in progress, a refusal) requests take the mesh or wait for the look under way.
import { choose, kept, leastLoaded, NO_HOLD, renewed, without } from './balancer.js'
import { MESH_PORT_KIND } from './callee.js'
import { countCall, WorkerLinks } from './links.js'
import { retryTally, tally } from './metrics.js'
import { refusal } from './refusal.js'
import { resendElsewhere } from './send.js'
import { survey } from './stall.js'
import { handshakeWorker } from './worker-handshake.js'

export { HOLD_MS, HOLD_SLACK, SPREAD } from './balancer.js'
export { STALL_MS } from './stall.js'

/** @typedef {import('./links.js').Link} Link */

/**
 * What the route needs besides what its links do.
 * @typedef {object} RouteOwn
 * @property {import('./workers.js').WorkerDirectory} workers
 * @property {string} caller  this thread's application, named in each handshake
 */

/** @typedef {import('./links.js').LinkOptions & RouteOwn} RouteOptions */

/** Where a target's new requests go: meshPortStats() reports it as its `path`. */
export const MODES = Object.freeze({
  /** not looked at yet: the first requests wait for the first look */
  UNKNOWN: 'unknown',
  /** over the links (none while a worker change is under way: requests wait for the look) */
  HTTP_PORT: 'http-port',
  /** a worker refused the drop-in (`reason` says why): the mesh until the workers change */
  MESH: 'mesh',
  /** no worker started yet: the mesh until the workers change */
  WAITING: 'waiting'
})

/** @typedef {typeof MODES[keyof typeof MODES]} Mode */

/** Looks again at most this many times (50 ms, 100 ms, …) per change of the workers. */
const MAX_RETRIES = 10

/** How long a request waits for another live worker to move to before it fails. */
export const RELOCATE_WAIT_MS = 2000

export class ApplicationRoute {
  /** @type {Mode} */
  #mode = MODES.UNKNOWN
  #reason = ''

  /**
   * @param {string} application
   * @param {RouteOptions} options
   */
  constructor (application, options) {
    this.application = application
    this.options = options
    this.linked = new WorkerLinks(application, options, {
      left: (link) => { this.hold = without(this.hold, link) },
      // The stopping worker's replacement is linked once the look finds it started.
      retired: () => { this.retries = 0; this.refresh() },
      relocate: (link, why) => this.relocate(link, why)
    })
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
    /** upgrades routed so far: where the search for the fewest sockets starts */
    this.upgrades = 0
    /** a request of this turn was routed (reset by setImmediate at the turn's end) */
    this.inTurn = false
    this.endTurn = () => { this.inTurn = false }
    /** @type {import('./stall.js').StallEvents<Link>} */
    this.watch = {
      ping: (link) => link.mux.ping(),
      stalled: (link, silentMs) => this.options.log.info(`mesh-port: ${this.application} worker ${link.worker} ` +
        `has not answered for ${Math.round(silentMs)} ms, nor a ping: no new requests to it until it does`),
      answers: (link) => this.options.log.info(`mesh-port: ${this.application} worker ${link.worker} answers again`)
    }
  }

  /** The links taking requests now: replaced on each change, never changed in place. */
  get links () {
    return this.linked.all
  }

  /** Where new requests go: changed by enter() alone. */
  get mode () {
    return this.#mode
  }

  /** Why it is on the mesh ('' over http-port). */
  get reason () {
    return this.#reason
  }

  /** New requests take the mesh without waiting for a look: refused, or no worker started yet. */
  get onMesh () {
    return this.mode === MODES.MESH || this.mode === MODES.WAITING
  }

  /**
   * The one place the mode changes; each change is logged, at info the lines the README quotes.
   * @param {Mode} mode
   * @param {string} [reason]  MESH: why; WAITING keeps the last reason, HTTP_PORT clears it
   */
  enter (mode, reason = '') {
    const { log } = this.options
    const was = this.#mode
    if (mode === MODES.HTTP_PORT) {
      const n = this.links.length
      if (was !== mode) log.info(`mesh-port: ${this.application} over http-port (${n} worker${n === 1 ? '' : 's'})`)
      this.#reason = ''
    } else if (mode === MODES.MESH) {
      const same = was === mode && this.#reason === reason
      if (!same) log.info(`mesh-port: ${this.application} over Watt's mesh: ${reason}`)
      this.#reason = reason
    } else if (mode === MODES.WAITING && was !== mode) {
      log.debug(`mesh-port: ${this.application} has no worker started yet: the mesh until one starts`)
    }
    this.#mode = mode
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
      if (this.mode === MODES.UNKNOWN) this.refresh()
      return null
    }
    if (links.length === 1) return links[0]
    if (this.inTurn) {
      // most requests: no clock, no look at loads; every SPREAD-th of a turn, the least loaded anew
      this.hold = kept(this.hold) ?? renewed(links, this.hold, performance.now())
      return this.hold.held
    }
    const now = performance.now()
    survey(links, now, this.watch) // once a turn, before the turn's worker is picked
    this.inTurn = true
    setImmediate(this.endTurn)
    this.hold = choose(links, this.hold, now, false)
    return this.hold.held
  }

  /**
   * The link for the next upgrade (a WebSocket), or null for the mesh: the one with the fewest open,
   * outside the hold, as a socket stays for minutes where a request's burst leaves in a turn.
   * @returns {Link | null}
   */
  nextUpgrade () {
    const links = this.links
    if (links.length < 2) return this.next()
    return leastLoaded(links, this.upgrades++, 'sockets').link
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
    const { application, linked } = this
    // Asked afresh each time (the runtime's own list): links are dropped by their
    // port (exit) or a GOAWAY (stop), never from a list that may be stale.
    const live = await workers.ask(application)
    const missing = () => live.filter((w) => !linked.has(w.thread))
    for (const target of missing()) {
      let opened
      try {
        const meta = { caller, window: this.options.window }
        opened = await handshakeWorker({ caller, application, worker: target.worker, kind: MESH_PORT_KIND, meta })
      } catch (err) {
        const why = refusal(/** @type {Error} */ (err))
        if (why.outcome === 'stopping') continue // on its way out: its replacement comes with the next change
        if (why.outcome === 'refused') return this.fallBack(why.reason)
        // Not a refusal (the worker went away meanwhile, a timeout): the mesh meanwhile if
        // nothing is linked, and a look again shortly.
        log.info(`mesh-port: ${application}: handshake with worker ${target.worker} failed (${why.reason}); ` +
          'looking again')
        continue
      }
      const thread = Number(opened.answer.thread)
      if (linked.has(thread)) {
        opened.port.close()
        continue
      }
      linked.add(thread, Number(opened.answer.worker), opened.port)
    }
    if (missing().length > 0 && this.retries < MAX_RETRIES) {
      this.retries++
      if (this.retryTimer) clearTimeout(this.retryTimer)
      this.retryTimer = setTimeout(() => this.refresh(), 50 * this.retries).unref()
    }
    // No worker started yet: look again when the workers change.
    this.enter(this.links.length === 0 ? MODES.WAITING : MODES.HTTP_PORT)
  }

  /**
   * The mux of a live worker other than `from`'s for a request to move to, once
   * one is linked (a restart starts the new worker first, but this thread may not have
   * linked it yet): null after RELOCATE_WAIT_MS without one.
   * @param {Link} from
   * @param {'refused' | 'crashed'} why
   * @returns {Promise<Link["mux"] | null>}
   */
  async relocate (from, why) {
    const deadline = performance.now() + RELOCATE_WAIT_MS
    while (true) {
      const to = this.linked.other(from)
      if (to !== null) {
        this.retried(why, from, to)
        countCall(to)
        return to.mux
      }
      if (performance.now() >= deadline || this.mode === MODES.MESH) return null
      await Promise.race([this.refresh(), new Promise((resolve) => setTimeout(resolve, 20))])
    }
  }

  /**
   * A request whose worker died before any byte of its answer, sent to another live worker (send.js).
   * @param {import('./pool-handler.js').OldApiView} view
   * @param {Error} err
   */
  resend (view, err) {
    return resendElsewhere(this, view, err)
  }

  /**
   * Counts and logs (debug) a request sent again to another worker, as a retry (the request
   * itself counts where it goes, countCall).
   * @param {'refused' | 'crashed'} why
   * @param {Link} from
   * @param {Link} to
   */
  retried (why, from, to) {
    retryTally(this.application, why).count++
    const how = why === 'refused' ? 'refused by stopping' : 'unanswered by crashed'
    this.options.log.debug(`mesh-port: ${this.application}: a request ${how} worker ${from.worker} ` +
      `sent again to worker ${to.worker}`)
  }

  /** @param {string} reason */
  fallBack (reason) {
    // The linked workers are alive: what is in flight on them finishes there, new requests take the mesh.
    for (const link of [...this.links]) {
      if (!this.linked.release(link)) continue
      this.options.log.info(`mesh-port: ${this.application} worker ${link.worker} released: ` +
        'the application falls back to the mesh')
    }
    this.enter(MODES.MESH, reason)
  }

  /** The application's workers changed (start, stop, crash, restart): look again, also after a fallback. */
  workersChanged () {
    this.retries = 0
    // Also during the first look: a worker that started meanwhile may be missing from it.
    if (this.mode !== MODES.UNKNOWN || this.refreshing) this.refresh()
  }
}
