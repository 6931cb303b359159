// How the drop-in picks a worker when an application has several: one worker for
// a slice of HOLD_MS, turn after turn, while it has at most HOLD_SLACK more in
// flight than the least loaded (so the other workers sleep through it); then the
// least loaded, ties in turn; never a worker that left; a burst split into chunks
// of SPREAD; none to a worker that owes answers and left a ping unanswered.
import { setImmediate as nextTurn } from 'node:timers/promises'
import { test } from 'tap'
import {
  ApplicationRoute, HOLD_MS, HOLD_SLACK, MODES, SPREAD, STALL_MS
} from '../../lib/mesh-port/route.js'
import { refusal } from '../../lib/mesh-port/refusal.js'

/**
 * A route with fake links: only what next(), drop() and retire() touch.
 * @param {number[]} loads  requests in flight per worker
 */
function routeWith (loads) {
  const silent = { info () {}, warn () {} }
  const route = new ApplicationRoute('svc', /** @type {any} */ ({ connections: 1, pool: {}, workers: { ask: async () => [] }, log: silent, caller: 'test' }))
  route.linked.all = loads.map((inFlight, worker) => /** @type {any} */ ({
    worker,
    thread: 100 + worker,
    inFlight,
    calls: 0,
    heard: 0,
    callsHeard: 0,
    silentSince: 0,
    pingedAt: 0,
    stalled: false,
    stalls: 0,
    // inFlight: what dispatching through poolHandler() counts on the link
    pool: { destroy: async () => {}, close: async () => {} },
    // heard: messages received from the worker; pings: how often it was asked to answer
    mux: { close () {}, closeWhenIdle () {}, heard: 0, pings: 0, ping () { this.pings++ } }
  }))
  route.refresh = async () => {} // retire() looks for a replacement; nothing to find here
  route.enter(MODES.HTTP_PORT)
  return route
}

/**
 * The held worker's slice: renewed (a test's turns must not outlast it on a busy
 * machine) or over. Time is the route's only clock input.
 * @param {ApplicationRoute} route
 * @param {'renewed' | 'over'} how
 */
function slice (route, how) {
  route.hold = { ...route.hold, heldSince: performance.now() - (how === 'over' ? HOLD_MS + 1 : 0) }
}

test('turns within the slice stay on the held worker; after it, the other takes over', async (t) => {
  const route = routeWith([0, 0])
  const first = [1, 2, 3, 4, 5].map(() => route.next()?.worker)
  t.same(new Set(first).size, 1, 'one worker for the whole turn')
  for (let turn = 0; turn < 3; turn++) {
    await nextTurn()
    slice(route, 'renewed')
    t.same([1, 2, 3].map(() => route.next()?.worker), [first[0], first[0], first[0]], `turn ${turn + 2}, within the slice: the same worker`)
  }
  await nextTurn()
  slice(route, 'over')
  const after = [1, 2, 3].map(() => route.next()?.worker)
  t.same(new Set(after).size, 1)
  t.not(after[0], first[0], 'with equal loads the next slice goes to the other worker')
})

test('over many slices with equal loads the shares are even', async (t) => {
  const route = routeWith([0, 0, 0])
  const counts = [0, 0, 0]
  for (let slices = 0; slices < 60; slices++) {
    for (let turn = 0; turn < 3; turn++) {
      slice(route, turn === 0 ? 'over' : 'renewed')
      for (let i = 0; i < 4; i++) counts[/** @type {number} */ (route.next()?.worker)]++
      await nextTurn()
    }
  }
  t.same(counts, [240, 240, 240])
})

test(`a held worker with more than HOLD_SLACK (${HOLD_SLACK}) in flight over the least loaded is left at its next turn`, async (t) => {
  const route = routeWith([0, 0])
  const held = /** @type {any} */ (route.next())
  await nextTurn()
  slice(route, 'renewed')
  held.inFlight = HOLD_SLACK
  t.equal(route.next()?.worker, held.worker, `${HOLD_SLACK} more in flight: kept`)
  await nextTurn()
  slice(route, 'renewed')
  held.inFlight = HOLD_SLACK + 1
  t.not(route.next()?.worker, held.worker, `${HOLD_SLACK + 1} more: the other, within the slice`)
})

test('a hung worker keeps only what it got before it was HOLD_SLACK ahead; the rest go to the one that answers', async (t) => {
  const route = routeWith([0, 0])
  const got = [0, 0]
  for (let turn = 0; turn < 50; turn++) {
    slice(route, 'renewed')
    for (let i = 0; i < 3; i++) {
      const link = /** @type {any} */ (route.next())
      got[link.worker]++
      if (link.worker === 0) link.inFlight++ // worker 0 never answers; worker 1 at once
    }
    await nextTurn()
  }
  t.ok(got[0] <= HOLD_SLACK + 3, `the hung worker got ${got[0]} (at most HOLD_SLACK and one turn's)`)
  t.equal(got[0] + got[1], 150)
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
    if (leave === 'drop') route.linked.drop(held, 'test')
    else route.linked.retire(held)
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
      link.inFlight++ // what dispatching through poolHandler() does
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

/**
 * One turn's request, as the drop-in sends it (sendOver counts it on the link).
 * @param {ApplicationRoute} route
 */
function sendOne (route) {
  const link = /** @type {any} */ (route.next())
  link.calls++
  return link
}

/**
 * The next turn, its slice renewed, as if `ms` had passed since the route last
 * looked (the silence and ping clocks moved back).
 * @param {ApplicationRoute} route
 * @param {number} ms
 */
async function later (route, ms) {
  await nextTurn()
  slice(route, 'renewed')
  for (const link of route.links) {
    if (link.silentSince) link.silentSince -= ms
    if (link.pingedAt) link.pingedAt -= ms
  }
}

test(`a worker that owes answers, is silent for STALL_MS (${STALL_MS}) and leaves the ping unanswered as long is passed over, until it speaks`, async (t) => {
  const route = routeWith([0, 0])
  const hung = sendOne(route)
  await later(route, 0)
  t.equal(sendOne(route), hung, 'within STALL_MS: still held')
  t.ok(hung.silentSince > 0, 'seen owing an answer')
  await later(route, STALL_MS)
  t.equal(sendOne(route), hung, 'silent STALL_MS: still held, and pinged')
  t.equal(hung.mux.pings, 1)
  t.notOk(hung.stalled)
  await later(route, STALL_MS)
  const other = sendOne(route)
  t.not(other, hung, 'the ping unanswered too: left within its slice')
  t.ok(hung.stalled, 'marked stalled')
  // Its requests are abandoned meanwhile (deadlines): it has the fewest in flight, and
  // is still passed over, slice after slice.
  other.inFlight = 3
  for (let turn = 0; turn < 6; turn++) {
    await nextTurn()
    slice(route, 'over')
    t.equal(sendOne(route), other, `slice ${turn + 1}: the worker that answers`)
  }
  t.equal(hung.mux.pings, 1, 'pinged once per silence')
  t.equal(hung.stalls, 1)
  hung.mux.heard++ // its answer to the ping (or anything else)
  other.inFlight = 0
  const back = []
  for (let turn = 0; turn < 4; turn++) {
    await nextTurn()
    slice(route, 'over')
    back.push(sendOne(route))
  }
  t.notOk(hung.stalled, 'heard from: no longer stalled')
  t.ok(back.includes(hung), 'and back in the rotation')
})

test('a worker that answers the ping (a slow handler, its event loop free) is never stalled', async (t) => {
  const route = routeWith([0, 0])
  const slow = sendOne(route)
  for (let turn = 0; turn < 10; turn++) {
    await later(route, STALL_MS)
    if (slow.pingedAt) slow.mux.heard++ // the PONG, while the answers it owes take their time
    t.equal(sendOne(route), slow, `turn ${turn + 1}: still held`)
  }
  t.ok(slow.mux.pings >= 1, 'it was pinged')
  t.equal(slow.stalls, 0, 'and never stalled')
})

test('a worker that answered everything it was sent is never pinged, however long it is idle', async (t) => {
  const route = routeWith([0, 0])
  for (let turn = 0; turn < 6; turn++) {
    const link = sendOne(route)
    link.mux.heard++ // it answered
    await nextTurn()
    slice(route, 'over')
    route.next() // a survey sees the answer
    await later(route, 10 * STALL_MS)
    slice(route, 'over')
  }
  t.ok(route.links.every((l) => !l.stalled && l.stalls === 0 && /** @type {any} */ (l.mux).pings === 0), 'none stalled, none pinged')
})

test('when every worker is stalled they are still picked, by load', async (t) => {
  const route = routeWith([0, 0])
  for (const link of route.links) {
    link.calls = 1
    link.silentSince = performance.now() - 2 * STALL_MS
    link.pingedAt = performance.now() - STALL_MS
  }
  route.links[0].inFlight = 2
  const picked = route.next()
  t.ok(route.links.every((l) => l.stalled), 'both stalled')
  t.equal(picked, route.links[1], 'the less loaded of the two')
})

test('a worker that is still starting has not refused the drop-in; one without a server or a handler has', async (t) => {
  const itcError = (message, fields = {}) => Object.assign(new Error('handshake failed'), { cause: Object.assign(new Error(message), fields) })
  t.same(refusal(itcError("Handler failed with error: Application with id 'two' is not started")), { outcome: 'failed', reason: "Application with id 'two' is not started" }, 'Watt\'s "not started" (a restart under way): look again, no fallback')
  t.same(refusal(itcError('Handler failed with error: not this time', { handlerErrorCode: 'PLT_RUNTIME_APPLICATION_NOT_STARTED' })).outcome, 'failed', 'Watt\'s "not started" by its code')
  t.same(refusal(itcError('Handler failed with error: no node:http server in this worker', { handlerErrorCode: 'WATT_CHANNEL_NO_SERVER' })), { outcome: 'refused', reason: 'no node:http server in this worker' }, 'no server: the mesh')
  t.same(refusal(itcError('Handler failed with error: anything', { handlerErrorCode: 'WATT_CHANNEL_STOPPING' })).outcome, 'stopping', 'a stopping worker, by its code and not its wording')
  t.equal(refusal(itcError('Handler not found for mesh-port')).outcome, 'refused', 'no drop-in there: the mesh')
  t.equal(refusal(itcError('whatever', { code: 'PLT_ITC_HANDLER_NOT_FOUND' })).outcome, 'refused', 'no drop-in there, by Watt\'s code')
  t.equal(refusal(new Error('timeout')).outcome, 'failed', 'a timeout is not a refusal')
})

test('a fallback to the mesh lets the requests in flight on live workers finish: their pools close, none is destroyed', async (t) => {
  const route = routeWith([2, 1])
  const ends = []
  for (const link of route.links) {
    const l = /** @type {any} */ (link)
    l.pool.close = async () => { ends.push(`close ${l.worker}`) }
    l.pool.destroy = async () => { ends.push(`destroy ${l.worker}`) }
  }
  route.fallBack('its workers do not run the drop-in (no mesh-port handler)')
  t.equal(route.mode, 'mesh')
  t.same(route.links, [], 'no link takes new requests')
  t.equal(route.next(), null)
  await nextTurn()
  t.same(ends.sort(), ['close 0', 'close 1'], 'each pool closes after what it has in flight')
})
