// @ts-check
// The message channels' options: connect()'s and serve()'s defaults and checks. A bad value throws
// InvalidOptionError naming the option, before any channel opens.
import { InvalidOptionError } from './errors.js'
import { flushOption } from './flush.js'
import { checkRingBytes } from './shm/ring.js'

export const KINDS = /** @type {const} */ (['port', 'shm'])
/** @typedef {typeof KINDS[number]} Kind */

export const DEFAULT_TIMEOUT_MS = 30_000
export const DEFAULT_MAX_PAYLOAD_BYTES = 8 * 1024 * 1024
export const DEFAULT_RING_BYTES = 256 * 1024
/** The longest a timer waits (setTimeout's limit). */
const MAX_TIMEOUT_MS = 0x7fffffff

/**
 * @typedef {object} ConnectSettings  a client's options, checked, with their defaults
 * @property {Kind} kind
 * @property {number} timeoutMs
 * @property {number} maxPayloadBytes
 * @property {import('./flush.js').Flush} flush
 * @property {number} ringBytes
 * @property {import('./handshake.js').Messaging | undefined} messaging
 */

const CONNECT_OPTIONS = ['kind', 'timeoutMs', 'maxPayloadBytes', 'flush', 'ringBytes', 'messaging']
const SERVE_OPTIONS = ['messaging', 'kinds', 'maxPayloadBytes', 'flush']

/**
 * connect()'s arguments, checked one by one in this order.
 * @param {unknown} application
 * @param {import('./client.js').ConnectOptions} [options]
 * @returns {ConnectSettings}
 */
export function connectSettings (application, options = {}) {
  if (typeof application !== 'string' || application === '') {
    throw new InvalidOptionError(`application must be a non-empty string, not ${JSON.stringify(application)}`)
  }
  checkKnown(options, CONNECT_OPTIONS)
  const {
    kind = 'port',
    timeoutMs = DEFAULT_TIMEOUT_MS,
    maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES,
    flush = 'callback',
    ringBytes = DEFAULT_RING_BYTES,
    messaging
  } = options
  checkKind(kind)
  const badTimeout = timeoutProblem(timeoutMs)
  if (badTimeout) throw badTimeout
  checkCommonOptions({ maxPayloadBytes, flush, messaging }, 'send')
  if (kind === 'shm') checkRingBytes(ringBytes) // early: the rings themselves are made per channel
  return {
    kind,
    timeoutMs,
    maxPayloadBytes,
    flush: flushOption(flush),
    ringBytes,
    messaging
  }
}

/**
 * serve()'s options, each known (a typo, or an option 0.3 removed, throws).
 * @param {unknown} options
 */
export function checkServeOptions (options) {
  checkKnown(options, SERVE_OPTIONS)
}

/**
 * Throws InvalidOptionError for an option not in `known`.
 * @param {unknown} options
 * @param {string[]} known
 */
function checkKnown (options, known) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new InvalidOptionError('options must be an object')
  }
  const unknown = Object.keys(options).filter((key) => !known.includes(key))
  if (unknown.length > 0) {
    const names = unknown.map((k) => JSON.stringify(k)).join(', ')
    throw new InvalidOptionError(`unknown option ${names} (known: ${known.join(', ')})`)
  }
}

/**
 * The options a client and a server share, checked.
 * @param {{ maxPayloadBytes: unknown, flush: unknown, messaging: unknown }} options
 * @param {'send' | 'handle'} uses  what this side calls on messaging
 */
export function checkCommonOptions ({ maxPayloadBytes, flush, messaging }, uses) {
  if (!Number.isSafeInteger(maxPayloadBytes) || /** @type {number} */ (maxPayloadBytes) < 1) {
    throw new InvalidOptionError(`maxPayloadBytes must be a positive integer, not ${JSON.stringify(maxPayloadBytes)}`)
  }
  flushOption(flush)
  const m = /** @type {any} */ (messaging)
  if (m !== undefined && typeof m?.[uses] !== 'function') {
    const signature = uses === 'send' ? 'send(application, name, data, options)' : 'handle(name, handler)'
    throw new InvalidOptionError(`messaging must have ${signature}`)
  }
}

/** @param {unknown} kind */
export function checkKind (kind) {
  if (!KINDS.includes(/** @type {Kind} */ (kind))) {
    throw new InvalidOptionError(`kind must be one of ${KINDS.join(', ')}, not ${JSON.stringify(kind)}`)
  }
}

/**
 * A deadline's problem, if it has one (connect()'s default and each call's own are checked alike).
 * @param {number} timeoutMs
 * @returns {InvalidOptionError | null}
 */
export function timeoutProblem (timeoutMs) {
  if (timeoutMs > 0 && timeoutMs <= MAX_TIMEOUT_MS) return null
  return new InvalidOptionError(
    `timeoutMs must be a positive number of milliseconds (at most 2^31 - 1), not ${timeoutMs}`)
}
