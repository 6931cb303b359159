// @ts-check
// A client's calls awaiting an answer, by id, with one timer for all their deadlines (deadlines.js).
// The timer stops whenever no call is pending: an idle client holds no timer (and no event loop).
import { DeadlineTimer } from './deadlines.js'

/** Ids wrap to 1 after this one. */
const MAX_ID = 0x7fffffff

/**
 * @typedef {object} Pending
 * @property {number} id
 * @property {(value: unknown) => void} resolve
 * @property {(err: Error) => void} reject
 * @property {number} deadline
 * @property {number} timeoutMs
 * @property {AbortSignal | undefined} signal
 * @property {(() => void) | undefined} onAbort
 * @property {string} name
 * @property {unknown} payload encoded, kept only until sent
 * @property {boolean} sent
 */

export class PendingCalls {
  /** @type {Map<number, Pending>} */
  #byId = new Map()
  #nextId = 0
  #deadlines

  /** @param {(entry: Pending) => void} onTimeout  a pending call whose deadline passed */
  constructor (onTimeout) {
    this.#deadlines = new DeadlineTimer((now) => {
      let next = Infinity
      for (const entry of this.#byId.values()) {
        if (entry.deadline <= now) onTimeout(entry)
        else if (entry.deadline < next) next = entry.deadline
      }
      return next
    })
  }

  get size () { return this.#byId.size }

  /** @param {number} id */
  get (id) { return this.#byId.get(id) }

  /** @param {number} id */
  has (id) { return this.#byId.has(id) }

  /** Every pending call, copied: settling them one by one is safe. */
  list () { return [...this.#byId.values()] }

  /**
   * A new call on the books, its deadline armed.
   * @param {string} name
   * @param {unknown} payload  encoded
   * @param {number} timeoutMs
   * @param {AbortSignal | undefined} signal
   * @param {(value: unknown) => void} resolve
   * @param {(err: Error) => void} reject
   * @returns {Pending}
   */
  add (name, payload, timeoutMs, signal, resolve, reject) {
    this.#nextId = this.#nextId >= MAX_ID ? 1 : this.#nextId + 1
    /** @type {Pending} */
    const entry = {
      id: this.#nextId,
      resolve,
      reject,
      deadline: performance.now() + timeoutMs,
      timeoutMs,
      signal,
      onAbort: undefined,
      name,
      payload,
      sent: false
    }
    this.#byId.set(entry.id, entry)
    this.#deadlines.arm(entry.deadline)
    return entry
  }

  /**
   * Removes a call from the books; returns it if it was still pending.
   * @param {Pending} entry
   */
  settle (entry) {
    if (!this.#byId.delete(entry.id)) return null
    if (entry.onAbort) entry.signal?.removeEventListener('abort', entry.onAbort)
    if (this.#byId.size === 0) this.#deadlines.stop()
    return entry
  }

  stop () { this.#deadlines.stop() }
}
