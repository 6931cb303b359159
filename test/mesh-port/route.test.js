// How the drop-in picks a worker when an application has several: one worker per
// event-loop turn (so the turn's requests leave in one message to one thread),
// the least loaded at the turn's start, ties in turn, never a worker that left,
// and a burst split into chunks of SPREAD.
import { setImmediate as nextTurn } from 'node:timers/promises'
import { test } from 'tap'
import { ApplicationRoute, SPREAD } from '../../packages/channel/lib/mesh-port/route.js'

/**
 * A route with fake links: only what next(), drop() and retire() touch.
 * @param {number[]} loads  requests in flight per worker
 */
function routeWith (loads) {
  const silent = { info () {}, warn () {} }
  const route = new ApplicationRoute('svc', /** @type {any} */ ({ connections: 1, pool: {}, workers: { ask: async () => [] }, log: silent, caller: 'test' }))
  route.mode = 'http-port'
  route.links = loads.map((inFlight, worker) => /** @type {any} */ ({
    worker,
    thread: 100 + worker,
    inFlight,
    pool: { get stats () { return { running: this.owner.inFlight, pending: 0 } }, destroy: async () => {}, close: async () => {} },
    session: { close () {} }
  }))
  for (const link of route.links) /** @type {any} */ (link.pool).owner = link
  route.refresh = async () => {} // retire() looks for a replacement; nothing to find here
  return route
}

test('every request of one turn goes to the same worker; the next turn picks again', async (t) => {
  const route = routeWith([0, 0])
  const first = [1, 2, 3, 4, 5].map(() => route.next()?.worker)
  t.same(new Set(first).size, 1, 'one worker for the whole turn')
  await nextTurn()
  const second = [1, 2, 3].map(() => route.next()?.worker)
  t.same(new Set(second).size, 1)
  t.not(second[0], first[0], 'with equal loads the next turn takes the other worker')
})

test('over many turns with equal loads the shares are even', async (t) => {
  const route = routeWith([0, 0, 0])
  const counts = [0, 0, 0]
  for (let turn = 0; turn < 300; turn++) {
    for (let i = 0; i < 4; i++) counts[/** @type {number} */ (route.next()?.worker)]++
    await nextTurn()
  }
  t.same(counts, [400, 400, 400])
})

test('a turn goes to the least loaded worker (a hung one gets none)', async (t) => {
  const route = routeWith([7, 0])
  for (let turn = 0; turn < 10; turn++) {
    t.equal(route.next()?.worker, 1, `turn ${turn}`)
    await nextTurn()
  }
})

test('a worker that leaves mid-turn gets no more of that turn', async (t) => {
  for (const leave of ['drop', 'retire']) {
    const route = routeWith([0, 0])
    const held = /** @type {any} */ (route.next())
    if (leave === 'drop') route.drop(held, 'test')
    else route.retire(held)
    const after = route.next()
    t.not(after?.worker, held.worker, `${leave}: the rest of the turn goes elsewhere`)
    t.notOk(route.links.includes(held), `${leave}: out of the rotation`)
  }
})

test('a burst in one turn is split into chunks of SPREAD, each to the least loaded', async (t) => {
  const route = routeWith([0, 0])
  /** @param {number} n */
  const send = (n) => {
    const counts = [0, 0]
    for (let i = 0; i < n; i++) {
      const link = /** @type {any} */ (route.next())
      link.inFlight++ // what dispatching on its pool does to pool.stats
      counts[link.worker]++
    }
    return counts
  }
  t.same(send(SPREAD).filter((n) => n > 0).length, 1, `a turn of ${SPREAD} stays on one worker`)
  await nextTurn()
  for (const link of route.links) /** @type {any} */ (link).inFlight = 0
  const burst = send(10 * SPREAD)
  t.ok(burst.every((n) => n > 0), `both workers got part of the burst: ${burst}`)
  t.ok(Math.abs(burst[0] - burst[1]) <= SPREAD, `apart by at most ${SPREAD}`)
})
