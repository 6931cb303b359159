// @ts-check
// A request a stopping worker refused (it served none of it) moves to another worker and is sent again:
// the body bytes sent before any answer are kept for that, up to REPLAY_BYTES, as on the HTTP wire.
import { errors } from 'undici'
import { ChannelError, CODES } from '../../errors.js'
import { REPLAY_BYTES } from '../../wire/signals.js'

const TOO_LARGE = `is larger than ${REPLAY_BYTES} bytes, so it could not move`

/**
 * A refused request's failure.
 * @param {string} application
 * @param {string} [why]
 */
const REFUSAL = (application, why = 'no other worker could take it') =>
  new ChannelError(application, CODES.REFUSED, `worker stopping: the request was refused and ${why}`)

export class Replay {
  /** @param {import('./call.js').FramesCall} call */
  constructor (call) {
    this.call = call
    /** refused, and waiting for another worker: an abort meanwhile ends it (client.js) */
    this.moving = false
    /** @type {Error | null} */
    this.abortedWhileMoving = null
    /** refused while its body was being sent: the rest is kept, not sent */
    this.collecting = false
    /** @type {Buffer[] | null} body bytes sent before any answer (null: too many, or answered) */
    this.kept = []
    this.keptBytes = 0
  }

  /**
   * Keeps a copy of body bytes sent before the answer began, up to REPLAY_BYTES.
   * @param {Buffer} bytes
   * @param {number} offset
   * @param {number} n
   * @returns {boolean}  false: too large to keep (it cannot move)
   */
  keep (bytes, offset, n) {
    if (this.kept === null || n === 0) return this.kept !== null
    if (this.keptBytes + n > REPLAY_BYTES || this.call.answered) {
      this.kept = null
      return false
    }
    this.kept.push(Buffer.from(bytes.subarray(offset, offset + n)))
    this.keptBytes += n
    return true
  }

  /** A stopping worker did not take the request: to another worker if it can move, failed otherwise. */
  refused () {
    const call = this.call
    if (call.client === null) return call.fail(REFUSAL(call.application))
    const whole = call.outgoing.head.e
    if (!whole && this.kept === null) return call.fail(REFUSAL(call.application, TOO_LARGE))
    call.finish()
    this.moving = true
    if (whole) return this.move()
    // the body still coming is kept too; it moves once all of it is here
    this.collecting = true
    if (!call.pumping) this.moveWithBody()
  }

  /** The kept body becomes part of the head (a request of at most REPLAY_BYTES), then it moves. */
  moveWithBody () {
    const call = this.call
    this.collecting = false
    const body = Buffer.concat(/** @type {Buffer[]} */ (this.kept))
    call.outgoing = { head: { ...call.outgoing.head, b: body.toString('latin1'), e: true }, buffer: null, stream: null }
    this.move()
  }

  move () {
    const call = this.call
    const client = /** @type {import('./client.js').FramesClient} */ (call.client)
    client.relocate(call).then((moved) => {
      this.moving = false
      if (!moved) call.handler.onError(REFUSAL(call.application))
    }, (/** @type {Error} */ err) => {
      this.moving = false
      call.handler.onError(err)
    })
  }

  /** @param {Error} [err]  what ended the body still coming (a length that does not match, a stream's error) */
  cannotMove (err) {
    this.collecting = false
    this.moving = false
    this.call.handler.onError(err ?? REFUSAL(this.call.application, TOO_LARGE))
  }

  /**
   * The caller aborted: true when that ended a refused request whose body was still coming.
   * @param {Error | undefined} reason
   */
  aborted (reason) {
    if (this.collecting) {
      this.collecting = false
      this.moving = false
      this.call.destroyBody()
      this.call.handler.onError(reason ?? new errors.RequestAbortedError())
      return true
    }
    if (this.moving) this.abortedWhileMoving ??= reason ?? new errors.RequestAbortedError()
    return false
  }
}
