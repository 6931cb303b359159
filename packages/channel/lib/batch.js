// @ts-check
// The wire format shared by every channel kind: one message carries a batch of frames laid flat in one
// array, four slots per frame ([op, id, a, b, …]): flat arrays of primitives cost structured clone (and
// JSON) less than an object per frame, and a fixed stride makes validation one modulo.
import { CODES } from './errors.js'

export const STRIDE = 4

// caller -> callee
export const CALL = 1 // a: handler name, b: payload
export const CANCEL = 2 // abort the handler's signal; no answer follows
// callee -> caller
export const OK = 3 // a: the handler's value
export const ERR = 4 // a: ChannelError code, b: message
export const FAIL = 5 // the whole channel is broken (a: message); the callee closes it

/** Error codes a callee may send in an ERR frame; anything else reads as WATT_CHANNEL_REMOTE. */
/** @type {Set<string>} */
export const REMOTE_CODES = new Set([CODES.REMOTE, CODES.UNKNOWN_HANDLER, CODES.TOO_LARGE, CODES.BAD_PAYLOAD])

/**
 * @param {unknown} frames
 * @returns {frames is unknown[]}
 */
export function isBatch (frames) {
  return Array.isArray(frames) && frames.length > 0 && frames.length % STRIDE === 0
}

/**
 * Ids are positive integers below 2^31 (they wrap).
 * @param {unknown} id
 * @returns {id is number}
 */
export function isId (id) {
  return typeof id === 'number' && id > 0 && id < 0x80000000 && Number.isInteger(id)
}
