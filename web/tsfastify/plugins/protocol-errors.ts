// JSON errors for requests Node would answer bare (missing Host, unknown Expect),
// for every route including 404s: registered at the root, not encapsulated.
import type { FastifyInstance } from 'fastify'
import { answerProtocolErrorsWithJson, errorBody, missingHost } from '../../../lib/http-errors.js'

async function protocolErrors (app: FastifyInstance): Promise<void> {
  answerProtocolErrorsWithJson(app.server, { clientErrors: false })
  app.addHook('onRequest', (request, reply, done) => {
    if (missingHost(request.raw)) {
      reply.code(400).type('application/json').send(errorBody(400, 'missing Host header'))
      return
    }
    done()
  })
}

// What fastify-plugin does: apply the hook to the whole instance.
Object.assign(protocolErrors, { [Symbol.for('skip-override')]: true })
export default protocolErrors
