// @ts-check
// A frames-wire request's body, sent as the callee's credit allows, then FIN. A streamed body is held to the
// content-length its head declares as undici's HTTP/1.1 writer holds it: RequestContentLengthMismatchError, and
// the request reset, as soon as it runs over, or at its end when it falls short.
import { errors } from 'undici'
import { ChannelError, CODES } from '../../errors.js'
import { sendChunks } from '../../wire/data.js'
import { FIN, FRAME_BYTES } from '../../wire/signals.js'

/**
 * Sends the request body, then FIN.
 * @param {import('./call.js').FramesCall} call
 * @param {Iterable<unknown> | AsyncIterable<unknown>} body
 */
export async function pump (call, body) {
  const replay = call.replay
  const declared = declaredLength(call.outgoing.head.h)
  let total = 0
  call.pumping = true
  try {
    for await (const chunk of body) {
      if (call.done && !replay.collecting) break
      const bytes = bodyBytes(chunk)
      if (bytes === null) {
        throw new ChannelError(call.application, CODES.BAD_PAYLOAD, `a request body chunk of type ${typeof chunk}`)
      }
      total += bytes.length
      if (declared !== null && total > declared) throw new errors.RequestContentLengthMismatchError()
      let offset = 0
      while (offset < bytes.length && !call.done) {
        if (call.flow.credit <= 0) call.timer.held()
        while (call.flow.credit <= 0 && !call.done) {
          await new Promise((resolve) => { call.wake = () => resolve(undefined) })
        }
        if (call.done) break
        const n = Math.min(bytes.length - offset, call.flow.credit, FRAME_BYTES)
        // kept until an answer begins: a request a stopping worker refuses moves with them
        replay.keep(bytes, offset, n)
        call.flow.credit -= n
        sendChunks(call.mux, call.id, [bytes.subarray(offset, offset + n)], n)
        offset += n
      }
      // refused meanwhile: the rest of the body is kept, to be sent again elsewhere
      if (replay.collecting && !replay.keep(bytes, offset, bytes.length - offset)) return replay.cannotMove()
      if (call.done && !replay.collecting) break
    }
    const whole = !call.done || replay.collecting
    if (whole && declared !== null && total !== declared) throw new errors.RequestContentLengthMismatchError()
    call.pumping = false
    if (replay.collecting) return replay.moveWithBody()
    if (!call.done) {
      call.mux.send(call.id, FIN)
      call.timer.sent()
    }
  } catch (err) {
    call.pumping = false
    if (replay.collecting) {
      call.destroyBody()
      return replay.cannotMove(/** @type {Error} */ (err))
    }
    call.abort(/** @type {Error} */ (err))
  }
}

/**
 * The content-length a request head declares for its body (null: none, it is sent chunked).
 * @param {string[]} lines  the head's header lines, name then value
 */
function declaredLength (lines) {
  for (let i = lines.length - 2; i >= 0; i -= 2) if (lines[i] === 'content-length') return Number(lines[i + 1])
  return null
}

/**
 * A request body chunk as bytes; null when it is neither a string nor bytes.
 * @param {unknown} chunk
 */
function bodyBytes (chunk) {
  if (typeof chunk === 'string') return Buffer.from(chunk)
  return ArrayBuffer.isView(chunk) ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : null
}
