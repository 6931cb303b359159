// A stop must not wait on keep-alive clients. Node's server.close() closes the
// connections idle at that moment; one with a request in flight answers it with
// `Connection: keep-alive` and then stays open, idle, until the client leaves or
// the keep-alive timeout (72 s) ends it. Watt gives a worker 10 s to stop, then
// 10 s to exit, then kills it: ports stayed bound ~20 s after SIGTERM whenever a
// request was in flight (always under load). From preClose on, every answer says
// `Connection: close`, so each connection ends after its last answer.
import type { FastifyInstance } from 'fastify'

async function closeConnections (app: FastifyInstance): Promise<void> {
  let closing = false
  app.addHook('preClose', (done) => {
    closing = true
    done()
  })
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close')
    done(null, payload)
  })
}

// What fastify-plugin does: apply the hooks to the whole instance.
Object.assign(closeConnections, { [Symbol.for('skip-override')]: true })
export default closeConnections
