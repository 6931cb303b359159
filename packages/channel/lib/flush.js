// @ts-check
// Collects frames written during one turn and sends them as one message.
// 'microtask' flushes at the end of the current macrotask (every call or answer
// made in one callback travels together); 'immediate' waits for the check phase,
// which also merges the frames of several callbacks of one event-loop turn (e.g.
// several HTTP requests parsed in one poll) at the price of a little latency.
import { STRIDE } from './frames.js'

/** @typedef {'microtask' | 'immediate'} FlushMode */

export class Outbox {
  /**
   * @param {(frames: unknown[]) => void} send
   * @param {FlushMode} mode
   */
  constructor (send, mode) {
    /** @type {unknown[]} */
    this.frames = []
    this.scheduled = false
    this.corked = false
    this.send = send
    this.schedule = mode === 'immediate' ? setImmediate : queueMicrotask
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

  /** Frames currently waiting (for tests and diagnostics). */
  get size () {
    return this.frames.length / STRIDE
  }

  clear () {
    this.frames = []
  }
}
