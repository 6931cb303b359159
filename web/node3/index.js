// node3: plain node:http in JavaScript. The same listener answers mesh calls
// (Watt injects them in-thread) and TCP calls on its own loopback port.
import { createServer } from 'node:http'
import { closeOnStop, createHelloListener, handleHelloMessages, SERVER_KEEP_ALIVE_MS } from '../../lib/downstream.js'
import { HOST, tcpPortOf } from '../../lib/ports.js'

const server = createServer({ keepAliveTimeout: SERVER_KEEP_ALIVE_MS }, createHelloListener('node3'))
server.listen({ port: tcpPortOf('node3'), host: HOST })
handleHelloMessages('node3')
closeOnStop(() => {
  server.close()
  server.closeIdleConnections()
})
