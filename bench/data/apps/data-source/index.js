// @ts-check
// data-source: plain node:http serving the dataset files. The same listener
// answers mesh calls (Watt injects them in-thread) and TCP calls on its own port.
import { createServer } from 'node:http'
import { closeOnStop } from '../../../../lib/downstream.js'
import { HOST } from '../../../../lib/ports.js'
import { readDataConfig } from '../../server/config.js'
import { createDataSourceListener } from '../../server/data-source.js'

const config = readDataConfig()
const source = createDataSourceListener(config.files, { stallMs: config.stallMs })
const server = createServer(source.listener)
server.listen({ port: config.sourcePort, host: HOST })
closeOnStop(() => {
  source.closeAll() // a download in flight must not hold the worker open
  server.close()
  server.closeAllConnections()
})
