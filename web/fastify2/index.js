// fastify2: a plain Fastify app in JavaScript. Routing is Fastify's; the body
// and the fault handling are the shared contract's, so bytes match the others.
import { serveHttpPortInWatt } from '@watt-lab/channel/http'
import Fastify from 'fastify'
import { setTimeout as sleep } from 'node:timers/promises'
import { closeOnStop, handleHelloMessages, helloResponse, SERVER_KEEP_ALIVE_MS } from '../../lib/downstream.js'
import { answerProtocolErrorsWithJson, errorBody, missingHost } from '../../lib/http-errors.js'
import { serviceBindHost, tcpPortOf } from '../../lib/ports.js'

const app = Fastify({ logger: false, keepAliveTimeout: SERVER_KEEP_ALIVE_MS })
answerProtocolErrorsWithJson(app.server, { clientErrors: false })
app.addHook('onRequest', (request, reply, done) => {
  if (missingHost(request.raw)) return reply.code(400).type('application/json').send(errorBody(400, 'missing Host header'))
  done()
})

app.get('/hello', async (request, reply) => {
  const { status, body, delay } = helloResponse('fastify2', /** @type {Record<string, unknown>} */ (request.query))
  if (delay) await sleep(delay)
  return reply.code(status).type('application/json').send(body)
})

await app.listen({ port: tcpPortOf('fastify2'), host: serviceBindHost() })
serveHttpPortInWatt(app.server) // the http-port transport: same server, connections over a MessagePort
handleHelloMessages('fastify2')
closeOnStop(() => app.close())
