// @ts-check
// The error catalog: every error this package throws, or passes to a handler, carries a
// code from CODES, in a namespace of its own (as undici's UND_ERR_* and Fastify's FST_ERR_*),
// so callers and this package's own threads tell errors apart by `code`, never by text.

/** Each code, what it means, and whether a request that failed with it may be sent again. */
export const CODES = Object.freeze({
  /** The channel could not be opened (no such application, no worker, no serve there, no answer). Nothing was sent. */
  UNREACHABLE: 'WATT_CHANNEL_UNREACHABLE',
  /** The channel or connection closed with the call pending: the worker stopped, crashed or restarted. */
  CLOSED: 'WATT_CHANNEL_CLOSED',
  /** A stopping worker did not take the request, and no other worker could: nothing of it was served. */
  REFUSED: 'WATT_CHANNEL_REFUSED',
  /** No answer within the call's deadline. */
  TIMEOUT: 'WATT_CHANNEL_TIMEOUT',
  /** The caller's signal aborted the call (its reason is `cause`). */
  ABORTED: 'WATT_CHANNEL_ABORTED',
  /** The handler threw or rejected; its message is kept. */
  REMOTE: 'WATT_CHANNEL_REMOTE',
  /** The peer sent something that is not the protocol; the channel was closed. */
  PROTOCOL: 'WATT_CHANNEL_PROTOCOL',
  /** A payload or answer exceeds maxPayloadBytes. */
  TOO_LARGE: 'WATT_CHANNEL_TOO_LARGE',
  /** A payload or answer the channel's kind cannot encode. */
  BAD_PAYLOAD: 'WATT_CHANNEL_BAD_PAYLOAD',
  /** No handler of that name. */
  UNKNOWN_HANDLER: 'WATT_CHANNEL_UNKNOWN_HANDLER',
  /** A handshake refused because the worker is stopping: its replacement is asked instead. */
  STOPPING: 'WATT_CHANNEL_STOPPING',
  /** A handshake refused because the worker has no single HTTP server to serve with. */
  NO_SERVER: 'WATT_CHANNEL_NO_SERVER',
  /** Outside Watt, or in a Watt thread without what the package needs (messaging, ITC). */
  NO_WATT: 'WATT_CHANNEL_NO_WATT',
  /** An option or argument with a value it cannot take. */
  INVALID_OPTION: 'WATT_CHANNEL_INVALID_OPTION',
  /** A request the drop-in does not carry between applications (CONNECT). Nothing was sent. */
  UNSUPPORTED: 'WATT_CHANNEL_UNSUPPORTED'
})

/** @typedef {typeof CODES[keyof typeof CODES]} ChannelErrorCode */

const KNOWN = new Set(Object.values(CODES))

/**
 * Codes after which a request is safe to send again with undici's retry interceptor
 * (`errorCodes`): nothing of it was served (UNREACHABLE, REFUSED), or, for idempotent
 * methods only, its worker died before answering (CLOSED).
 */
export const RETRYABLE_CODES = Object.freeze([CODES.UNREACHABLE, CODES.REFUSED, CODES.CLOSED])

/**
 * @param {unknown} code
 * @returns {code is ChannelErrorCode}
 */
export function isChannelErrorCode (code) {
  return KNOWN.has(/** @type {any} */ (code))
}

export class ChannelError extends Error {
  /**
   * @param {string} application  the peer the error is about, leading the message ('' for none)
   * @param {ChannelErrorCode} code
   * @param {string} message
   * @param {{ cause?: unknown }} [options]
   */
  constructor (application, code, message, options) {
    if (!KNOWN.has(code)) throw new TypeError(`not a code of the catalog: ${code}`)
    super(application === '' ? message : `${application}: ${message}`, options)
    this.name = 'ChannelError'
    this.application = application
    this.code = code
  }
}

/** A bad option or argument: a TypeError, as Node's own ERR_INVALID_ARG_VALUE is, with a code of the catalog. */
export class InvalidOptionError extends TypeError {
  /** @param {string} message */
  constructor (message) {
    super(message)
    this.name = 'InvalidOptionError'
    this.code = CODES.INVALID_OPTION
  }
}

/**
 * What a callee's connection fails with when its caller is gone: the code a TCP reset
 * gives, because node:http's server treats ECONNRESET as a peer that left (no 400 written).
 */
export const CONNECTION_RESET = 'ECONNRESET'

/** @param {string} message */
export function connectionReset (message) {
  return Object.assign(new Error(message), { code: CONNECTION_RESET })
}

/**
 * The catalog code a remote handler failed with, carried across a Watt messaging or ITC
 * answer (@platformatic/itc sends it as `handlerErrorCode`), looked for down the causes.
 * @param {unknown} err
 * @returns {ChannelErrorCode | undefined}
 */
export function remoteCode (err) {
  /** @type {any} */
  let e = err
  for (let depth = 0; e != null && depth < 4; depth++, e = e.cause) {
    const code = e.handlerErrorCode ?? e.handlerError?.code
    if (isChannelErrorCode(code)) return code
  }
  return undefined
}
