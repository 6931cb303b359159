// A target's mode (route.js): the named states meshPortStats() reports as `path`, changed
// by enter() alone, which logs each change with the lines the README quotes. How the route
// picks a worker is test/mesh-port/route.test.js's (and balancer.test.js's) to check.
import t from 'tap'
import { ApplicationRoute, MODES } from '../../lib/mesh-port/route.js'

/**
 * A route to 'pricing' whose log is recorded, with `links` fake links.
 * @param {number} [links]
 */
function routeToPricing (links = 0) {
  /** @type {string[]} */
  const logged = []
  const log = {
    debug: (/** @type {string} */ msg) => logged.push(`debug ${msg}`),
    info: (/** @type {string} */ msg) => logged.push(`info ${msg}`),
    warn: (/** @type {string} */ msg) => logged.push(`warn ${msg}`)
  }
  const workers = { ask: async () => [] }
  const options = { connections: 1, pool: {}, workers, log, caller: 'catalog' }
  const route = new ApplicationRoute('pricing', /** @type {any} */ (options))
  route.linked.all = Array.from({ length: links }, (_, worker) => /** @type {any} */ ({
    worker,
    thread: 100 + worker,
    inFlight: 0,
    stalled: false,
    mux: { closed: false, close () {}, closeWhenIdle () {} },
    pool: { close: async () => {}, destroy: async () => {} }
  }))
  return { route, logged }
}

t.test('the modes are the path strings meshPortStats() has always reported, frozen', async (t) => {
  t.same({ ...MODES }, { UNKNOWN: 'unknown', HTTP_PORT: 'http-port', MESH: 'mesh', WAITING: 'waiting' })
  t.ok(Object.isFrozen(MODES))
  t.equal(routeToPricing().route.mode, MODES.UNKNOWN, 'a new route has not looked yet')
})

t.test('over http-port: logged once as the README quotes it, with the number of workers', async (t) => {
  const { route, logged } = routeToPricing(1)
  route.enter(MODES.HTTP_PORT)
  route.enter(MODES.HTTP_PORT)
  t.same(logged, ['info mesh-port: pricing over http-port (1 worker)'])
  t.equal(route.mode, 'http-port')
  const two = routeToPricing(2)
  two.route.enter(MODES.HTTP_PORT)
  t.same(two.logged, ['info mesh-port: pricing over http-port (2 workers)'])
})

t.test('over the mesh: logged with its reason, again only for another reason; http-port clears it', async (t) => {
  const { route, logged } = routeToPricing()
  route.enter(MODES.MESH, 'no node:http server in this worker')
  route.enter(MODES.MESH, 'no node:http server in this worker')
  t.same([route.mode, route.reason], ['mesh', 'no node:http server in this worker'])
  route.enter(MODES.MESH, 'its workers do not run the drop-in (no mesh-port handler)')
  t.same(logged, [
    "info mesh-port: pricing over Watt's mesh: no node:http server in this worker",
    "info mesh-port: pricing over Watt's mesh: its workers do not run the drop-in (no mesh-port handler)"
  ])
  route.enter(MODES.HTTP_PORT)
  t.same([route.mode, route.reason], ['http-port', ''])
})

t.test('waiting for a worker: logged at debug only, the last reason kept', async (t) => {
  const { route, logged } = routeToPricing()
  route.enter(MODES.MESH, 'refused')
  route.enter(MODES.WAITING)
  route.enter(MODES.WAITING)
  t.same([route.mode, route.reason], ['waiting', 'refused'])
  t.same(logged.slice(1), ['debug mesh-port: pricing has no worker started yet: the mesh until one starts'])
})

t.test('onMesh: requests take the mesh at once when refused or waiting; they wait for a look otherwise', async (t) => {
  const { route } = routeToPricing()
  const onMesh = []
  for (const mode of [MODES.UNKNOWN, MODES.HTTP_PORT, MODES.MESH, MODES.WAITING]) {
    route.enter(mode, 'refused')
    onMesh.push(route.onMesh)
  }
  t.same(onMesh, [false, false, true, true])
})

t.test('a look that finds no worker started waits; one that finds links goes over http-port', async (t) => {
  const { route, logged } = routeToPricing()
  await route.refresh()
  t.equal(route.mode, MODES.WAITING)
  t.notOk(logged.some((l) => l.startsWith('info')), 'nothing at info')
  route.linked.all = routeToPricing(1).route.links
  await route.refresh()
  t.equal(route.mode, MODES.HTTP_PORT)
  t.same(logged.at(-1), 'info mesh-port: pricing over http-port (1 worker)')
})

t.test('a fallback releases each link, logs it, and goes over the mesh', async (t) => {
  const { route, logged } = routeToPricing(2)
  route.enter(MODES.HTTP_PORT)
  route.fallBack('no node:http server in this worker')
  t.same(route.links, [])
  t.equal(route.mode, MODES.MESH)
  t.same(logged.slice(1), [
    'info mesh-port: pricing worker 0 released: the application falls back to the mesh',
    'info mesh-port: pricing worker 1 released: the application falls back to the mesh',
    "info mesh-port: pricing over Watt's mesh: no node:http server in this worker"
  ])
  t.equal(await route.relocate(/** @type {any} */ ({}), 'refused'), null, 'a request to move is not held on the mesh')
})

t.test('the first request starts the first look; on the mesh none does, until the workers change', async (t) => {
  const { route } = routeToPricing()
  let looks = 0
  route.refresh = async () => { looks++ }
  route.workersChanged()
  t.equal(looks, 0, 'no change matters before the first look')
  t.equal(route.next(), null)
  t.equal(looks, 1, 'the first request looks')
  route.enter(MODES.MESH, 'refused')
  t.equal(route.next(), null)
  t.equal(looks, 1, 'on the mesh, requests do not look')
  route.workersChanged()
  t.equal(looks, 2, 'a change of the workers does')
})
