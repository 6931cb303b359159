// @ts-check
// Restana: res.send with the content type set. Its default security headers
// (x-content-type-options, x-frame-options, x-xss-protection) are off: no other server sends them.
import restana from 'restana'
import { closeOnSignal, CONTENT_TYPE, HELLO, HOST, portFromArgv } from '../hello.js'

const app = restana({ securityHeaders: false })
app.get('/', (req, res) => {
  res.send(HELLO, 200, { 'content-type': CONTENT_TYPE })
})
await app.start(portFromArgv(), HOST)
closeOnSignal(() => app.close())
