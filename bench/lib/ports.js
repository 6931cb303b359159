// @ts-check
// Free loopback ports for a runtime started beside another one (tests, CI).
import { createServer, connect } from 'node:net'

/**
 * Asks the OS for `count` distinct free ports on 127.0.0.1.
 * @param {number} count
 * @returns {Promise<number[]>}
 */
export async function freePorts (count) {
  const servers = []
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer()
      servers.push(server)
      await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve(undefined)))
    }
    return servers.map((server) => /** @type {import('node:net').AddressInfo} */ (server.address()).port)
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(() => resolve(undefined)))))
  }
}

/**
 * True when something accepts TCP connections on 127.0.0.1:port.
 * @param {number} port
 * @returns {Promise<boolean>}
 */
export function isListening (port) {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' })
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => resolve(false))
  })
}
