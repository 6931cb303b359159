// @ts-check
// The apps suite's flags, and the cases they expand to: every route of every
// app, on every path, under every load profile. A case's `profile` is its
// route (the summary pairs the paths of one route round by round); its
// `target` is the path.
import { UsageError } from '../lib/cli.js'

/** The path the ratios are taken against: Watt's default. */
export const BASELINE_PATH = 'ipc'
/** The mesh-port drop-in, by one undici.interceptors block. */
export const DROP_IN_PATH = 'mesh-port'
/** Loopback TCP through the apps' own ports. */
export const TCP_PATH = 'tcp'
/** Where the app's calls travel, each from the app's config alone (runtimes.js). */
export const PATHS = /** @type {const} */ ([BASELINE_PATH, DROP_IN_PATH, TCP_PATH])

/**
 * Each app, the routes measured through its entrypoint, and the GETs that prove
 * its runtime ready (through the entrypoint to every app behind it).
 * @type {Record<string, { routes: string[], ready: string[], about: string }>}
 */
export const APPS = {
  catalog: { routes: ['list', 'item', 'join'], ready: ['/products/1', '/catalog/categories/1'], about: 'gateway → db (SQLite), and gateway → service → db by fetch' },
  orders: { routes: ['insert', 'checkout'], ready: ['/products/1'], about: 'POSTs: gateway → db, and gateway → service → service and db' },
  storefront: { routes: ['page'], ready: ['/page/1'], about: 'a node:http backend-for-frontend, three fetch calls to the db per page' },
  // installed and built on demand (nextstore/install.js); left out with the reason when it cannot be
  nextstore: { routes: ['page', 'handler'], ready: ['/page/1', '/api/products/1'], about: 'a Next.js storefront in front of the catalog: a page rendered from two fetch calls through the gateway to the db, a route handler that proxies one' }
}

/** Connections per load profile; pipelining is 1 (every answer is matched to its request and checked). */
export const PROFILES = {
  latency: { connections: 10 },
  busy: { connections: 50 }
}

const ROUTES = Object.entries(APPS).flatMap(([app, { routes }]) => routes.map((route) => `${app}/${route}`))

/** @type {Record<string, import('../lib/cli.js').FlagSpec>} */
export const FLAGS = {
  duration: { type: 'integer', default: 4, min: 1, max: 600, help: 'seconds measured per run' },
  warmup: { type: 'integer', default: 1, min: 0, max: 120, help: 'seconds of unmeasured load before each run' },
  'first-warmup': { type: 'integer', default: 3, min: 0, max: 300, help: 'seconds of unmeasured load before a case\'s first round instead (each isolate on the path compiles the route then)' },
  rounds: { type: 'integer', default: 2, min: 1, max: 50, help: `interleaved rounds (${PATHS.join(', ')}, ${BASELINE_PATH}, …); each app runs all its rounds before the next` },
  profiles: { type: 'list', default: Object.keys(PROFILES), choices: Object.keys(PROFILES), help: 'latency = c10, busy = c50 (both by default: the two loads can rank the paths differently)' },
  apps: { type: 'list', default: Object.keys(APPS), choices: Object.keys(APPS), help: 'which apps' },
  routes: { type: 'list', choices: ROUTES, help: 'only these routes (app/route), e.g. catalog/list' },
  paths: { type: 'list', default: [...PATHS], choices: [...PATHS], help: 'ipc = Watt\'s mesh, mesh-port = the drop-in, tcp = loopback ports' },
  'wrong-expectation': { type: 'list', choices: ROUTES, help: 'expect a wrong answer on these routes (the test\'s proof that a failed check fails a run)' }
  // --out, --report, --allow-errors, --fail-fast and --quiet-wait come from the driver (bench/lib/driver.js)
}

/**
 * @typedef {object} AppCase
 * @property {string} target       the path
 * @property {string} profile      app/route, with the load profile after an at-sign unless it is latency
 * @property {string} app
 * @property {string} route
 * @property {typeof PATHS[number]} path
 * @property {string} load         the load profile's name
 * @property {number} connections
 */

/**
 * @param {Record<string, any>} flags
 * @returns {AppCase[]}
 */
export function casesFrom (flags) {
  /** @type {AppCase[]} */
  const cases = []
  for (const load of flags.profiles) {
    for (const app of flags.apps) {
      for (const route of APPS[app].routes) {
        if (flags.routes && !flags.routes.includes(`${app}/${route}`)) continue
        for (const path of flags.paths) {
          cases.push({
            target: path,
            profile: `${app}/${route}${load === 'latency' ? '' : `@${load}`}`,
            app,
            route,
            path,
            load,
            connections: PROFILES[/** @type {keyof typeof PROFILES} */ (load)].connections
          })
        }
      }
    }
  }
  if (cases.length === 0) throw new UsageError('no case selected: --routes names none of the --apps')
  return cases
}

/**
 * An app's cases run all their rounds before the next app's (runner.js phases), so
 * only one app's runtimes are up at a time.
 * @param {import('../lib/types.js').Case} kase
 */
export const byApp = (kase) => `${kase.app}@${kase.load}`

/**
 * The warm-up before a run: longer in a case's first round. `--warmup 0` skips both.
 * @param {number} round
 * @param {Record<string, any>} flags
 */
export function warmupFor (round, { warmup, firstWarmup }) {
  return round === 1 && warmup > 0 ? Math.max(warmup, firstWarmup) : warmup
}
