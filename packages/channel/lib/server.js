// @ts-check
// The callee's end: `serve({ name: handler, … })` answers calls from every client,
// on every channel kind, like Watt messaging's `handle`. Each handler gets the
// payload and `{ signal }`, aborted when the caller cancels or its deadline passes.
import { CODECS } from './codecs.js'
import { ChannelError, CODES, InvalidOptionError } from './errors.js'
import { CALL, CANCEL, ERR, FAIL, isBatch, isId, OK, STRIDE } from './batch.js'
import { flushOption } from './flush.js'
import { acceptPorts, wattMessaging } from './handshake.js'
import { portEnd } from './port-end.js'
import { MESSAGE_SLACK, shmEnd } from './shm/end.js'
import { isRing } from './shm/ring.js'
import { checkCommonOptions, checkKind, checkServeOptions, DEFAULT_MAX_PAYLOAD_BYTES, KINDS } from './options.js'

/** A caller cannot make the callee accept messages larger than this, whatever it asks. */
const MAX_ACCEPTED_PAYLOAD_BYTES = 256 * 1024 * 1024

/**
 * @typedef {(payload: any, context: { signal: AbortSignal }) => unknown} Handler
 * @typedef {object} ServeOptions
 * @property {import('./handshake.js').Messaging} [messaging] defaults to Watt's
 * @property {import('./options.js').Kind[]} [kinds] the kinds to accept (all)
 * @property {number} [maxPayloadBytes] largest answer this side sends (8 MiB; the caller's own limit applies too)
 * @property {import('./flush.js').Flush} [flush] when answers leave: 'callback' (default) or 'turn' (flush.js)
 */

/**
 * @param {Record<string, Handler>} handlers
 * @param {ServeOptions} [options]
 */
export function serve (handlers, options = {}) {
  if (handlers === null || typeof handlers !== 'object') {
    throw new InvalidOptionError('handlers must be an object of functions by name')
  }
  checkServeOptions(options)
  const {
    messaging, kinds = [...KINDS], maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES, flush: flushMode = 'callback'
  } = options
  if (!Array.isArray(kinds) || kinds.length === 0) {
    throw new InvalidOptionError(`kinds must be a non-empty array of ${KINDS.join(', ')}`)
  }
  checkCommonOptions({ maxPayloadBytes, flush: flushMode, messaging }, 'handle')
  const flush = flushOption(flushMode)
  /** @type {Map<string, Handler>} */
  const byName = new Map()
  for (const [name, handler] of Object.entries(handlers)) {
    if (typeof handler !== 'function') throw new InvalidOptionError(`handler ${name} must be a function`)
    byName.set(name, handler)
  }
  for (const kind of kinds) checkKind(kind)
  /** @type {Set<ServedChannel>} */
  const channels = new Set()
  const api = messaging ?? wattMessaging()
  for (const kind of kinds) {
    acceptPorts(kind, (port, meta) => {
      const end = kind === 'port' ? portEnd(port, flush) : openShmEnd(port, meta, flush)
      const channel = new ServedChannel(byName, channels, end, kind, Math.min(maxPayloadBytes, callerLimit(meta)))
      channels.add(channel)
    }, { messaging: api })
  }
  return {
    /** Channels open right now. */
    get channels () { return channels.size },
    /** Handlers running right now. */
    get running () {
      let n = 0
      for (const channel of channels) n += channel.running.size
      return n
    },
    /** Closes every open channel (callers see WATT_CHANNEL_CLOSED); new ones are still accepted. */
    closeChannels () {
      for (const channel of [...channels]) channel.end()
    }
  }
}

/** @param {unknown} meta */
function callerLimit (meta) {
  const limit = /** @type {{ maxPayloadBytes?: unknown }} */ (meta)?.maxPayloadBytes
  const given = typeof limit === 'number' && Number.isInteger(limit) && limit > 0
  return given ? Math.min(/** @type {number} */ (limit), MAX_ACCEPTED_PAYLOAD_BYTES) : DEFAULT_MAX_PAYLOAD_BYTES
}

/**
 * @param {import('node:worker_threads').MessagePort} port
 * @param {unknown} meta
 * @param {import('./flush.js').Flush} flush
 */
function openShmEnd (port, meta, flush) {
  /** @type {{ requests?: unknown, answers?: unknown }} */
  const offered = /** @type {any} */ (meta ?? {})
  const { requests, answers } = offered
  if (!isRing(requests) || !isRing(answers)) {
    port.close()
    throw new ChannelError('', CODES.PROTOCOL, 'shm handshake without two rings')
  }
  return shmEnd(port, {
    inbound: requests,
    outbound: answers,
    maxMessageBytes: callerLimit(meta) + MESSAGE_SLACK,
    flush
  })
}

class ServedChannel {
  /**
   * @param {Map<string, Handler>} handlers
   * @param {Set<ServedChannel>} channels
   * @param {import('./port-end.js').ChannelEnd} link
   * @param {string} kind
   * @param {number} maxAnswerBytes
   */
  constructor (handlers, channels, link, kind, maxAnswerBytes) {
    this.handlers = handlers
    this.channels = channels
    this.link = link
    this.codec = CODECS[/** @type {'port' | 'shm'} */ (kind)]
    this.maxAnswerBytes = maxAnswerBytes
    /** @type {Map<number, AbortController>} */
    this.running = new Map()
    this.ended = false
    link.start((frames) => this.receive(frames), () => this.end(), (op, id, err) => {
      if (op === OK) link.push(ERR, id, CODES.BAD_PAYLOAD, `the answer cannot be sent: ${err.message}`)
    })
  }

  /** @param {unknown} frames */
  receive (frames) {
    if (this.ended) return
    if (!isBatch(frames)) return this.refuse('a malformed batch')
    this.link.cork()
    try {
      for (let i = 0; i < frames.length; i += STRIDE) {
        const op = frames[i]
        const id = frames[i + 1]
        if (!isId(id)) return this.refuse('a frame without a valid id')
        if (op === CALL) this.run(id, frames[i + 2], frames[i + 3])
        else if (op === CANCEL) this.cancel(id)
        else return this.refuse(`a frame with unknown op ${JSON.stringify(op)}`)
        if (this.ended) return
      }
    } finally {
      this.link.uncork()
    }
  }

  /**
   * @param {number} id
   * @param {unknown} name
   * @param {unknown} payload
   */
  run (id, name, payload) {
    if (this.running.has(id)) return this.refuse(`a second call with id ${id}`)
    const handler = typeof name === 'string' ? this.handlers.get(name) : undefined
    if (!handler) {
      const message = `no handler named ${JSON.stringify(name)}`
      return this.link.push(ERR, id, CODES.UNKNOWN_HANDLER, this.codec.encode(message))
    }
    const controller = new AbortController()
    this.running.set(id, controller)
    let result
    try {
      result = handler(payload, { signal: controller.signal })
    } catch (err) {
      return this.fail(id, err)
    }
    if (result !== null && typeof result === 'object' && typeof (/** @type {any} */ (result).then) === 'function') {
      /** @type {PromiseLike<unknown>} */ (result).then((value) => this.answer(id, value), (err) => this.fail(id, err))
    } else {
      this.answer(id, result)
    }
  }

  /**
   * @param {number} id
   * @param {unknown} value
   */
  answer (id, value) {
    if (!this.running.delete(id) || this.ended) return // cancelled: the caller has stopped waiting
    let encoded
    try {
      encoded = this.codec.encode(value)
    } catch (err) {
      const message = `the answer cannot be sent: ${/** @type {Error} */ (err).message}`
      return this.link.push(ERR, id, CODES.BAD_PAYLOAD, this.codec.encode(message))
    }
    if (this.codec.exceeds(encoded, this.maxAnswerBytes)) {
      const message = `the answer is larger than ${this.maxAnswerBytes} bytes`
      return this.link.push(ERR, id, CODES.TOO_LARGE, this.codec.encode(message))
    }
    this.link.push(OK, id, encoded, 0)
  }

  /**
   * @param {number} id
   * @param {unknown} err
   */
  fail (id, err) {
    if (!this.running.delete(id) || this.ended) return
    const message = err instanceof Error ? err.message : String(err)
    this.link.push(ERR, id, CODES.REMOTE, this.codec.encode(message.slice(0, 1000)))
  }

  /** @param {number} id */
  cancel (id) {
    const controller = this.running.get(id)
    if (!controller) return // already answered
    this.running.delete(id)
    controller.abort(new ChannelError('caller', CODES.ABORTED, 'the caller cancelled the call'))
  }

  /**
   * The caller broke the protocol: say so, then close the channel (the caller
   * reopens a clean one on its next call).
   * @param {string} what
   */
  refuse (what) {
    this.link.push(FAIL, 0, `the callee received ${what}`, 0)
    queueMicrotask(() => this.end()) // after the flush that carries FAIL
  }

  end () {
    if (this.ended) return
    this.ended = true
    this.channels.delete(this)
    for (const controller of this.running.values()) {
      controller.abort(new ChannelError('caller', CODES.CLOSED, 'the channel closed'))
    }
    this.running.clear()
    // Close after pending answers of this turn had their chance to leave.
    setImmediate(() => this.link.close())
  }
}
