// @ts-check
// When what one side of a message channel (port, shm) writes leaves: 'callback' at the end of the current
// callback (a microtask: a lone call costs no extra turn), 'turn' at the end of the event-loop turn (several
// callbacks' frames leave together, D-one-post-per-turn). http-port's mux decides for itself (wire/wake.js).
import { InvalidOptionError } from './errors.js'

/** @typedef {'callback' | 'turn'} Flush */

/**
 * A flush option, checked, in the one vocabulary.
 * @param {unknown} flush
 * @returns {Flush}
 */
export function flushOption (flush) {
  if (flush === 'callback' || flush === 'turn') return flush
  throw new InvalidOptionError(`flush must be 'callback' or 'turn', not ${JSON.stringify(flush)}`)
}

/** @param {Flush} flush */
export const scheduler = (flush) => flush === 'turn' ? setImmediate : queueMicrotask

export class Outbox {
  /**
   * @param {(frames: unknown[]) => void} send
   * @param {Flush} mode
   */
  constructor (send, mode) {
    /** @type {unknown[]} */
    this.frames = []
    this.scheduled = false
    this.corked = false
    this.send = send
    this.schedule = scheduler(mode)
    this.flush = () => {
      this.scheduled = false
      const frames = this.frames
      if (frames.length === 0) return
      this.frames = []
      this.send(frames)
    }
  }

  /**
   * @param {number} op
   * @param {number} id
   * @param {unknown} a
   * @param {unknown} b
   */
  push (op, id, a, b) {
    this.frames.push(op, id, a, b)
    if (!this.scheduled && !this.corked) {
      this.scheduled = true
      this.schedule(this.flush)
    }
  }

  /**
   * While corked nothing is scheduled. A callee corks while it starts a batch's
   * handlers, so the flush is queued after the microtasks of handlers that answer
   * at once (async functions): their answers leave in the same message.
   */
  cork () {
    this.corked = true
  }

  uncork () {
    this.corked = false
    if (this.frames.length > 0 && !this.scheduled) {
      this.scheduled = true
      this.schedule(this.flush)
    }
  }

  clear () {
    this.frames = []
  }
}
