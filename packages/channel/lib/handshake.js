// @ts-check
// Hands one end of a new MessageChannel to a Watt application, once, through Watt messaging (its `send`
// passes a transferList to postMessage: @platformatic/runtime lib/worker/messaging.js, `_send`), so every
// later call skips messaging's per-call bookkeeping (span, AbortController, timer, request id).
import { MessageChannel } from 'node:worker_threads'
/** @import { MessagePort, TransferListItem } from 'node:worker_threads' */
import { ChannelError, CODES } from './errors.js'
import { serializeFirstContact } from './first-contact.js'
import { closeLostChannelsAtExit } from './lost-channels.js'
import { messaging as wattMessagingApi } from './watt/globals.js'

/** Messaging handler names are namespaced so they never clash with an app's own. */
export const HANDSHAKE_PREFIX = 'watt-lab-channel:'

/**
 * How long a handshake may wait for its answer: Watt's send can hang for up to 90 s, and
 * a client's calls all wait on its one open (D-send-hang). A handshake takes milliseconds;
 * one that gave up fails its calls with 'unreachable' and the next call opens anew.
 */
export const HANDSHAKE_TIMEOUT_MS = 3000

/**
 * The part of Watt's `globalThis.platformatic.messaging` this library uses.
 * Tests (and non-Watt hosts) can pass any object with the same shape.
 * @typedef {object} Messaging
 * @property {(application: string, name: string, data: unknown, options?: SendOptions) => Promise<unknown>} send
 * @property {(name: string, handler: (data: any) => unknown) => void} handle
 */

/** @typedef {{ transferList?: TransferListItem[] }} SendOptions */

/**
 * Watt's messaging of this thread, with first contacts serialized (first-contact.js:
 * racing first sends leak a channel that keeps the thread alive at stop), and the
 * channels it loses track of closed at the thread's exit (lost-channels.js).
 * @returns {Messaging}
 */
export function wattMessaging () {
  const api = wattMessagingApi()
  if (!api) {
    throw new ChannelError('', CODES.NO_WATT, '@watt-lab/channel needs Watt messaging ' +
      '(globalThis.platformatic.messaging): run inside a Watt application, or pass { messaging }')
  }
  closeLostChannelsAtExit()
  return serializeFirstContact(api)
}

/** @typedef {void | Record<string, unknown>} Extra  what a callee adds to its answer */

/**
 * Callee side: accept ports of one kind ('port', 'shm', 'http', …).
 * @param {string} kind
 * @param {(port: MessagePort, meta: unknown) => (Extra | Promise<Extra>)} onPort
 *   may be async: the answer waits for it (the port is ours meanwhile)
 * @param {{ messaging?: Messaging }} [options]
 */
export function acceptPorts (kind, onPort, { messaging = wattMessaging() } = {}) {
  messaging.handle(HANDSHAKE_PREFIX + kind, (/** @type {{ port?: unknown, meta?: unknown }} */ data) => {
    const port = data?.port
    if (!port || typeof (/** @type {any} */ (port).postMessage) !== 'function') {
      throw new ChannelError('', CODES.PROTOCOL, 'handshake without a MessagePort')
    }
    // What onPort returns (an object) travels back with the answer, e.g. which worker took the port.
    const extra = onPort(/** @type {MessagePort} */ (port), data.meta)
    if (extra instanceof Promise) {
      return extra.then((value) => answerOf(kind, value), (err) => {
        /** @type {any} */ (port).close()
        throw err
      })
    }
    return answerOf(kind, extra)
  })
}

/**
 * @param {string} kind
 * @param {unknown} extra
 */
function answerOf (kind, extra) {
  return { ...(extra && typeof extra === 'object' ? extra : {}), accepted: kind }
}

/**
 * Caller side: open a dedicated port to `application`. Rejects with a
 * ChannelError(CODES.UNREACHABLE) naming the application when the handshake fails.
 * @param {string} application
 * @param {string} kind
 * @param {{ messaging?: Messaging, meta?: unknown, transfer?: TransferListItem[] }} [options]
 * @returns {Promise<MessagePort>}
 */
export async function openPort (application, kind, options = {}) {
  return (await openPortAnswered(application, kind, options)).port
}

/**
 * openPort, with the callee's whole answer (what its onPort returned, and `accepted`).
 * @param {string} application
 * @param {string} kind
 * @param {{ messaging?: Messaging, meta?: unknown, transfer?: TransferListItem[], timeoutMs?: number }} [options]
 *   timeoutMs: how long to wait for the answer (default HANDSHAKE_TIMEOUT_MS)
 * @returns {Promise<{ port: MessagePort, answer: Record<string, unknown> }>}
 */
export function openPortAnswered (application, kind, {
  messaging = wattMessaging(), meta, transfer = [], timeoutMs = HANDSHAKE_TIMEOUT_MS
} = {}) {
  return handshake(application, kind, { timeoutMs, where: '' }, (port) =>
    messaging.send(application, HANDSHAKE_PREFIX + kind, { port, meta }, { transferList: [port, ...transfer] }))
}

/**
 * One handshake, however it is carried: `send` hands the callee its end of a new channel
 * and resolves with the answer. Rejects with UNREACHABLE naming the application (the cause
 * says why: a timeout, a refusal with its code, a wrong answer); our end is closed then.
 * @param {string} application
 * @param {string} kind
 * @param {{ timeoutMs: number, where: string }} options  where: which worker, for the message ('' for any)
 * @param {(port: MessagePort) => Promise<unknown>} send
 * @returns {Promise<{ port: MessagePort, answer: Record<string, any> }>}
 */
export async function handshake (application, kind, { timeoutMs, where }, send) {
  const { port1, port2 } = new MessageChannel()
  /** @type {NodeJS.Timeout | undefined} */
  let timer
  try {
    const sent = send(port2)
    sent.catch(() => {}) // an answer after the timeout finds port1 closed, and so does the callee
    const timedOut = new Promise((resolve, reject) => {
      const late = () => reject(new ChannelError('', CODES.TIMEOUT, `no answer within ${timeoutMs} ms`))
      timer = setTimeout(late, timeoutMs)
    })
    const answer = /** @type {Record<string, any> | undefined} */ (await Promise.race([sent, timedOut]))
    if (answer?.accepted !== kind) {
      throw new ChannelError('', CODES.PROTOCOL, `answered the handshake with ${JSON.stringify(answer)}`)
    }
    return { port: port1, answer }
  } catch (err) {
    port1.close()
    const message = `could not open a ${kind} channel${where}: ${/** @type {Error} */ (err).message}`
    throw new ChannelError(application, CODES.UNREACHABLE, message, { cause: err })
  } finally {
    clearTimeout(timer)
  }
}
