// @ts-check
// find-my-way: Fastify's router alone, in front of node:http.
import { createServer } from 'node:http'
import findMyWay from 'find-my-way'
import { closeHttpServer, closeOnSignal, HELLO, HELLO_HEADERS, HOST, portFromArgv } from '../hello.js'

const router = findMyWay()
router.on('GET', '/', (req, res) => {
  res.writeHead(200, HELLO_HEADERS)
  res.end(HELLO)
})
const server = createServer((req, res) => router.lookup(req, res))
server.listen(portFromArgv(), HOST)
closeOnSignal(() => closeHttpServer(server))
