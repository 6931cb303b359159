// @ts-check
// Admission control for the buffered ("promise") variant. Parsing a dataset
// whole holds its text and every record at once (about 2.5× its bytes on the
// heap, measured), so concurrent requests on a large dataset can outgrow the
// heap and crash the worker: the failure the original write-up ran into. A
// request reserves its estimate first and waits, first come first served,
// while others hold the budget; one that could never fit answers 507 at once.
import { constants } from 'node:buffer'
import { getHeapStatistics } from 'node:v8'
import { HttpError } from './http-error.js'

/** Heap bytes a buffered request holds per dataset byte (text 1×, records ~1.5×, plus parse garbage). */
export const HEAP_PER_DATASET_BYTE = 3
/** Share of the worker's heap the buffered requests may reserve together. */
export const HEAP_SHARE = 0.75

export class MemoryBudget {
  #limit
  #reserved = 0
  /** @type {{ bytes: number, grant: () => void }[]} */
  #queue = []

  /** @param {number} [limitBytes]  default: HEAP_SHARE of this isolate's heap limit */
  constructor (limitBytes = Math.floor(getHeapStatistics().heap_size_limit * HEAP_SHARE)) {
    this.#limit = limitBytes
  }

  get stats () {
    return { limitBytes: this.#limit, reservedBytes: this.#reserved, waiting: this.#queue.length }
  }

  /**
   * Reserves room to buffer a dataset of `datasetBytes`; resolves with the
   * release function. Rejects with a 507 HttpError when it can never fit, or
   * with the signal's reason when the client leaves while waiting.
   * @param {number} datasetBytes
   * @param {AbortSignal} signal
   * @returns {Promise<() => void>}
   */
  async reserve (datasetBytes, signal) {
    if (datasetBytes > constants.MAX_STRING_LENGTH) {
      throw new HttpError(507, `the dataset is ${datasetBytes} bytes: buffered parsing needs it as one string, and V8 strings stop at ${constants.MAX_STRING_LENGTH} characters; use the stream variant`)
    }
    const bytes = datasetBytes * HEAP_PER_DATASET_BYTE
    if (bytes > this.#limit) {
      throw new HttpError(507, `buffering this ${datasetBytes}-byte dataset needs about ${bytes} heap bytes, more than this worker's ${this.#limit}-byte budget; use the stream variant`)
    }
    signal.throwIfAborted()
    if (this.#queue.length > 0 || this.#reserved + bytes > this.#limit) {
      await new Promise((resolve, reject) => {
        const waiter = { bytes, grant: () => { signal.removeEventListener('abort', onAbort); resolve(undefined) } }
        const onAbort = () => {
          this.#queue.splice(this.#queue.indexOf(waiter), 1)
          this.#grantWaiting() // the head may have changed
          reject(signal.reason)
        }
        signal.addEventListener('abort', onAbort, { once: true })
        this.#queue.push(waiter)
      })
    } else {
      this.#reserved += bytes
    }
    let released = false
    return () => {
      if (released) return
      released = true
      this.#reserved -= bytes
      this.#grantWaiting()
    }
  }

  #grantWaiting () {
    while (this.#queue.length > 0 && this.#reserved + this.#queue[0].bytes <= this.#limit) {
      const next = /** @type {{ bytes: number, grant: () => void }} */ (this.#queue.shift())
      this.#reserved += next.bytes
      next.grant()
    }
  }
}
