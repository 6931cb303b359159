// @ts-check
// Restify 12 (11 crashes on Node 24). An empty name drops its `server: restify`
// header; charSet is how restify's formatter keeps "; charset=utf-8".
import restify from 'restify'
import { closeOnSignal, HELLO, HOST, portFromArgv } from '../hello.js'

const server = restify.createServer({ name: '' })
server.get('/', (/** @type {unknown} */ req, /** @type {any} */ res, /** @type {() => void} */ next) => {
  res.contentType = 'text/plain'
  res.charSet('utf-8')
  res.send(200, HELLO)
  next()
})
server.listen(portFromArgv(), HOST)
closeOnSignal(() => new Promise((resolve) => server.close(() => resolve(undefined))))
