// @ts-check
// Credit-based flow control of one stream, both directions: a writer may have at most `size` bytes unread by
// the peer, and a reader returns what it consumed in half-window batches, so small request/answer pairs never
// cost a credit frame. Incoming data and credit are checked: a peer that overruns the window breaks the protocol.
import { InvalidOptionError } from '../errors.js'

export class StreamWindow {
  /** @param {number} size  bytes in flight per direction */
  constructor (size) {
    this.size = size
    /** bytes we may still send before the peer returns credit */
    this.credit = size
    /** bytes received and not yet returned as credit */
    this.unreturned = 0
  }

  /**
   * Credit the peer returned; false when it is not a positive integer or exceeds what we sent.
   * @param {number} n
   */
  grant (n) {
    if (!Number.isSafeInteger(n) || n <= 0 || this.credit + n > this.size) return false
    this.credit += n
    return true
  }

  /**
   * Data the peer sent; false when it overruns the window.
   * @param {number} n
   */
  receive (n) {
    if (this.unreturned + n > this.size) return false
    this.unreturned += n
    return true
  }

  /**
   * Credit to send back now, given the bytes received and still unconsumed (0: not yet).
   * @param {number} unconsumed  bytes still buffered on this side
   * @param {boolean} [eager]  return any consumed byte, not only half a window
   */
  returnable (unconsumed = 0, eager = false) {
    const consumed = this.unreturned - unconsumed
    if (consumed <= 0 || (!eager && consumed < this.size / 2)) return 0
    this.unreturned -= consumed
    return consumed
  }

  /** Starts over on another stream (a request that moved), `inFlight` bytes already sent. @param {number} inFlight */
  restart (inFlight) {
    this.credit = this.size - inFlight
    this.unreturned = 0
  }
}

/**
 * A window option, checked: `window: 0` would leave a writer waiting for good.
 * @param {unknown} window
 * @param {number} fallback
 * @returns {number}
 */
export function windowOption (window, fallback) {
  if (window === undefined) return fallback
  if (!Number.isSafeInteger(window) || /** @type {number} */ (window) < 1024) {
    throw new InvalidOptionError(`window must be an integer of at least 1024 bytes, not ${JSON.stringify(window)}`)
  }
  return /** @type {number} */ (window)
}
