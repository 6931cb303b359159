// @ts-check
// Free loopback ports for a runtime started beside another one (tests, CI).
import { createServer, connect } from 'node:net'
import { claimPort } from './port-claims.js'

/**
 * Asks the OS for `count` distinct free ports on 127.0.0.1, each claimed for this
 * process (port-claims.js: no other caller of ours gets it until this process exits).
 * @param {number} count
 * @returns {Promise<number[]>}
 */
export async function freePorts (count) {
  const servers = []
  /** @type {number[]} */
  const ports = []
  try {
    // a port claimed elsewhere stays bound here until the end, so the OS offers another
    for (let asked = 0; ports.length < count; asked++) {
      if (asked === count + 1000) throw new Error(`no unclaimed free port after ${asked} tries`)
      const server = createServer()
      servers.push(server)
      await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve(undefined)))
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address())
      if (claimPort(port)) ports.push(port)
    }
    return ports
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
