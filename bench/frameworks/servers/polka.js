// @ts-check
// Polka: a router over node:http's own req/res, so it answers like node:http.
import polka from 'polka'
import { closeHttpServer, closeOnSignal, HELLO, HELLO_HEADERS, HOST, portFromArgv } from '../hello.js'

const app = polka()
app.get('/', (req, res) => {
  res.writeHead(200, HELLO_HEADERS)
  res.end(HELLO)
})
app.listen(portFromArgv(), HOST)
closeOnSignal(() => closeHttpServer(/** @type {import('node:http').Server} */ (app.server)))
