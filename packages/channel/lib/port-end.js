// @ts-check
// The `port` kind: records travel as one structured-cloned flat array per turn over
// a dedicated MessagePort. Payloads are posted as they are; never a pooled Node
// Buffer, whose clone would copy its whole 64 KiB slab (the caller copies those).
import { CODES } from './errors.js'
import { Outbox } from './flush.js'

/** @typedef {(code: import('./errors.js').ChannelErrorCode, reason: string) => void} OnClose */
/** @typedef {(op: number, id: number, err: Error) => void} OnUnsendable  a record whose payload could not go */

/**
 * One end of a message channel, whatever its kind: queue records, deliver batches, report
 * closing (how a kind encodes and measures payloads is its codec, codecs.js).
 * @typedef {object} ChannelEnd
 * @property {(op: number, id: number, a: unknown, b: unknown) => void} push
 * @property {() => void} cork hold the flush (see Outbox.cork)
 * @property {() => void} uncork
 * @property {(onFrames: (frames: unknown) => void, onClose: OnClose, onUnsendable?: OnUnsendable) => void} start
 * @property {() => void} close
 */

/**
 * @param {import('node:worker_threads').MessagePort} port
 * @param {import('./flush.js').Flush} mode
 * @returns {ChannelEnd}
 */
export function portEnd (port, mode) {
  let closed = false
  /** @type {(op: number, id: number, err: Error) => void} */
  let unsendable = () => {}
  const outbox = new Outbox((frames) => {
    if (closed) return
    try {
      port.postMessage(frames)
    } catch {
      // One value structured clone refuses (a function, a symbol…) fails the whole
      // batch: send frame by frame and report only the culprits.
      for (let i = 0; i < frames.length; i += 4) {
        const frame = frames.slice(i, i + 4)
        try {
          port.postMessage(frame)
        } catch (err) {
          unsendable(/** @type {number} */ (frame[0]), /** @type {number} */ (frame[1]), /** @type {Error} */ (err))
        }
      }
    }
  }, mode)
  return {
    push: (op, id, a, b) => outbox.push(op, id, a, b),
    cork: () => outbox.cork(),
    uncork: () => outbox.uncork(),
    start (onFrames, onClose, onUnsendable) {
      if (onUnsendable) unsendable = onUnsendable
      port.on('message', onFrames)
      port.on('messageerror', (err) => onClose(CODES.PROTOCOL, `a message could not be read: ${err.message}`))
      port.once('close', () => {
        closed = true
        onClose(CODES.CLOSED, 'the channel closed (thread stopped, crashed or restarted)')
      })
      port.unref() // pending calls keep the loop alive through their deadline timer, not the port
    },
    close () {
      closed = true
      outbox.clear()
      port.close()
    }
  }
}
