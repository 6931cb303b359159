// @ts-check
// The caller's end: `connect(application, options)` returns a client whose `call`
// sends a named request to the application's `serve` handlers over a dedicated
// channel, opened lazily on the first call and again after it was lost.
import { CODECS } from './codecs.js'
import { ChannelError, CODES, InvalidOptionError } from './errors.js'
import { CALL, CANCEL, ERR, FAIL, isBatch, isId, OK, REMOTE_CODES, STRIDE } from './batch.js'
import { openChannel } from './open-channel.js'
import { connectSettings, timeoutProblem } from './options.js'
import { PendingCalls } from './pending-calls.js'

const MAX_NAME_LENGTH = 256

/** @typedef {import('./options.js').Kind} Kind */

/**
 * @typedef {object} ConnectOptions
 * @property {Kind} [kind] 'port' (default) or 'shm'
 * @property {number} [timeoutMs] default per-call deadline (30 s)
 * @property {number} [maxPayloadBytes] largest payload, each way (8 MiB)
 * @property {import('./flush.js').Flush} [flush] when frames leave: 'callback' (default) or 'turn' (flush.js)
 * @property {number} [ringBytes] shm: data bytes per ring, a power of two (256 KiB)
 * @property {import('./handshake.js').Messaging} [messaging] defaults to Watt's
 */

/** @typedef {import('./pending-calls.js').Pending} Pending */

/**
 * @param {string} application
 * @param {ConnectOptions} [options]
 */
export function connect (application, options) {
  return new ChannelClient(application, options)
}

export class ChannelClient {
  #application
  /** @type {import('./options.js').ConnectSettings} */
  #settings
  #kind
  #timeoutMs
  #maxPayloadBytes
  #calls = new PendingCalls((entry) => this.#timedOut(entry))
  /** @type {import('./port-end.js').ChannelEnd | null} */
  #link = null
  /** @type {Promise<void> | null} */
  #opening = null
  /** @type {Pending[]} */
  #unsent = []
  #closed = false
  #codec

  /**
   * @param {string} application
   * @param {ConnectOptions} [options]
   */
  constructor (application, options) {
    const settings = connectSettings(application, options)
    this.#application = application
    this.#settings = settings
    this.#kind = settings.kind
    this.#codec = CODECS[settings.kind]
    this.#timeoutMs = settings.timeoutMs
    this.#maxPayloadBytes = settings.maxPayloadBytes
  }

  get application () { return this.#application }
  get kind () { return this.#kind }
  /** Calls waiting for an answer (for diagnostics and leak checks). */
  get pending () { return this.#calls.size }
  /** Whether a channel is open right now (it opens on the first call). */
  get connected () { return this.#link !== null }

  /**
   * Calls handler `name` of the application with `payload`. Rejects with a ChannelError naming the
   * application, its code from errors.js: TIMEOUT, ABORTED, CLOSED, UNREACHABLE, PROTOCOL, TOO_LARGE,
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
        return reject(this.#unsendable(/** @type {Error} */ (err)))
      }
      if (this.#codec.exceeds(encoded, this.#maxPayloadBytes)) {
        return reject(this.#error(CODES.TOO_LARGE, `payload larger than ${this.#maxPayloadBytes} bytes`))
      }
      const entry = this.#calls.add(name, encoded, timeoutMs, signal, resolve, reject)
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
    if (typeof name !== 'string' || name === '' || name.length > MAX_NAME_LENGTH) {
      return new InvalidOptionError(`handler name must be a string of 1 to ${MAX_NAME_LENGTH} characters`)
    }
    const badTimeout = timeoutProblem(timeoutMs)
    if (badTimeout) return badTimeout
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
    this.#opening = openChannel(this.#application, this.#settings).then((link) => {
      this.#opening = null
      if (this.#closed) return link.close()
      this.#link = link
      link.start(
        (frames) => this.#receive(link, frames),
        (code, reason) => this.#lost(link, code, reason),
        (op, id, err) => {
          const entry = this.#calls.get(id)
          if (op === CALL && entry) this.#calls.settle(entry)?.reject(this.#unsendable(err))
        })
      const unsent = this.#unsent
      this.#unsent = []
      for (const entry of unsent) if (this.#calls.has(entry.id)) this.#send(link, entry)
    }, (err) => {
      this.#opening = null
      const unsent = this.#unsent
      this.#unsent = []
      for (const entry of unsent) this.#calls.settle(entry)?.reject(err)
    })
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
      if ((op !== OK && op !== ERR) || !isId(id)) {
        return this.#broken(link, `answered a malformed frame (op ${describe(op)}, id ${describe(id)})`)
      }
      const entry = this.#calls.get(id)
      if (!entry) continue // a late answer to a call that timed out or was aborted
      this.#calls.settle(entry)
      if (op === OK) entry.resolve(frames[i + 2])
      else {
        const named = /** @type {import('./errors.js').ChannelErrorCode} */ (frames[i + 2])
        const code = REMOTE_CODES.has(named) ? named : CODES.REMOTE
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
    for (const entry of this.#calls.list()) {
      if (entry.sent) this.#calls.settle(entry)?.reject(this.#error(code, reason))
    }
    if (this.#calls.size === 0) this.#calls.stop()
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
    for (const entry of this.#calls.list()) this.#calls.settle(entry)?.reject(this.#error(code, reason))
    this.#calls.stop()
  }

  /**
   * @param {Pending} entry
   * @param {ChannelError} err
   */
  #cancel (entry, err) {
    if (!this.#calls.settle(entry)) return
    if (entry.sent && this.#link) this.#link.push(CANCEL, entry.id, 0, 0)
    entry.reject(err)
  }

  /** @param {Pending} entry */
  #timedOut (entry) {
    this.#cancel(entry, this.#error(CODES.TIMEOUT, `${entry.name} did not answer within ${entry.timeoutMs} ms`))
  }

  /** @param {Error} err  why the codec could not encode a payload */
  #unsendable (err) {
    return this.#error(CODES.BAD_PAYLOAD, `payload cannot be sent over ${this.#kind}: ${err.message}`, err)
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
