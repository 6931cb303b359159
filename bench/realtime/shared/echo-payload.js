// @ts-check
// What one WebSocket echo carries, and how its answer is checked: a message of
// `size` bytes whose first 8 bytes name the socket and the message's sequence
// number (little-endian u32 each), the rest a byte pattern of that socket's.
// An echo is right only when it is binary and equals, byte for byte, the message
// the socket sent last: a lost, repeated, reordered, cut or altered echo differs.
// Shared by the edge app (which sends and checks) and the tests.

/** Bytes of the header: socket index, then sequence number. */
export const HEADER_BYTES = 8

/**
 * A socket's message buffer: the header, then the socket's pattern. The same
 * buffer is stamped with each sequence number in turn (stampEcho).
 * @param {number} socketIndex
 * @param {number} size  bytes, at least HEADER_BYTES
 */
export function echoTemplate (socketIndex, size) {
  if (!Number.isInteger(size) || size < HEADER_BYTES) throw new RangeError(`an echo message needs at least ${HEADER_BYTES} bytes, got ${size}`)
  const buffer = Buffer.alloc(size)
  for (let i = HEADER_BYTES; i < size; i++) buffer[i] = (i * 31 + socketIndex * 7) & 0xff
  buffer.writeUInt32LE(socketIndex >>> 0, 0)
  return buffer
}

/**
 * Writes the sequence number into the template: it is now the next message.
 * @param {Buffer} template
 * @param {number} seq
 */
export function stampEcho (template, seq) {
  template.writeUInt32LE(seq >>> 0, 4)
  return template
}

/**
 * Why an echo is not the message sent, or null when it is.
 * @param {unknown} received  the echo as the client got it (an ArrayBuffer or a view for binary, a string for text)
 * @param {Buffer} sent       the message sent (its template, stamped)
 * @returns {string | null}
 */
export function echoMismatch (received, sent) {
  if (typeof received === 'string') return `a text message of ${received.length} characters instead of ${sent.length} binary bytes`
  /** @type {Buffer} */
  let bytes
  if (received instanceof ArrayBuffer) bytes = Buffer.from(received)
  else if (ArrayBuffer.isView(received)) bytes = Buffer.from(received.buffer, received.byteOffset, received.byteLength)
  else return `not binary data (${Object.prototype.toString.call(received)})`
  if (bytes.length !== sent.length) return `${bytes.length} bytes instead of ${sent.length}`
  if (bytes.equals(sent)) return null
  const [socket, seq] = [bytes.readUInt32LE(0), bytes.readUInt32LE(4)]
  const [wantSocket, wantSeq] = [sent.readUInt32LE(0), sent.readUInt32LE(4)]
  if (socket !== wantSocket) return `the echo of socket ${socket}'s message ${seq} on socket ${wantSocket}`
  if (seq !== wantSeq) return `message ${seq} where ${wantSeq} was expected`
  let at = HEADER_BYTES
  while (at < bytes.length && bytes[at] === sent[at]) at++
  return `message ${seq}: byte ${at} is ${bytes[at]}, sent ${sent[at]}`
}
