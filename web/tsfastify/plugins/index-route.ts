// GET / on the entry: a small JSON index of what this runtime serves (routes,
// parameters, services), derived from lib/topology.js, instead of Platformatic's
// generic welcome page (which it mounts only when nobody answers `/`).
import type { FastifyInstance } from 'fastify'
import { routesIndex } from '../../../lib/routes-index.js'

export default async function indexRoute (app: FastifyInstance): Promise<void> {
  const index = routesIndex()
  app.get('/', async (request, reply) => reply.type('application/json').send(index))
}
