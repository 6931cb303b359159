// @ts-check
// Watt's wire between a worker and the runtime: the ITC calls the drop-in makes
// (@platformatic/runtime lib/runtime.js), the request/response format messaging uses on
// a worker's channel (@platformatic/itc), and the broadcast of every application's workers.
import { BroadcastChannel } from 'node:worker_threads'

/** ITC call: a MessagePort to one given worker, the one messaging itself would use. */
export const GET_WORKER_MESSAGING_CHANNEL = 'getWorkerMessagingChannel'
/** ITC call: every worker of the runtime, by id: `{ application, worker, status, thread }`. */
export const GET_WORKERS = 'getWorkers'
/** Posted by the runtime on every worker start, stop, crash and restart. */
export const WORKERS_BROADCAST = 'plt.runtime.workers'

export const ITC_REQUEST = 'PLT_ITC_REQUEST'
export const ITC_RESPONSE = 'PLT_ITC_RESPONSE'
export const ITC_VERSION = '1.0.0'

/**
 * The channel to `worker` of `application`, asked of the runtime.
 * @param {any} itc  globals.js itc()
 * @param {{ caller: string, application: string, worker: number }} target
 * @returns {Promise<import('node:worker_threads').MessagePort>}
 */
export function workerChannel (itc, { caller, application, worker }) {
  return itc.send(GET_WORKER_MESSAGING_CHANNEL, { id: caller, application, worker })
}

/** @typedef {{ application: string, worker: number | string, status: string, thread: number }} RuntimeWorker */

/**
 * The started workers of `application`, asked of the runtime now.
 * @param {any} itc  globals.js itc()
 * @param {string} application
 * @returns {Promise<{ thread: number, worker: number }[]>}
 */
export async function startedWorkers (itc, application) {
  const all = /** @type {Record<string, RuntimeWorker>} */ (await itc.send(GET_WORKERS))
  return Object.values(all ?? {})
    .filter((info) => info?.application === application && info.status === 'started')
    .map((info) => ({ thread: Number(info.thread), worker: Number(info.worker) }))
}

/**
 * A request in messaging's format, to post on a worker's channel.
 * @param {string} reqId
 * @param {string} name  the handler's
 * @param {unknown} data
 */
export function itcRequest (reqId, name, data) {
  return { type: ITC_REQUEST, version: ITC_VERSION, reqId, name, data }
}

/**
 * The answer to `reqId` in a message from a worker's channel; null for any other message.
 * A failure keeps Watt's codes (`code`, and `handlerErrorCode`: the handler's error's).
 * @param {any} message
 * @param {string} reqId
 * @returns {{ error: Error } | { data: any } | null}
 */
export function itcResponse (message, reqId) {
  if (message?.type !== ITC_RESPONSE || message.reqId !== reqId) return null
  if (!message.error) return { data: message.data }
  const { code, handlerErrorCode } = message.error
  return { error: Object.assign(new Error(String(message.error.message ?? message.error)), { code, handlerErrorCode }) }
}

/**
 * Follows the runtime's workers broadcast: `onWorkers` gets each post's Map of application
 * id to its live workers (`{ thread }` and more). The channel does not keep the thread alive.
 * @param {(workers: Map<string, unknown>) => void} onWorkers
 * @returns {BroadcastChannel}
 */
export function watchWorkers (onWorkers) {
  const channel = new BroadcastChannel(WORKERS_BROADCAST)
  channel.unref()
  channel.onmessage = (/** @type {any} */ event) => {
    if (event?.data instanceof Map) onWorkers(event.data)
  }
  return channel
}
