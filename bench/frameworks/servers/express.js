// @ts-check
// Express 5. etag and x-powered-by are off: they are headers the others do not send.
import express from 'express'
import { closeHttpServer, closeOnSignal, CONTENT_TYPE, HELLO, HOST, portFromArgv } from '../hello.js'

const app = express()
app.disable('etag')
app.disable('x-powered-by')
app.get('/', (/** @type {unknown} */ req, /** @type {any} */ res) => {
  res.set('content-type', CONTENT_TYPE).send(HELLO)
})
const server = app.listen(portFromArgv(), HOST)
closeOnSignal(() => closeHttpServer(server))
