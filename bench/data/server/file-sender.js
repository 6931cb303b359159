// @ts-check
// Sends a file as a response body through a few read buffers used over and
// over, where fs.createReadStream allocates a new 64 KiB buffer per read.
// Why: the data-source allocates almost no JavaScript objects, so V8 frees its
// dead read buffers only once their total (external memory) grows by ~64 MB
// since the last collection; each download of a large dataset left tens of MiB
// of garbage resident in the runtime. A buffer is reused only after the
// response's write callback says its bytes are gone: handed to the socket, or
// copied by the mesh's in-process response (light-my-request copies on write).
// The buffers outlive their response (`spare`): fresh ones per answer were the
// same garbage at 4 MB answers, 33 a second (small/promise over the mesh-port
// drop-in: the data-source's ArrayBuffers peaked at 56-63 MiB, 11-13 over TCP).
import { open } from 'node:fs/promises'

export const READ_CHUNK = 64 * 1024
const POOL_SIZE = 4
/** Read buffers kept between answers, per chunk size: 16 answers at once reuse theirs. */
export const SPARE_BUFFERS = 64

/** @type {Map<number, Buffer[]>} chunk size → buffers no answer holds */
const spare = new Map()

/** @param {number} chunkBytes */
function spareOf (chunkBytes) {
  let buffers = spare.get(chunkBytes)
  if (!buffers) spare.set(chunkBytes, buffers = [])
  return buffers
}

/** Read buffers kept for the next answers (tests). */
export function spareBuffers (chunkBytes = READ_CHUNK) {
  return spareOf(chunkBytes).length
}

/**
 * Writes `size` bytes of `file` to `res` and ends it; resolves once the
 * response finished. Rejects when the response closes first (the consumer
 * left, or it was destroyed) or a read fails; the file is closed either way.
 * Back-pressure: at most POOL_SIZE chunks are in flight, and none is read
 * while `res` asks to drain.
 * @param {string} file
 * @param {number} size  bytes to send (the content-length already announced)
 * @param {import('node:http').ServerResponse} res
 * @param {{ chunkBytes?: number, poolSize?: number, onRead?: (bytes: number) => void }} [options]
 * @returns {Promise<void>}
 */
export async function sendFile (file, size, res, { chunkBytes = READ_CHUNK, poolSize = POOL_SIZE, onRead = () => {} } = {}) {
  const handle = await open(file, 'r')
  const kept = spareOf(chunkBytes)
  /** @type {Buffer[]} */
  const free = Array.from({ length: poolSize }, () => kept.pop() ?? Buffer.allocUnsafeSlow(chunkBytes))
  // closed: the response is gone; mustDrain: it asked us to wait for 'drain'
  const state = { closed: res.destroyed, mustDrain: false }
  /** @type {(() => void) | null} */
  let wake = null
  const wakeUp = () => {
    const resume = wake
    wake = null
    resume?.()
  }
  const onClose = () => { state.closed = true; wakeUp() }
  const onDrain = () => { state.mustDrain = false; wakeUp() }
  res.once('close', onClose)
  res.on('drain', onDrain)
  try {
    let position = 0
    while (position < size) {
      while (!state.closed && (free.length === 0 || state.mustDrain)) await new Promise((resolve) => { wake = () => resolve(undefined) })
      if (state.closed) throw new Error('the response closed before the file was sent')
      const buffer = /** @type {Buffer} */ (free.pop())
      const { bytesRead } = await handle.read(buffer, 0, Math.min(chunkBytes, size - position), position)
      if (bytesRead === 0) throw new Error(`${file} ended at byte ${position}, before the ${size} bytes announced`)
      position += bytesRead
      onRead(bytesRead)
      if (state.closed) throw new Error('the response closed before the file was sent')
      const chunk = bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead)
      // the callback runs once the chunk's bytes are no longer needed (written, copied, or dropped on error)
      if (!res.write(chunk, () => { free.push(buffer); wakeUp() })) state.mustDrain = true
    }
    await new Promise((resolve, reject) => {
      if (state.closed) return reject(new Error('the response closed before the file was sent'))
      res.off('close', onClose)
      res.once('close', () => { if (!res.writableFinished) reject(new Error('the response closed before the file was sent')) })
      res.end(() => resolve(undefined))
    })
  } finally {
    res.off('close', onClose)
    res.off('drain', onDrain)
    // only buffers whose write completed: one still queued (an error cut the answer) may yet be read
    while (free.length > 0 && kept.length < SPARE_BUFFERS) kept.push(/** @type {Buffer} */ (free.pop()))
    free.length = 0
    await handle.close()
  }
}
