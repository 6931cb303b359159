// @ts-check
// A handshake with ONE given worker of an application. Watt's messaging picks a
// worker round robin from a list it learns from the runtime's broadcasts, and a
// thread whose messaging was made after a target's workers started never hears
// of them (seen: "No workers available", or one worker of two, for seconds). So
// the channel to the worker is asked of the runtime itself, as messaging does
// internally (watt/itc.js workerChannel), and the one request is sent on it in
// messaging's own format (watt/itc.js itcRequest, itcResponse).
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
    throw new ChannelError(application, CODES.UNREACHABLE, `no channel to worker ${worker}: ${/** @type {Error} */ (err).message}`, { cause: err })
  }
  try {
    return await handshake(application, kind, { timeoutMs: TIMEOUT_MS, where: ` to worker ${worker}` }, (port) => new Promise((resolve, reject) => {
      const reqId = randomUUID()
      channel.on('message', (/** @type {any} */ message) => {
        const response = itcResponse(message, reqId)
        if (response === null) return
        if ('error' in response) reject(response.error)
        else resolve(response.data)
      })
      channel.once('close', () => reject(new ChannelError('', CODES.CLOSED, `worker ${worker} closed the channel`)))
      channel.postMessage(itcRequest(reqId, HANDSHAKE_PREFIX + kind, { port, meta }), [port])
    }))
  } finally {
    channel.close()
  }
}
