// @ts-check
// Fastify 5 without a logger, as in fastify/benchmarks. keepAliveTimeout is
// node:http's 5 s (Fastify's default is 72 s) so the keep-alive header matches.
import Fastify from 'fastify'
import { closeOnSignal, CONTENT_TYPE, HELLO, HOST, portFromArgv } from '../hello.js'

const app = Fastify({ logger: false, keepAliveTimeout: 5000 })
app.get('/', (request, reply) => {
  reply.type(CONTENT_TYPE).send(HELLO)
})
await app.listen({ port: portFromArgv(), host: HOST })
closeOnSignal(() => app.close())
