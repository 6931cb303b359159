// @ts-check
// undici's headersTimeout and bodyTimeout for frames-wire calls, at undici's resolution: one tick every 499 ms
// looks at every call's timer, as undici's fast timers do for its sockets, not a setTimeout per call
// (D-deadline-timer). What a timer that runs out does is the call's (call.js, timedOut).

/** undici's Client default for both timeouts, ms */
export const UNDICI_TIMEOUT_MS = 300e3
/** undici's fast-timer tick (lib/util/timers.js): half its 1 s resolution, less 1 ms */
export const TICK_MS = 499

/** A call's timer waits for the answer's head (HEADERS) or for its body's next bytes (BODY). */
export const HEADERS = 1
export const BODY = 2

/** @typedef {{ headersTimeout: number, bodyTimeout: number }} Limits  ms each; 0: no limit */

/** @type {Limits} */
export const DEFAULT_LIMITS = Object.freeze({ headersTimeout: UNDICI_TIMEOUT_MS, bodyTimeout: UNDICI_TIMEOUT_MS })

// a timer's states: not in the list; (re)started, its start taken at the next tick; running; leaving the list
const OUT = 0
const PENDING = 1
const ACTIVE = 2
const CLEARED = 3

/** the ticks' clock, ms */
let clock = 0
/** @type {CallTimer[]} */
const timers = []
/** @type {NodeJS.Timeout | null} */
let ticker = null

export class CallTimer {
  /**
   * @param {{ timedOut: (kind: number) => void }} call
   * @param {Limits} limits
   */
  constructor (call, limits) {
    this.call = call
    this.limits = limits
    this.kind = HEADERS
    /** ms; 0: not running */
    this.delay = 0
    this.start = 0
    this.state = OUT
  }

  /** The request went out, all of it: its answer's head is waited for from now. */
  sent () {
    if (this.kind === HEADERS) this.set(HEADERS, this.limits.headersTimeout)
  }

  /** A final head came: the body's bytes are waited for from now. */
  answered () {
    this.set(BODY, this.limits.bodyTimeout)
  }

  /** Something came or moved (a 1xx, data, the reader resumed): the running wait starts over. */
  refresh () {
    if (this.delay > 0) this.arm()
  }

  /** The upload waits for credit (undici: a socket write that returned false): the wait for the head starts over. */
  held () {
    if (this.kind === HEADERS) this.refresh()
  }

  stop () {
    this.delay = 0
    if (this.state !== OUT) this.state = CLEARED
  }

  /**
   * @param {number} kind
   * @param {number} delay
   */
  set (kind, delay) {
    this.kind = kind
    this.delay = delay
    if (delay > 0) this.arm()
    else if (this.state !== OUT) this.state = CLEARED
  }

  arm () {
    if (this.state === OUT) {
      timers.push(this)
      // the only timer: the tick starts over, so that the timer's start is when it was armed
      if (timers.length === 1) startTicker()
    }
    this.state = PENDING
  }
}

function startTicker () {
  if (ticker === null) {
    ticker = setTimeout(tick, TICK_MS)
    ticker.unref()
  } else ticker.refresh()
}

/** Each timer started since the last tick begins; each running one that is due runs out and leaves. */
function tick () {
  clock += TICK_MS
  let kept = 0
  // timers armed by a timedOut() are pushed behind: this loop reaches them too
  for (let i = 0; i < timers.length; i++) {
    const timer = timers[i]
    if (timer.state === PENDING) {
      timer.start = clock - TICK_MS
      timer.state = ACTIVE
    } else if (timer.state === ACTIVE && clock >= timer.start + timer.delay) {
      timer.state = CLEARED
      timer.call.timedOut(timer.kind)
    }
    if (timer.state === CLEARED) timer.state = OUT
    else timers[kept++] = timer
  }
  timers.length = kept
  if (kept > 0) startTicker()
}

/** @param {unknown} value */
const poolValue = (value) => value == null || (Number.isInteger(value) && /** @type {number} */ (value) >= 0)
/** @param {unknown} value */
const requestValue = (value) => value == null || (Number.isFinite(value) && /** @type {number} */ (value) >= 0)

/**
 * The `pool` option's timeouts as undici's Client takes them; null when it refuses one (every request then
 * takes the HTTP wire, whose pool fails it with undici's InvalidArgumentError).
 * @param {{ headersTimeout?: unknown, bodyTimeout?: unknown }} pool
 * @returns {Limits | null}
 */
export function poolLimits ({ headersTimeout, bodyTimeout }) {
  if (!poolValue(headersTimeout) || !poolValue(bodyTimeout)) return null
  if (headersTimeout == null && bodyTimeout == null) return DEFAULT_LIMITS
  return {
    headersTimeout: /** @type {number | undefined} */ (headersTimeout) ?? UNDICI_TIMEOUT_MS,
    bodyTimeout: /** @type {number | undefined} */ (bodyTimeout) ?? UNDICI_TIMEOUT_MS
  }
}

/**
 * A request's own timeouts over the pool's, as undici's Request takes them; null when it refuses one (the
 * request then takes the HTTP wire, whose undici fails it).
 * @param {{ headersTimeout?: unknown, bodyTimeout?: unknown }} opts  dispatch options
 * @param {Limits} pool
 * @returns {Limits | null}
 */
export function requestLimits ({ headersTimeout, bodyTimeout }, pool) {
  if (headersTimeout == null && bodyTimeout == null) return pool
  if (!requestValue(headersTimeout) || !requestValue(bodyTimeout)) return null
  return {
    headersTimeout: /** @type {number | undefined} */ (headersTimeout) ?? pool.headersTimeout,
    bodyTimeout: /** @type {number | undefined} */ (bodyTimeout) ?? pool.bodyTimeout
  }
}
