// @ts-check
// One target application as seen from one calling thread: an http-port link
// (a port and a pool over it) per started worker, or the reason it falls back
// to Watt's mesh. Requests go to the link with the fewest requests in flight
// (ties in turn), so a hung worker stops getting new ones; while no link is
// open (first contact, a restart in progress, a refusal) they take the mesh.
import { ChannelError } from '../errors.js'
import { openPortAnswered, wattMessaging } from '../handshake.js'
import { poolOverSessions } from '../http/dispatcher.js'
import { PortSession } from '../http/session.js'
import { MESH_PORT_KIND } from './callee.js'
import { tally } from './metrics.js'

/**
 * @typedef {object} Link
 * @property {number} thread
 * @property {number} worker
 * @property {import('undici').Pool} pool
 * @property {PortSession} session
 * @property {number} calls   requests sent over it (the share each worker got)
 * @property {import('./metrics.js').Tally} tally
 */

/**
 * @typedef {object} RouteOptions
 * @property {number} connections  per worker
 * @property {number} [window]
 * @property {Omit<import('undici').Pool.Options, 'connect' | 'connections'>} pool
 * @property {import('./workers.js').WorkerDirectory} workers
 * @property {import('./log.js').Log} log
 * @property {string} caller
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
    this.turn = 0
    this.meshCalls = 0
    /** @type {import('./metrics.js').Tally | null} */
    this.meshTally = null
  }

  /** A request goes over the mesh. */
  countMesh () {
    this.meshCalls++
    ;(this.meshTally ??= tally(this.application, 'mesh', null)).inc()
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
    // Fewest in flight; ties taken in turn (round robin when all are equal).
    const start = this.turn++ % links.length
    let best = links[start]
    let bestLoad = load(best)
    for (let i = 1; i < links.length && bestLoad > 0; i++) {
      const link = links[(start + i) % links.length]
      const l = load(link)
      if (l < bestLoad) { best = link; bestLoad = l }
    }
    return best
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
    const { workers, log } = this.options
    const live = await workers.of(this.application)
    for (const link of [...this.links]) {
      if (!live.some((w) => w.thread === link.thread)) this.drop(link, 'its worker is gone')
    }
    const missing = () => live.filter((w) => !this.links.some((l) => l.thread === w.thread) && workers.isLive(this.application, w.thread))
    // Messaging picks workers in turn, so N handshakes in a row reach N workers;
    // other sends from this thread can shift the turn, hence a few more tries.
    for (let tries = missing().length * 2 + 1; missing().length > 0 && tries > 0; tries--) {
      let opened
      try {
        opened = await openPortAnswered(this.application, MESH_PORT_KIND, { messaging: wattMessaging(), meta: { caller: this.options.caller } })
      } catch (err) {
        const why = refusal(/** @type {Error} */ (err))
        if (why.refused) return this.fallBack(why.reason)
        // Not a refusal (the worker went away meanwhile, a timeout): use the mesh
        // until the runtime announces its workers again, then look again.
        log.info(`mesh-port: ${this.application}: handshake failed (${why.reason}); over the mesh until its workers change`)
        if (this.links.length === 0) this.mode = 'waiting'
        return
      }
      const thread = Number(opened.answer.thread)
      if (this.links.some((l) => l.thread === thread) || !workers.isLive(this.application, thread)) {
        opened.port.close() // a worker linked already, or one that has just gone
        continue
      }
      this.add(thread, Number(opened.answer.worker), opened.port)
    }
    if (this.links.length === 0) {
      this.mode = 'waiting' // no worker started yet: look again when the workers change
      return
    }
    if (this.mode !== 'http-port') log.info(`mesh-port: ${this.application} over http-port (${this.links.length} worker${this.links.length === 1 ? '' : 's'})`)
    this.mode = 'http-port'
    this.reason = ''
  }

  /**
   * @param {number} thread
   * @param {number} worker
   * @param {import('node:worker_threads').MessagePort} port
   */
  add (thread, worker, port) {
    const { application } = this
    /** @type {Link} */
    const link = /** @type {any} */ ({ thread, worker, calls: 0, tally: tally(application, 'http-port', worker) })
    link.session = new PortSession(port, {
      application,
      // The worker exited, crashed or was replaced: its in-flight requests have
      // failed at once (ChannelError 'closed'); no new one goes there.
      onClose: () => this.drop(link, 'its port closed')
    })
    const session = link.session
    link.pool = poolOverSessions(`http://${application}.plt.local`, async () => session, {
      application,
      connections: this.options.connections,
      window: this.options.window,
      pool: this.options.pool
    })
    this.links = [...this.links, link]
  }

  /**
   * @param {Link} link
   * @param {string} why
   */
  drop (link, why) {
    if (!this.links.includes(link)) return
    this.links = this.links.filter((l) => l !== link)
    // Queued requests not yet on a connection fail too, naming the application.
    link.pool.destroy(new ChannelError(this.application, 'closed', `worker ${link.worker} is gone (${why})`)).catch(() => {})
    link.session.close()
    this.options.log.info(`mesh-port: ${this.application} worker ${link.worker} dropped: ${why}`)
  }

  /** @param {string} reason */
  fallBack (reason) {
    for (const link of [...this.links]) this.drop(link, 'the application falls back to the mesh')
    if (this.mode !== 'mesh' || this.reason !== reason) this.options.log.info(`mesh-port: ${this.application} over Watt's mesh: ${reason}`)
    this.mode = 'mesh'
    this.reason = reason
  }

  /** The application's workers changed (start, stop, crash, restart): look again, also after a fallback. */
  workersChanged () {
    const { workers } = this.options
    for (const link of [...this.links]) {
      if (!workers.isLive(this.application, link.thread)) this.drop(link, 'its worker stopped')
    }
    if (this.mode !== 'unknown') this.refresh() // never looked at: the first request will
  }

  close () {
    for (const link of [...this.links]) this.drop(link, 'the caller closed')
  }
}

/** @param {Link} link */
function load (link) {
  const stats = link.pool.stats
  return stats.running + stats.pending
}

/**
 * Why a handshake failed, and whether the worker refused it (no server to offer,
 * no drop-in there) rather than failing to answer. Messaging's wording is kept.
 * @param {Error} err
 * @returns {{ refused: boolean, reason: string }}
 */
function refusal (err) {
  const cause = /** @type {any} */ (err).cause
  const text = String(cause?.message ?? err.message)
  if (/handler/i.test(text) && /not found|missing|no handler/i.test(text)) return { refused: true, reason: 'its workers do not run the drop-in (no mesh-port handler)' }
  if (/Handler failed/i.test(text)) return { refused: true, reason: text.replace(/^Handler failed with error: /, '') }
  return { refused: false, reason: text }
}
