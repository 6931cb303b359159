// @ts-check
// Why a handshake with one worker failed. Our callee's refusals travel with a catalog
// code (errors.js); Watt's own answers (no handler there, an app not started yet) are
// told apart by Watt's error code, or by its wording on releases that carry none.
import { CODES, remoteCode } from '../errors.js'
import { handlerFailed, handlerMessage, noHandler, notStarted, wattCode } from '../watt/call-errors.js'

/**
 * @typedef {object} Refusal
 * @property {'stopping' | 'refused' | 'failed'} outcome  stopping: the worker is on its way out
 *   (its replacement comes with the next change); refused: it cannot serve the drop-in (the
 *   application takes the mesh); failed: no answer either way (look again)
 * @property {string} reason
 */

/**
 * @param {Error} err  what the handshake rejected with
 * @returns {Refusal}
 */
export function refusal (err) {
  const cause = /** @type {any} */ (err).cause
  const text = String(cause?.message ?? err.message)
  const reason = handlerMessage(text)
  const ours = remoteCode(err)
  if (ours === CODES.STOPPING) return { outcome: 'stopping', reason }
  if (ours === CODES.NO_SERVER) return { outcome: 'refused', reason }
  const code = wattCode(cause)
  // A worker still starting: not yet, not no. A refusal would send the whole application to the
  // mesh and fail the calls in flight on its live workers, for a worker that serves in a moment.
  if (notStarted(code, text)) return { outcome: 'failed', reason }
  if (noHandler(code, text)) {
    return { outcome: 'refused', reason: 'its workers do not run the drop-in (no mesh-port handler)' }
  }
  // Any other error a handler there threw: it cannot serve the drop-in.
  if (handlerFailed(code, text)) return { outcome: 'refused', reason }
  return { outcome: 'failed', reason: text }
}
