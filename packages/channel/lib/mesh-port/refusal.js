// @ts-check
// Why a handshake with one worker failed. Our callee's refusals travel with a catalog
// code (errors.js); Watt's own answers (no handler there, an app not started yet) are
// told apart by Watt's error code, or by its wording on releases that carry none.
import { CODES, remoteCode } from '../errors.js'

/** Watt's codes (@platformatic/itc's and @platformatic/runtime's errors.js) */
const WATT_NO_HANDLER = 'PLT_ITC_HANDLER_NOT_FOUND'
const WATT_NOT_STARTED = 'PLT_RUNTIME_APPLICATION_NOT_STARTED'

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
  const reason = text.replace(/^Handler failed with error: /, '')
  const code = remoteCode(err)
  if (code === CODES.STOPPING) return { outcome: 'stopping', reason }
  if (code === CODES.NO_SERVER) return { outcome: 'refused', reason }
  const wattCode = cause?.handlerErrorCode ?? cause?.code
  // A worker still starting: not yet, not no. Taken for a refusal, it sent a restarting
  // application to the mesh and failed the calls in flight on its live workers.
  if (wattCode === WATT_NOT_STARTED || /is not started/i.test(text)) return { outcome: 'failed', reason }
  if (wattCode === WATT_NO_HANDLER || (/handler/i.test(text) && /not found|missing|no handler/i.test(text))) {
    return { outcome: 'refused', reason: 'its workers do not run the drop-in (no mesh-port handler)' }
  }
  // Any other error a handler there threw: it cannot serve the drop-in.
  if (wattCode === 'PLT_ITC_HANDLER_FAILED' || /Handler failed/i.test(text)) return { outcome: 'refused', reason }
  return { outcome: 'failed', reason: text }
}
