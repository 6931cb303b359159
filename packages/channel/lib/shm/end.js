// @ts-check
// The `shm` kind: the same frames as `port`, JSON-encoded into a SharedArrayBuffer ring per direction. The
// handshake's MessagePort stays open: it tells each end when the other thread goes away, and it is the
// doorbell that wakes a sleeping reader.
import { CODES } from '../errors.js'
import { FAIL, OK } from '../batch.js'
import { Outbox } from '../flush.js'
import { IDLE, RingReader, RingWriter, WAITING } from './ring.js'

// A batch is cut into ring messages of about this many characters, so one message
// never holds more than one large payload plus this much.
const BATCH_CHARS = 64 * 1024
/** Room in a ring message beyond its largest payload: names, ids, error texts. */
export const MESSAGE_SLACK = 4 * BATCH_CHARS

/**
 * @typedef {object} ShmEndOptions
 * @property {SharedArrayBuffer} inbound  the ring this end reads
 * @property {SharedArrayBuffer} outbound  the ring this end writes
 * @property {number} maxMessageBytes
 * @property {import('../flush.js').Flush} flush
 */

/**
 * @param {import('node:worker_threads').MessagePort} port
 * @param {ShmEndOptions} options
 * @returns {import('../port-end.js').ChannelEnd}
 */
export function shmEnd (port, { inbound, outbound, maxMessageBytes, flush }) {
  const reader = new RingReader(inbound, maxMessageBytes)
  const writer = new RingWriter(outbound)
  const inHeader = reader.header
  const outHeader = writer.header
  let closed = false
  /** @type {(frames: unknown) => void} */
  let deliver = () => {}
  /** @type {(code: import('../errors.js').ChannelErrorCode, reason: string) => void} */
  let lost = () => {}

  // The bell posts an empty message. A writer rings only a reader that said it is idle (IDLE, set once its
  // ring is empty: a busy reader needs no bell), and a reader rings back only a writer that said it waits
  // for space (WAITING).
  const ring = () => port.postMessage(0)

  const outbox = new Outbox((frames) => {
    if (closed) return
    let text = '['
    let published = false
    for (let i = 0; i < frames.length; i += 4) {
      if (text.length > BATCH_CHARS) {
        if (writer.write(text + ']')) published = true
        text = '['
      }
      if (text.length > 1) text += ','
      // Payload slots hold JSON text already (CALL's b, OK's a, ERR's b); the other
      // slots are names, codes, messages or 0.
      const op = frames[i]
      const payload = op === OK ? frames[i + 2] : JSON.stringify(frames[i + 2])
      text += op + ',' + frames[i + 1] + ',' + payload + ',' + frames[i + 3]
    }
    if (writer.write(text + ']')) published = true
    afterWrite(published)
  }, flush)

  /** @param {boolean} published */
  function afterWrite (published) {
    if (published && Atomics.exchange(outHeader, IDLE, 0) === 1) ring()
    if (writer.backlog > 0) {
      // Full: ask to be rung when space is freed, then look once more (the reader may
      // have freed space between our try and the flag).
      Atomics.store(outHeader, WAITING, 1)
      if (writer.pump()) afterWrite(true)
    }
  }

  /** @param {string} text */
  function onMessage (text) {
    deliver(JSON.parse(text))
  }

  function onBell () {
    if (closed) return
    try {
      let freed = false
      for (;;) {
        if (reader.drain(onMessage)) freed = true
        if (closed) return
        Atomics.store(inHeader, IDLE, 1)
        if (!reader.pending) break
        Atomics.store(inHeader, IDLE, 0) // a record slipped in before the flag: read it now
      }
      if (freed && Atomics.exchange(inHeader, WAITING, 0) === 1) ring()
    } catch (err) {
      fail(`unreadable shared-memory frames: ${/** @type {Error} */ (err).message}`)
      return
    }
    if (writer.backlog > 0) afterWrite(writer.pump())
  }

  /** @param {string} reason */
  function fail (reason) {
    if (closed) return
    // Tell the other end (best effort: its ring may be full) before closing.
    try { writer.write('[' + FAIL + ',0,' + JSON.stringify(reason) + ',0]') && ring() } catch {}
    close()
    lost(CODES.PROTOCOL, reason)
  }

  function close () {
    if (closed) return
    closed = true
    outbox.clear()
    writer.queue.length = 0
    port.close()
  }

  return {
    push: (op, id, a, b) => outbox.push(op, id, a, b),
    cork: () => outbox.cork(),
    uncork: () => outbox.uncork(),
    start (onFrames, onClose) {
      deliver = onFrames
      lost = onClose
      port.on('message', onBell)
      port.once('close', () => {
        if (closed) return
        close()
        onClose(CODES.CLOSED, 'the channel closed (thread stopped, crashed or restarted)')
      })
      port.unref()
      onBell() // records written before we listened
    },
    close
  }
}
