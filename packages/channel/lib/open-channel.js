// @ts-check
// How a client opens its channel, per kind: over 'port' the handshake's MessagePort carries the frames;
// over 'shm' the client makes the two rings and offers them in the handshake (server.js takes them).
import { openPort, wattMessaging } from './handshake.js'
import { portEnd } from './port-end.js'
import { MESSAGE_SLACK, shmEnd } from './shm/end.js'
import { createRing } from './shm/ring.js'

/**
 * @param {string} application
 * @param {import('./options.js').ConnectSettings} settings
 * @returns {Promise<import('./port-end.js').ChannelEnd>}
 */
export function openChannel (application, settings) {
  return settings.kind === 'port' ? openPortChannel(application, settings) : openShmChannel(application, settings)
}

/**
 * @param {string} application
 * @param {import('./options.js').ConnectSettings} settings
 */
async function openPortChannel (application, { messaging, maxPayloadBytes, flush }) {
  const meta = { maxPayloadBytes }
  const port = await openPort(application, 'port', { messaging: messaging ?? wattMessaging(), meta })
  return portEnd(port, flush)
}

/**
 * @param {string} application
 * @param {import('./options.js').ConnectSettings} settings
 */
async function openShmChannel (application, { messaging, maxPayloadBytes, flush, ringBytes }) {
  const requests = createRing(ringBytes)
  const answers = createRing(ringBytes)
  const meta = { requests, answers, maxPayloadBytes }
  const port = await openPort(application, 'shm', { messaging: messaging ?? wattMessaging(), meta })
  return shmEnd(port, {
    inbound: answers,
    outbound: requests,
    maxMessageBytes: maxPayloadBytes + MESSAGE_SLACK,
    flush
  })
}
