// @ts-check
// What the runtime serves, derived from lib/topology.js: the JSON index `GET /`
// answers on the entry, and the block `npm start` prints once the runtime is ready.
import { DEFAULT_SIZE, MAX_DELAY_MS, MAX_SIZE } from './contract.js'
import { availabilityOf, ENTRY, routeOf, SERVICES, TRANSPORTS } from './topology.js'

/** The fan-out routes' query parameters (the entry's JSON schema uses the same bounds). */
export const PARAMETERS = Object.freeze({
  size: { description: 'payload bytes each downstream service returns', type: 'integer', default: DEFAULT_SIZE, minimum: 0, maximum: MAX_SIZE },
  fanout: { description: `how many of the ${SERVICES.length} services to call, in parallel (the first N)`, type: 'integer', default: SERVICES.length, minimum: 1, maximum: SERVICES.length },
  fault: { description: `fault injection: <service>:corrupt (one wrong byte) or <service>:delay:<ms> (answers late, at most ${MAX_DELAY_MS} ms)`, type: 'string', example: `${SERVICES[1].name}:corrupt` }
})

/**
 * @param {NodeJS.ProcessEnv} [env]
 */
export function routesIndex (env = process.env) {
  return {
    service: ENTRY.name,
    about: 'Each route fans one request out to the downstream services over one transport, verifies every answer byte for byte, and reports what each service sent. A wrong answer is a 502 naming the service, a late one a 504.',
    routes: TRANSPORTS.map((transport) => {
      const availability = availabilityOf(transport.name, env)
      return {
        method: 'GET',
        path: routeOf(transport.name),
        transport: transport.name,
        description: transport.description,
        crossesThreads: transport.crossesThreads,
        http: transport.http,
        available: availability.available,
        ...(availability.available ? {} : { reason: availability.reason })
      }
    }),
    parameters: PARAMETERS,
    services: SERVICES.map(({ name, language, framework }) => ({ name, language, framework })),
    source: 'lib/topology.js'
  }
}

/**
 * The short block printed once `npm start` is ready.
 * @param {string} baseUrl  e.g. http://127.0.0.1:3043
 * @param {NodeJS.ProcessEnv} [env]
 */
export function startBanner (baseUrl, env = process.env) {
  const { routes } = routesIndex(env)
  const width = Math.max(...routes.map((route) => `curl ${baseUrl}${route.path}`.length))
  return [
    `Watt transport lab: ready at ${baseUrl} (entry ${ENTRY.name}; \`curl ${baseUrl}/\` lists routes and parameters as JSON)`,
    ...routes.map((route) => `  ${`curl ${baseUrl}${route.path}`.padEnd(width)}  # ${route.available ? route.description : `unavailable: ${route.reason}`}`),
    `  parameters: ?size=${PARAMETERS.size.minimum}..${PARAMETERS.size.maximum} (default ${PARAMETERS.size.default})  &fanout=1..${PARAMETERS.fanout.maximum}  &fault=<service>:corrupt|<service>:delay:<ms>`,
    'Stop: Ctrl-C here (or SIGTERM to this process).',
    ''
  ].join('\n')
}
