// @ts-check
// A stop must not wait on keep-alive clients. Node's server.close() closes the
// connections idle at that moment; one with a request in flight answers it with
// `Connection: keep-alive` and then stays open, idle, until the client leaves or
// the keep-alive timeout (Fastify's 72 s) ends it. Watt gives a worker 10 s to
// stop and 10 s to exit, then kills it, ports held meanwhile. Watt itself adds
// `Connection: close` while closing only for plain node:http servers
// (@platformatic/node setClosing), not for Fastify: this does it for a Fastify
// app. From preClose on, every answer says `Connection: close`, so each
// connection ends after its last answer; an answer whose headers had left before
// (a stream still running at the stop) has its connection ended once it is complete.

/**
 * @param {import('fastify').FastifyInstance} app
 */
export function closeConnectionsOnClose (app) {
  let closing = false
  app.addHook('preClose', (done) => {
    closing = true
    done()
  })
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close')
    done(null, payload)
  })
  app.addHook('onResponse', (request, _reply, done) => {
    // end() sends FIN after what is queued: the answer is complete, nothing is cut
    if (closing) request.raw.socket?.end()
    done()
  })
}
