// @ts-check
// The check of one SSE stream of the fan-out: every event's sequence number is
// the next one (none lost, none repeated, none out of order), its id says the
// same, its padding is the one its number determines, and the end event's count
// is the number received. A stream that ends without its end event fails too.
import { paddingOf } from './shared/sse-event.js'

/** Distinct problems described per stream; the counts go on. */
const KEPT = 5
/** A gap wider than this is not tracked number by number (its events count as lost). */
const MAX_TRACKED_GAP = 100_000

export class SequenceCheck {
  next = 0
  received = 0
  duplicated = 0
  outOfOrder = 0
  corrupt = 0
  untrackedLost = 0
  /** @type {Set<number>} skipped numbers not seen yet */
  missing = new Set()
  /** @type {number | null} the end event's count */
  endCount = null
  /** @type {string[]} */
  problems = []

  /** @param {number} size  the padding each event carries */
  constructor (size) {
    this.size = size
  }

  /**
   * One data event: its id field and its parsed data.
   * @param {string | undefined} id
   * @param {any} data  { seq, t, pad }
   */
  accept (id, data) {
    this.received++
    const seq = data?.seq
    if (!Number.isInteger(seq) || seq < 0 || typeof data?.t !== 'number' || String(seq) !== id || data.pad !== paddingOf(seq, this.size)) {
      this.corrupt++
      return this.#note(`a corrupt event (id ${JSON.stringify(id)}, data ${JSON.stringify(data)?.slice(0, 80)})`)
    }
    if (seq === this.next) { this.next++; return }
    if (seq < this.next) {
      if (this.missing.delete(seq)) {
        this.outOfOrder++
        return this.#note(`event ${seq} after ${this.next - 1}`)
      }
      this.duplicated++
      return this.#note(`event ${seq} again`)
    }
    if (seq - this.next > MAX_TRACKED_GAP) this.untrackedLost += seq - this.next
    else for (let skipped = this.next; skipped < seq; skipped++) this.missing.add(skipped)
    this.#note(`event ${seq} where ${this.next} was next`)
    this.next = seq + 1
  }

  /** @param {number} count  the end event's count */
  end (count) {
    this.endCount = count
  }

  /** Events never received: skipped ones, and those after the last received up to the end's count. */
  get lost () {
    return this.missing.size + this.untrackedLost + Math.max(0, (this.endCount ?? 0) - this.next)
  }

  /** @param {string} text */
  #note (text) {
    if (this.problems.length < KEPT) this.problems.push(text)
  }

  /**
   * The stream's verdict once it is over: null when every event came once, in order, all of them.
   * @returns {string | null}
   */
  verdict () {
    const problems = []
    if (this.endCount == null) problems.push(`no end event after ${this.received} events`)
    else if (this.received !== this.endCount) problems.push(`received ${this.received} events, the producer sent ${this.endCount}`)
    if (this.lost) problems.push(`${this.lost} lost`)
    if (this.duplicated) problems.push(`${this.duplicated} duplicated`)
    if (this.outOfOrder) problems.push(`${this.outOfOrder} out of order`)
    if (this.corrupt) problems.push(`${this.corrupt} corrupt`)
    if (!problems.length) return null
    return [...problems, ...this.problems].join('; ')
  }
}
