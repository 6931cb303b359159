// @ts-check
// A single-producer single-consumer byte ring in a SharedArrayBuffer. Messages are UTF-8 text cut into
// records ([u32 length][u32 flags][bytes, padded to 8]) that never cross the ring's end, so a message of any
// size passes fragment by fragment while the reader frees space: memory stays bounded by the ring.

// Positions are free-running 32-bit byte counters: used = (W - R) mod 2^32.
export const HEADER_BYTES = 64
// Int32 slots of the header
export const W = 0 // bytes written (published with Atomics.store after the record)
export const R = 1 // bytes read (released by the reader)
export const IDLE = 2 // 1: the reader sleeps, the writer must ring after publishing
export const WAITING = 3 // 1: the writer waits for space, the reader must ring after freeing

import { ChannelError, CODES, InvalidOptionError } from '../errors.js'

const RECORD_HEADER = 8
const MORE = 1 // flag: another fragment of the same message follows
const ASCII = 2 // flag: a whole message in one record, every byte below 0x80

/**
 * @param {number} capacity data bytes, a power of two from 4 KiB
 */
export function createRing (capacity) {
  checkRingBytes(capacity)
  const sab = new SharedArrayBuffer(HEADER_BYTES + capacity)
  new Int32Array(sab, 0, HEADER_BYTES / 4)[IDLE] = 1
  return sab
}

/** @param {number} capacity */
export function checkRingBytes (capacity) {
  if (!Number.isInteger(capacity) || capacity < 4096 || (capacity & (capacity - 1)) !== 0 || capacity > 1 << 30) {
    throw new InvalidOptionError(`ringBytes must be a power of two from 4096 bytes to 1 GiB, not ${capacity}`)
  }
}

/**
 * @param {unknown} sab
 * @returns {sab is SharedArrayBuffer}
 */
export function isRing (sab) {
  if (!(sab instanceof SharedArrayBuffer)) return false
  const capacity = sab.byteLength - HEADER_BYTES
  return capacity >= 4096 && (capacity & (capacity - 1)) === 0
}

class RingView {
  /** @param {SharedArrayBuffer} sab */
  constructor (sab) {
    this.header = new Int32Array(sab, 0, HEADER_BYTES / 4)
    this.capacity = sab.byteLength - HEADER_BYTES
    this.mask = this.capacity - 1
    this.data = Buffer.from(sab, HEADER_BYTES, this.capacity)
    this.words = new Int32Array(sab, HEADER_BYTES, this.capacity / 4)
  }
}

export class RingWriter extends RingView {
  /** @param {SharedArrayBuffer} sab */
  constructor (sab) {
    super(sab)
    this.w = Atomics.load(this.header, W) >>> 0
    // Fragments of at most a quarter ring let the reader free space while the writer goes on.
    this.maxChunk = this.capacity / 4
    /** @type {{ text: string, bytes: Buffer | null, at: number }[]} */
    this.queue = []
  }

  /**
   * Queues a message and writes as much of the queue as fits now.
   * @param {string} text
   * @returns {boolean} whether anything was published
   */
  write (text) {
    this.queue.push({ text, bytes: null, at: 0 })
    return this.pump()
  }

  /** @returns {boolean} whether anything was published */
  pump () {
    let published = false
    const { queue, header, capacity, mask } = this
    while (queue.length > 0) {
      const message = queue[0]
      const free = capacity - ((this.w - (Atomics.load(header, R) >>> 0)) >>> 0)
      const offset = this.w & mask
      const space = Math.min(free, capacity - offset) - RECORD_HEADER
      if (message.bytes === null) {
        // Fast path: the whole message as one record, encoded straight into the ring, uncounted when 3 bytes
        // per UTF-16 unit fit (a count costs about what the copy does). Pure ASCII is flagged, so the reader
        // decodes it as latin1, far cheaper than UTF-8 (D-ascii-latin1).
        const text = message.text
        const room = Math.min(space, this.maxChunk)
        const length = text.length * 3 <= room ? -1 : Buffer.byteLength(text)
        if (length <= room) {
          const written = this.data.write(text, offset + RECORD_HEADER, room, 'utf8')
          this.publish(offset, written, written === text.length ? ASCII : 0)
          queue.shift()
          published = true
          continue
        }
        message.bytes = Buffer.from(text)
        message.text = ''
      }
      const remaining = message.bytes.length - message.at
      const chunk = Math.min(remaining, this.maxChunk, space)
      if (chunk <= 0 && !(space === 0 && free >= RECORD_HEADER && remaining > 0)) break // full: wait for the reader
      const last = chunk === remaining
      message.bytes.copy(this.data, offset + RECORD_HEADER, message.at, message.at + chunk)
      this.publish(offset, chunk, last ? 0 : MORE)
      message.at += chunk
      published = true
      if (last) queue.shift()
    }
    return published
  }

  /**
   * @param {number} offset
   * @param {number} length
   * @param {number} flags
   */
  publish (offset, length, flags) {
    this.words[offset >> 2] = length
    this.words[(offset >> 2) + 1] = flags
    this.w = (this.w + RECORD_HEADER + ((length + 7) & ~7)) >>> 0
    Atomics.store(this.header, W, this.w | 0) // release: the record is visible before W moves
  }

  /** Bytes still waiting for space. */
  get backlog () {
    return this.queue.length
  }
}

export class RingReader extends RingView {
  /**
   * @param {SharedArrayBuffer} sab
   * @param {number} maxMessageBytes a larger message is a protocol error, never an allocation
   */
  constructor (sab, maxMessageBytes) {
    super(sab)
    this.r = Atomics.load(this.header, R) >>> 0
    this.maxMessageBytes = maxMessageBytes
    /** @type {Buffer[]} */
    this.parts = []
    this.partBytes = 0
  }

  /** Whether a record waits. */
  get pending () {
    return (Atomics.load(this.header, W) >>> 0) !== this.r
  }

  /**
   * Reads every complete message, freeing space as it goes.
   * @param {(text: string) => void} onMessage
   * @returns {boolean} whether any space was freed
   * @throws {ChannelError} PROTOCOL on a record that cannot be right (corrupt or oversized)
   */
  drain (onMessage) {
    const { header, capacity, mask, words, data } = this
    let freed = false
    for (;;) {
      const w = Atomics.load(header, W) >>> 0
      if (w === this.r) return freed
      const used = (w - this.r) >>> 0
      const offset = this.r & mask
      const length = words[offset >> 2]
      const flags = words[(offset >> 2) + 1]
      const end = RECORD_HEADER + length
      const badFlags = (flags & ~(MORE | ASCII)) !== 0 || flags === (MORE | ASCII)
      if (used > capacity || length < 0 || end > capacity - offset || end > used || badFlags) {
        throw new ChannelError('', CODES.PROTOCOL, 'a corrupt ring record')
      }
      const start = offset + RECORD_HEADER
      let text = null
      if (this.partBytes + length > this.maxMessageBytes) {
        throw new ChannelError('', CODES.PROTOCOL, `a message larger than ${this.maxMessageBytes} bytes`)
      }
      if (flags & MORE) {
        this.parts.push(Buffer.from(data.subarray(start, start + length)))
        this.partBytes += length
      } else if (this.parts.length === 0) {
        text = data.toString(flags & ASCII ? 'latin1' : 'utf8', start, start + length)
      } else {
        this.parts.push(data.subarray(start, start + length))
        text = Buffer.concat(this.parts).toString('utf8')
        this.parts = []
        this.partBytes = 0
      }
      this.r = (this.r + RECORD_HEADER + ((length + 7) & ~7)) >>> 0
      Atomics.store(header, R, this.r | 0)
      freed = true
      if (text !== null) onMessage(text)
    }
  }
}
