// GET /tsfastify/<transport>, one route per transport registered in lib/topology.js:
// fan one request out to `fanout` of the downstream services over that transport,
// verify every answer, report.
import type { FastifyInstance } from 'fastify'
import { DOWNSTREAM_SERVICES, MAX_DELAY_MS } from '../../../lib/contract.js'
import { PARAMETERS } from '../../../lib/routes-index.js'
import { errorBody } from '../../../lib/http-errors.js'
import { fanOut } from '../lib/fan-out.ts'
import { readSettings } from '../lib/settings.ts'
import { loadTransports } from '../lib/load-transports.ts'
import type { CallRequest } from '../lib/transport.ts'
import { routeOf } from '../../../lib/topology.js'

interface FanOutQuery {
  size: number
  fanout: number
  fault?: string
}

const SERVICE_PATTERN = DOWNSTREAM_SERVICES.join('|')

const querystring = {
  type: 'object',
  properties: {
    // the bounds GET / and the start block advertise
    size: { type: 'integer', minimum: PARAMETERS.size.minimum, maximum: PARAMETERS.size.maximum, default: PARAMETERS.size.default },
    fanout: { type: 'integer', minimum: PARAMETERS.fanout.minimum, maximum: PARAMETERS.fanout.maximum, default: PARAMETERS.fanout.default },
    // Fault injection for tests and the reliability suite: `<service>:corrupt` or `<service>:delay:<ms>`.
    fault: { type: 'string', pattern: `^(${SERVICE_PATTERN}):(corrupt|delay:[0-9]{1,5})$` }
  }
} as const

const result = {
  type: 'object',
  properties: { service: { type: 'string' }, status: { type: 'integer' }, bytes: { type: 'integer' } }
} as const

const failure = {
  type: 'object',
  properties: {
    statusCode: { type: 'integer' },
    error: { type: 'string' },
    message: { type: 'string' },
    service: { type: 'string' },
    transport: { type: 'string' }
  }
} as const

const response = {
  200: {
    type: 'object',
    properties: {
      transport: { type: 'string' },
      size: { type: 'integer' },
      fanout: { type: 'integer' },
      results: { type: 'array', items: result }
    }
  },
  502: failure,
  503: failure,
  504: failure
} as const

export default async function fanOutRoutes (app: FastifyInstance): Promise<void> {
  const settings = readSettings()
  const loaded = await loadTransports(settings)
  app.addHook('onClose', async () => {
    await Promise.all(loaded.map((entry) => entry.available ? entry.transport.close?.() : undefined))
  })
  // Ajv coerces "1e400" to Infinity, which then passes `integer` and the bounds:
  // numbers must be plain decimal digits before the schema sees them.
  app.addHook('preValidation', (request, reply, done) => {
    const query = request.query as Record<string, unknown>
    for (const name of ['size', 'fanout']) {
      if (query[name] !== undefined && !(typeof query[name] === 'string' && /^[0-9]{1,8}$/.test(query[name]))) {
        return reply.code(400).type('application/json').send(errorBody(400, `querystring/${name} must be a decimal integer`))
      }
    }
    done()
  })

  for (const entry of loaded) {
    if (!entry.available) {
      // Registered but not runnable here (e.g. its separate target is not configured): say why.
      app.get(routeOf(entry.name), { schema: { querystring, response } }, async (request, reply) => {
        return reply.code(503).send({ statusCode: 503, error: 'Service Unavailable', message: entry.reason, service: '', transport: entry.name })
      })
      continue
    }
    const transport = entry.transport
    app.get<{ Querystring: FanOutQuery }>(routeOf(entry.name), { schema: { querystring, response } }, async (request, reply) => {
      const { size, fanout, fault } = request.query
      const calls = DOWNSTREAM_SERVICES.slice(0, fanout).map((service): CallRequest => ({ service, size, fault: faultFor(service, fault) }))
      const outcome = await fanOut(transport, calls, settings.callTimeoutMs)
      return reply.code(outcome.statusCode).send(outcome.body)
    })
  }
}

function faultFor (service: string, fault: string | undefined): CallRequest['fault'] {
  if (!fault) return undefined
  const [target, kind, ms] = fault.split(':')
  if (target !== service) return undefined
  return kind === 'corrupt' ? { corrupt: true } : { delay: Math.min(Number(ms), MAX_DELAY_MS) }
}
