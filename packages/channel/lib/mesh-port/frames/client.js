// @ts-check
// A link's frames wire (caller side): requests it can carry go as frames on the link's PortMux; the rest (a
// new-API handler, bodies undici must encode, framing headers, a query object, expect-continue, options undici
// refuses, and every request while something watches undici's request channels) take the link's HTTP wire.
// Each path has its own tally, so the counter says which wire took what.
import { channel } from 'node:diagnostics_channel'
import { DEFAULT_WINDOW, MAX_MOVES, STRING_LIMIT } from '../../wire/signals.js'
import { OldApiView } from '../pool-handler.js'
import { FramesCall } from './call.js'
import { requestHead } from './request-head.js'
import { poolLimits, requestLimits } from './timeouts.js'
/** @import { PortMux } from '../../wire/port-mux.js' */

/**
 * @typedef {{ inFlight: number, tally: import('../metrics.js').Tally }} CountedLink
 *   links.js's Link, as far as this wire needs it
 */

/**
 * @typedef {object} FramesClientOptions
 * @property {string} application
 * @property {number} [window]
 * @property {import('../metrics.js').Tally} tally  this wire's requests
 * @property {CountedLink} [link]  the route's link (its in-flight count and HTTP tally)
 * @property {import('../../http/dispatcher.js').PortPool} [pool]  the link's HTTP wire, whose close (its mux
 *   closes after it) waits for this wire's calls
 * @property {import('../../http/dispatcher.js').PoolOptions} [poolOptions]  the options that pool was made with:
 *   its headersTimeout, bodyTimeout and strictContentLength hold here too
 */

/**
 * undici publishes each request it creates here. OpenTelemetry's undici instrumentation (loaded in
 * every worker by Watt's `telemetry`) makes the call's CLIENT span there and adds its `traceparent`
 * header; Watt's `httpClientMetrics` and APM agents watch it too. Frames are no undici request: while
 * anything listens, requests take the HTTP wire (an undici Pool), or the callee's span would start
 * a new trace (test/mesh-port/telemetry.test.js in the repository).
 */
const requestCreated = channel('undici:request:create')

/** @type {WeakMap<PortMux, FramesClient>} each mux's frames wire, for a refused request to move to */
const clients = new WeakMap()

export class FramesClient {
  /**
   * @param {PortMux} mux
   * @param {FramesClientOptions} options
   */
  constructor (mux, { application, window = DEFAULT_WINDOW, tally, link, pool, poolOptions = {} }) {
    this.mux = mux
    this.options = { application, window }
    /** the pool's timeouts (null: undici refuses them, and the HTTP wire fails every request so) */
    this.limits = poolLimits(poolOptions)
    /** false: undici sends a streamed body whatever its length, with a warning (left to the HTTP wire) */
    this.strict = poolOptions.strictContentLength ?? true
    this.tally = tally
    this.link = link ?? null
    /** @type {Map<string, string>} Host header by origin */
    this.hosts = new Map()
    /** calls under way on this mux */
    this.active = 0
    /** @type {(() => void)[]} */
    this.idle = []
    clients.set(mux, this)
    // A stopping worker's pool closes (and then its mux) only once these calls have finished.
    pool?.holdCloseUntil(() => this.whenIdle())
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
    if (!(view instanceof OldApiView) || requestCreated.hasSubscribers || this.limits === null) return false
    const limits = requestLimits(opts, this.limits)
    if (limits === null) return false
    const outgoing = requestHead(opts, this.host(opts.origin), STRING_LIMIT)
    if (outgoing === null || (!this.strict && outgoing.stream !== null && outgoing.head.h.includes('content-length'))) {
      return false
    }
    this.tally.count++
    new FramesCall(this.mux, view, outgoing, this.options, this, 0, limits).start()
    return true
  }

  /**
   * A request a stopping worker refused (nothing of it was served) goes to another live
   * worker's frames wire, when the whole request rode in its head (no body frames to replay).
   * @param {FramesCall} call
   * @returns {Promise<boolean>}  false: nowhere to go (the call then fails)
   */
  async relocate (call) {
    if (!call.outgoing.head.e || call.moves >= MAX_MOVES || !this.mux.relocate) return false
    const to = await this.mux.relocate('refused')
    const client = to === null ? undefined : clients.get(to)
    if (client === undefined) return false
    if (call.replay.abortedWhileMoving !== null) {
      call.handler.onError(call.replay.abortedWhileMoving)
      return true
    }
    // the route counted it as a request of `to` over HTTP: it goes as frames
    if (client.link !== null) {
      client.link.tally.count--
      call.handler.moveTo(client.link)
    }
    client.tally.count++
    new FramesCall(client.mux, call.handler, call.outgoing, client.options, client, call.moves + 1, call.limits).start()
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
