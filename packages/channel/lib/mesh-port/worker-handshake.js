// @ts-check
// A handshake with ONE given worker: Watt's messaging picks one round robin from the runtime's broadcasts,
// and messaging made after the target's workers started never hears of them ("No workers available"). So the
// channel is asked of the runtime itself (watt/itc.js workerChannel), the request sent in messaging's format.
import { randomUUID } from 'node:crypto'
import { ChannelError, CODES } from '../errors.js'
import { handshake, HANDSHAKE_PREFIX } from '../handshake.js'
import { itc as wattItc } from '../watt/globals.js'
import { itcRequest, itcResponse, workerChannel } from '../watt/itc.js'

const TIMEOUT_MS = 10_000

/**
 * @param {{ caller: string, application: string, worker: number, kind: string, meta?: unknown }} options
 * @returns {Promise<{ port: import('node:worker_threads').MessagePort, answer: Record<string, any> }>}
 */
export async function handshakeWorker ({ caller, application, worker, kind, meta }) {
  const itc = wattItc()
  if (!itc) throw new ChannelError(application, CODES.NO_WATT, 'no Watt ITC in this thread')
  /** @type {import('node:worker_threads').MessagePort} */
  let channel
  try {
    channel = await workerChannel(itc, { caller, application, worker })
  } catch (err) {
    const message = `no channel to worker ${worker}: ${/** @type {Error} */ (err).message}`
    throw new ChannelError(application, CODES.UNREACHABLE, message, { cause: err })
  }
  /** @param {import('node:worker_threads').MessagePort} port */
  const send = (port) => new Promise((resolve, reject) => {
    const reqId = randomUUID()
    channel.on('message', (/** @type {any} */ message) => {
      const response = itcResponse(message, reqId)
      if (response === null) return
      if ('error' in response) reject(response.error)
      else resolve(response.data)
    })
    channel.once('close', () => reject(new ChannelError('', CODES.CLOSED, `worker ${worker} closed the channel`)))
    channel.postMessage(itcRequest(reqId, HANDSHAKE_PREFIX + kind, { port, meta }), [port])
  })
  try {
    return await handshake(application, kind, { timeoutMs: TIMEOUT_MS, where: ` to worker ${worker}` }, send)
  } finally {
    channel.close()
  }
}
