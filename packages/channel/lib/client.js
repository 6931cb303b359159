// @ts-check
// The caller's end: `connect(application, options)` returns a client whose `call`
// sends a named request to the application's `serve` handlers over a dedicated
// channel, opened lazily on the first call and again after it was lost.
import { CODECS } from './codecs.js'
import { ChannelError, CODES, InvalidOptionError } from './errors.js'
import { CALL, CANCEL, ERR, FAIL, isBatch, isId, OK, REMOTE_CODES, STRIDE } from './batch.js'
import { DeadlineTimer } from './deadlines.js'
import { flushOption } from './flush.js'
import { openPort, wattMessaging } from './handshake.js'
import { portEnd } from './port-end.js'
import { MESSAGE_SLACK, shmEnd } from './shm/end.js'
import { checkRingBytes, createRing } from './shm/ring.js'

export const KINDS = /** @type {const} */ (['port', 'shm'])
/** @typedef {typeof KINDS[number]} Kind */

export const DEFAULT_TIMEOUT_MS = 30_000
export const DEFAULT_MAX_PAYLOAD_BYTES = 8 * 1024 * 1024
export const DEFAULT_RING_BYTES = 256 * 1024
const MAX_NAME_LENGTH = 256

/**
 * @typedef {object} ConnectOptions
 * @property {Kind} [kind] 'port' (default) or 'shm'
 * @property {number} [timeoutMs] default per-call deadline (30 s)
 * @property {number} [maxPayloadBytes] largest payload, each way (8 MiB)
 * @property {import('./flush.js').FlushMode} [flush] when frames leave: 'callback' (default) or 'turn' (flush.js)
 * @property {number} [ringBytes] shm: data bytes per ring, a power of two (256 KiB)
 * @property {import('./shm/end.js').BellKind} [bell] shm: the wake-up ('port')
 * @property {boolean} [bellWhenIdleOnly] shm: ring only a reader that said it sleeps (true; false is for measuring)
 * @property {import('./handshake.js').Messaging} [messaging] defaults to Watt's
 */

/**
 * @typedef {object} Pending
 * @property {number} id
 * @property {(value: unknown) => void} resolve
 * @property {(err: Error) => void} reject
 * @property {number} deadline
 * @property {number} timeoutMs
 * @property {AbortSignal | undefined} signal
 * @property {(() => void) | undefined} onAbort
 * @property {string} name
 * @property {unknown} payload encoded, kept only until sent
 * @property {boolean} sent
 */

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
    throw new InvalidOptionError(`messaging must have ${uses === 'send' ? 'send(application, name, data, options)' : 'handle(name, handler)'}`)
  }
}

/**
 * @param {string} application
 * @param {ConnectOptions} [options]
 */
export function connect (application, options) {
  return new ChannelClient(application, options)
}

export class ChannelClient {
  #application
  #kind
  #timeoutMs
  #maxPayloadBytes
  #flush
  #ringBytes
  #bell
  #idleFlag
  /** @type {import('./handshake.js').Messaging | undefined} */
  #messaging
  /** @type {Map<number, Pending>} */
  #pending = new Map()
  /** @type {import('./port-end.js').ChannelEnd | null} */
  #link = null
  /** @type {Promise<void> | null} */
  #opening = null
  /** @type {Pending[]} */
  #unsent = []
  #nextId = 0
  #closed = false
  #deadlines
  #codec

  /**
   * @param {string} application
   * @param {ConnectOptions} [options]
   */
  constructor (application, { kind = 'port', timeoutMs = DEFAULT_TIMEOUT_MS, maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES, flush = 'callback', ringBytes = DEFAULT_RING_BYTES, bell = 'port', bellWhenIdleOnly = true, messaging } = {}) {
    if (typeof application !== 'string' || application === '') throw new InvalidOptionError(`application must be a non-empty string, not ${JSON.stringify(application)}`)
    if (!KINDS.includes(kind)) throw new InvalidOptionError(`kind must be one of ${KINDS.join(', ')}, not ${JSON.stringify(kind)}`)
    checkTimeout(timeoutMs)
    checkCommonOptions({ maxPayloadBytes, flush, messaging }, 'send')
    if (bell !== 'port' && bell !== 'wait-async') throw new InvalidOptionError(`bell must be 'port' or 'wait-async', not ${JSON.stringify(bell)}`)
    if (typeof bellWhenIdleOnly !== 'boolean') throw new InvalidOptionError(`bellWhenIdleOnly must be true or false, not ${JSON.stringify(bellWhenIdleOnly)}`)
    if (kind === 'shm') checkRingBytes(ringBytes) // early: the rings themselves are made per channel
    this.#application = application
    this.#kind = kind
    this.#codec = CODECS[kind]
    this.#timeoutMs = timeoutMs
    this.#maxPayloadBytes = maxPayloadBytes
    this.#flush = flushOption(flush)
    this.#ringBytes = ringBytes
    this.#bell = bell
    this.#idleFlag = bellWhenIdleOnly !== false
    this.#messaging = messaging
    this.#deadlines = new DeadlineTimer((now) => this.#expire(now))
  }

  get application () { return this.#application }
  get kind () { return this.#kind }
  /** Calls waiting for an answer (for diagnostics and leak checks). */
  get pending () { return this.#pending.size }
  /** Whether a channel is open right now (it opens on the first call). */
  get connected () { return this.#link !== null }

  /**
   * Calls handler `name` of the application with `payload`.
   * Rejects with a ChannelError naming the application, its code from the catalog
   * (errors.js): TIMEOUT, ABORTED, CLOSED, UNREACHABLE, PROTOCOL, TOO_LARGE,
   * BAD_PAYLOAD, UNKNOWN_HANDLER or REMOTE (the handler threw; its message is kept).
   * @param {string} name
   * @param {unknown} [payload]
   * @param {{ signal?: AbortSignal, timeoutMs?: number }} [options]
   * @returns {Promise<unknown>}
   */
  call (name, payload, options) {
    const signal = options?.signal
    const timeoutMs = options?.timeoutMs ?? this.#timeoutMs
    return new Promise((resolve, reject) => {
      const problem = this.#refuse(name, timeoutMs, signal)
      if (problem) return reject(problem)
      let encoded
      try {
        encoded = this.#codec.encode(payload)
      } catch (err) {
        return reject(this.#error(CODES.BAD_PAYLOAD, `payload cannot be sent over ${this.#kind}: ${/** @type {Error} */ (err).message}`, err))
      }
      if (this.#codec.exceeds(encoded, this.#maxPayloadBytes)) return reject(this.#error(CODES.TOO_LARGE, `payload larger than ${this.#maxPayloadBytes} bytes`))
      this.#nextId = this.#nextId >= 0x7fffffff ? 1 : this.#nextId + 1
      /** @type {Pending} */
      const entry = { id: this.#nextId, resolve, reject, deadline: performance.now() + timeoutMs, timeoutMs, signal, onAbort: undefined, name, payload: encoded, sent: false }
      this.#pending.set(entry.id, entry)
      this.#deadlines.arm(entry.deadline)
      if (signal) {
        entry.onAbort = () => this.#cancel(entry, this.#error(CODES.ABORTED, `call ${name} aborted`, signal.reason))
        signal.addEventListener('abort', entry.onAbort, { once: true })
      }
      if (this.#link) this.#send(this.#link, entry)
      else {
        this.#unsent.push(entry)
        this.#open()
      }
    })
  }

  /** Rejects every pending call with WATT_CHANNEL_CLOSED and closes the channel; later calls reject. */
  close () {
    if (this.#closed) return
    this.#closed = true
    this.#drop(CODES.CLOSED, 'the client was closed')
  }

  /**
   * @param {string} name
   * @param {number} timeoutMs
   * @param {AbortSignal | undefined} signal
   */
  #refuse (name, timeoutMs, signal) {
    if (this.#closed) return this.#error(CODES.CLOSED, 'the client was closed')
    if (typeof name !== 'string' || name === '' || name.length > MAX_NAME_LENGTH) return new InvalidOptionError(`handler name must be a string of 1 to ${MAX_NAME_LENGTH} characters`)
    if (!(timeoutMs > 0 && timeoutMs <= 0x7fffffff)) return new InvalidOptionError(`timeoutMs must be a positive number of milliseconds (at most 2^31 - 1), not ${timeoutMs}`)
    if (signal?.aborted) return this.#error(CODES.ABORTED, `call ${name} aborted`, signal.reason)
    return null
  }

  /**
   * @param {import('./port-end.js').ChannelEnd} link
   * @param {Pending} entry
   */
  #send (link, entry) {
    entry.sent = true
    link.push(CALL, entry.id, entry.name, entry.payload)
    entry.payload = undefined
  }

  #open () {
    if (this.#opening) return
    const opened = this.#kind === 'port' ? this.#openPort() : this.#openShm()
    this.#opening = opened.then((link) => {
      this.#opening = null
      if (this.#closed) return link.close()
      this.#link = link
      link.start((frames) => this.#receive(link, frames), (code, reason) => this.#lost(link, code, reason), (op, id, err) => {
        const entry = this.#pending.get(id)
        if (op === CALL && entry) this.#settle(entry)?.reject(this.#error(CODES.BAD_PAYLOAD, `payload cannot be sent over ${this.#kind}: ${err.message}`, err))
      })
      const unsent = this.#unsent
      this.#unsent = []
      for (const entry of unsent) if (this.#pending.has(entry.id)) this.#send(link, entry)
    }, (err) => {
      this.#opening = null
      const unsent = this.#unsent
      this.#unsent = []
      for (const entry of unsent) this.#settle(entry)?.reject(err)
    })
  }

  async #openPort () {
    const port = await openPort(this.#application, 'port', { messaging: this.#messaging ?? wattMessaging(), meta: { maxPayloadBytes: this.#maxPayloadBytes } })
    return portEnd(port, this.#flush)
  }

  async #openShm () {
    const requests = createRing(this.#ringBytes)
    const answers = createRing(this.#ringBytes)
    const meta = { requests, answers, bell: this.#bell, idleFlag: this.#idleFlag, maxPayloadBytes: this.#maxPayloadBytes }
    const port = await openPort(this.#application, 'shm', { messaging: this.#messaging ?? wattMessaging(), meta })
    return shmEnd(port, { inbound: answers, outbound: requests, maxMessageBytes: this.#maxPayloadBytes + MESSAGE_SLACK, flush: this.#flush, bell: this.#bell, idleFlag: this.#idleFlag })
  }

  /**
   * @param {import('./port-end.js').ChannelEnd} link
   * @param {unknown} frames
   */
  #receive (link, frames) {
    if (link !== this.#link) return
    if (!isBatch(frames)) return this.#broken(link, `answered a malformed batch (${describe(frames)})`)
    for (let i = 0; i < frames.length; i += STRIDE) {
      const op = frames[i]
      const id = frames[i + 1]
      if (op === FAIL) return this.#broken(link, `reported a broken channel: ${String(frames[i + 2]).slice(0, 200)}`)
      if ((op !== OK && op !== ERR) || !isId(id)) return this.#broken(link, `answered a malformed frame (op ${describe(op)}, id ${describe(id)})`)
      const entry = this.#pending.get(id)
      if (!entry) continue // a late answer to a call that timed out or was aborted
      this.#settle(entry)
      if (op === OK) entry.resolve(frames[i + 2])
      else {
        const code = REMOTE_CODES.has(/** @type {string} */ (frames[i + 2])) ? /** @type {import('./errors.js').ChannelErrorCode} */ (frames[i + 2]) : CODES.REMOTE
        entry.reject(this.#error(code, `${entry.name}: ${String(frames[i + 3]).slice(0, 1000)}`))
      }
    }
  }

  /**
   * @param {import('./port-end.js').ChannelEnd} link
   * @param {string} reason
   */
  #broken (link, reason) {
    link.close()
    this.#lost(link, CODES.PROTOCOL, reason)
  }

  /**
   * The channel is gone: every call on it fails now; the next call reopens.
   * @param {import('./port-end.js').ChannelEnd} link
   * @param {import('./errors.js').ChannelErrorCode} code
   * @param {string} reason
   */
  #lost (link, code, reason) {
    if (link !== this.#link) return
    this.#link = null
    for (const entry of [...this.#pending.values()]) {
      if (entry.sent) this.#settle(entry)?.reject(this.#error(code, reason))
    }
    if (this.#pending.size === 0) this.#deadlines.stop()
  }

  /**
   * @param {import('./errors.js').ChannelErrorCode} code
   * @param {string} reason
   */
  #drop (code, reason) {
    const link = this.#link
    this.#link = null
    link?.close()
    this.#unsent = []
    for (const entry of [...this.#pending.values()]) this.#settle(entry)?.reject(this.#error(code, reason))
    this.#deadlines.stop()
  }

  /**
   * @param {Pending} entry
   * @param {ChannelError} err
   */
  #cancel (entry, err) {
    if (!this.#settle(entry)) return
    if (entry.sent && this.#link) this.#link.push(CANCEL, entry.id, 0, 0)
    entry.reject(err)
  }

  /** @param {number} now */
  #expire (now) {
    let next = Infinity
    for (const entry of this.#pending.values()) {
      if (entry.deadline <= now) this.#cancel(entry, this.#error(CODES.TIMEOUT, `${entry.name} did not answer within ${entry.timeoutMs} ms`))
      else if (entry.deadline < next) next = entry.deadline
    }
    return next
  }

  /**
   * Removes a call from the books; returns it if it was still pending.
   * @param {Pending} entry
   */
  #settle (entry) {
    if (!this.#pending.delete(entry.id)) return null
    if (entry.onAbort) entry.signal?.removeEventListener('abort', entry.onAbort)
    if (this.#pending.size === 0) this.#deadlines.stop() // an idle client holds no timer (and no event loop)
    return entry
  }

  /**
   * @param {import('./errors.js').ChannelErrorCode} code
   * @param {string} message
   * @param {unknown} [cause]
   */
  #error (code, message, cause) {
    return new ChannelError(this.#application, code, message, cause === undefined ? undefined : { cause })
  }
}

/** @param {unknown} value */
function describe (value) {
  if (Array.isArray(value)) return `an array of ${value.length}`
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40))
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : String(value)
}

/** @param {number} timeoutMs */
function checkTimeout (timeoutMs) {
  if (!(timeoutMs > 0 && timeoutMs <= 0x7fffffff)) throw new InvalidOptionError(`timeoutMs must be a positive number of milliseconds (at most 2^31 - 1), not ${timeoutMs}`)
}
