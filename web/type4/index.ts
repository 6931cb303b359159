// type4: node:http in TypeScript, run by Node's type stripping. Same listener for
// mesh and TCP calls, same messaging handler for RPC.
import { createServer } from 'node:http'
import { closeOnStop, createHelloListener, handleHelloMessages, SERVER_KEEP_ALIVE_MS } from '../../lib/downstream.js'
import { HOST, tcpPortOf } from '../../lib/ports.js'

const service: string = 'type4'
const server = createServer({ keepAliveTimeout: SERVER_KEEP_ALIVE_MS }, createHelloListener(service))
server.listen({ port: tcpPortOf(service), host: HOST })
handleHelloMessages(service)
closeOnStop(() => {
  server.close()
  server.closeIdleConnections()
})
