// @ts-check
// Data frames, written and read alike by every stream: up to STRING_LIMIT as a latin1
// string, above it in a transferred FRAME_BYTES buffer that the reader copies out of (into
// its own thread's memory, as a socket read does) and hands back for the writer to reuse.
import { STRING_LIMIT } from './signals.js'

/**
 * Sends the first `n` bytes of `chunks` (removed from it) on stream `id`: the string sent,
 * or null when they went as a buffer (a caller keeps strings by reference, to send again).
 * @param {import('./port-mux.js').PortMux} mux
 * @param {number} id
 * @param {Buffer[]} chunks
 * @param {number} n  at most FRAME_BYTES
 * @returns {string | null}
 */
export function sendChunks (mux, id, chunks, n) {
  if (n <= STRING_LIMIT) {
    let text = ''
    if (chunks.length === 1 && chunks[0].length === n) text = /** @type {Buffer} */ (chunks.pop()).toString('latin1')
    else shiftBytes(chunks, n, (chunk) => { text += chunk.toString('latin1') })
    mux.send(id, text)
    return text
  }
  const frame = mux.frameBuffer()
  const view = new Uint8Array(frame, 0, n)
  let offset = 0
  shiftBytes(chunks, n, (chunk) => { view.set(chunk, offset); offset += chunk.length })
  mux.send(id, view, frame)
  return null
}

/**
 * Removes the first `size` bytes from `chunks` (and the empty chunks after them).
 * @param {Buffer[]} chunks
 * @param {number} size
 * @param {(chunk: Buffer) => void} take
 */
function shiftBytes (chunks, size, take) {
  let left = size
  while (left > 0) {
    const chunk = chunks[0]
    if (chunk.length <= left) {
      take(chunk)
      left -= chunk.length
      chunks.shift()
    } else {
      take(chunk.subarray(0, left))
      chunks[0] = chunk.subarray(left)
      left = 0
    }
  }
  while (chunks.length > 0 && chunks[0].length === 0) chunks.shift()
}

/**
 * The bytes of a data frame, as a Buffer of this thread (null: not a data frame).
 * @param {import('./port-mux.js').PortMux} mux
 * @param {unknown} payload
 * @returns {Buffer | null}
 */
export function receiveBytes (mux, payload) {
  if (typeof payload === 'string') return Buffer.from(payload, 'latin1')
  if (!(payload instanceof Uint8Array)) return null
  if (Buffer.isBuffer(payload)) return payload
  const data = Buffer.allocUnsafe(payload.byteLength)
  data.set(payload)
  mux.handBack(/** @type {ArrayBuffer} */ (payload.buffer))
  return data
}
