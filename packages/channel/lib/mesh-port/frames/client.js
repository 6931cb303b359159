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

/** @typedef {{ inFlight: number, tally: import('../metrics.js').Tally }} CountedLink  route.js's Link, as far as this wire needs it */

/** @type {WeakMap<import('../../http/session.js').PortSession, FramesClient>} each session's frames wire, for a refused request to move to */
const clients = new WeakMap()

/** Moves one request may make (refused by one stopping worker, then another), as over the HTTP wire. */
const MAX_MOVES = 3

export class FramesClient {
  /**
   * @param {import('../../http/session.js').PortSession} session
   * @param {{ application: string, window?: number, tally: import('../metrics.js').Tally, link?: CountedLink, pool?: import('undici').Pool }} options
   *   tally: this wire's requests; link: the route's link (its in-flight count and HTTP tally);
   *   pool: the link's HTTP wire, whose close (route.js closes the session after it) waits for this wire's calls
   */
  constructor (session, { application, window = DEFAULT_WINDOW, tally, link, pool }) {
    this.session = session
    this.options = { application, window }
    this.tally = tally
    this.link = link ?? null
    /** @type {Map<string, string>} Host header by origin */
    this.hosts = new Map()
    /** calls under way on this session */
    this.active = 0
    /** @type {(() => void)[]} */
    this.idle = []
    clients.set(session, this)
    if (pool) this.holdClose(pool)
  }

  /**
   * A stopping worker's link is closed once its pool has drained, and then its session
   * (route.js release): the frames calls in flight on it must finish first, as the
   * pool's own requests do. The pool closes once they have.
   * @param {import('undici').Pool} pool
   */
  holdClose (pool) {
    const p = /** @type {any} */ (pool)
    const close = p.close
    p.close = (/** @type {unknown[]} */ ...args) => args.length > 0 ? close.apply(pool, args) : this.whenIdle().then(() => close.call(pool))
  }

  /** @returns {Promise<void>} */
  whenIdle () {
    if (this.active === 0) return Promise.resolve()
    return new Promise((resolve) => this.idle.push(() => resolve(undefined)))
  }

  started () { this.active++ }

  ended () {
    if (--this.active > 0) return
    const idle = this.idle
    this.idle = []
    for (const resolve of idle) resolve()
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
    new FramesCall(this.session, view, outgoing, this.options, this).start()
    return true
  }

  /**
   * A request a stopping worker refused (nothing of it was served) goes to another live
   * worker's frames wire, when the whole request rode in its head (no body frames to replay).
   * @param {FramesCall} call
   * @returns {Promise<boolean>}  false: nowhere to go (the call then fails)
   */
  async relocate (call) {
    if (!call.outgoing.head.e || call.moves >= MAX_MOVES || !this.session.relocate) return false
    const to = await this.session.relocate('refused')
    const client = to === null ? undefined : clients.get(to)
    if (client === undefined) return false
    if (call.abortedWhileMoving !== null) {
      call.handler.onError(call.abortedWhileMoving)
      return true
    }
    // route.js counted it as a request of `to` over HTTP: it goes as frames
    if (client.link !== null) {
      client.link.tally.count--
      call.handler.moveTo(client.link)
    }
    client.tally.count++
    new FramesCall(client.session, call.handler, call.outgoing, client.options, client, call.moves + 1).start()
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
