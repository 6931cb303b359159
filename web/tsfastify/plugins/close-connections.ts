// Answers `Connection: close` once the entry is closing, so a stop never waits on
// a keep-alive client (lib/close-connections.js says why).
import type { FastifyInstance } from 'fastify'
import { closeConnectionsOnClose } from '../../../lib/close-connections.js'

async function closeConnections (app: FastifyInstance): Promise<void> {
  closeConnectionsOnClose(app)
}

// What fastify-plugin does: apply the hooks to the whole instance.
Object.assign(closeConnections, { [Symbol.for('skip-override')]: true })
export default closeConnections
