// @ts-check
// node:http, no framework: the floor every framework adds its work to.
import { createServer } from 'node:http'
import { closeHttpServer, closeOnSignal, HELLO, HELLO_HEADERS, HOST, portFromArgv } from '../hello.js'

const server = createServer((req, res) => {
  res.writeHead(200, HELLO_HEADERS)
  res.end(HELLO)
})
server.listen(portFromArgv(), HOST)
closeOnSignal(() => closeHttpServer(server))
