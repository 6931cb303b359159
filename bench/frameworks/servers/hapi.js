// @ts-check
// Hapi 21. Caching and range support are off: otherwise it adds cache-control:
// no-cache and accept-ranges: bytes, which no other server sends.
import Hapi from '@hapi/hapi'
import { closeOnSignal, CONTENT_TYPE, HELLO, HOST, portFromArgv } from '../hello.js'

const server = Hapi.server({ port: portFromArgv(), host: HOST })
server.route({
  method: 'GET',
  path: '/',
  options: { cache: false, response: { ranges: false } },
  handler: (request, h) => h.response(HELLO).type(CONTENT_TYPE)
})
await server.start()
closeOnSignal(() => server.stop({ timeout: 2000 }))
