// The stall detector (stall.js) on plain links, the clock a number: a link owing answers
// that is silent for STALL_MS is pinged, and stalled once the ping too goes unanswered for
// STALL_MS; anything heard from it clears that. One that owes nothing is never pinged.
import t from 'tap'
import { STALL_MS, survey, unwatched } from '../../lib/mesh-port/stall.js'

/** The fake clock's start: performance.now() is never 0, which the detector reads as "not yet". */
const T0 = 1000

/** A link as the route keeps it, with what the detector reported on it. */
function watched () {
  return { calls: 0, mux: { heard: 0 }, ...unwatched() }
}

/** The events a survey reports, recorded as [event, link id, silentMs?]. */
function recorder () {
  /** @type {any[]} */
  const seen = []
  return {
    seen,
    events: {
      ping: (/** @type {any} */ link) => seen.push(['ping', link.id]),
      stalled: (/** @type {any} */ link, /** @type {number} */ ms) => seen.push(['stalled', link.id, ms]),
      answers: (/** @type {any} */ link) => seen.push(['answers', link.id])
    }
  }
}

t.test('a silent link owing answers: pinged after STALL_MS, stalled after another STALL_MS, once', async (t) => {
  const link = { id: 'a', ...watched() }
  const { seen, events } = recorder()
  link.calls = 2 // sent two requests, heard nothing since
  survey([link], T0, events)
  t.equal(link.silentSince, T0, 'first seen owing now')
  survey([link], T0 + STALL_MS - 1, events)
  t.same(seen, [], 'not yet STALL_MS: no ping')
  survey([link], T0 + STALL_MS, events)
  t.same(seen, [['ping', 'a']], 'STALL_MS silent: pinged')
  t.equal(link.pingedAt, T0 + STALL_MS)
  t.notOk(link.stalled)
  survey([link], T0 + 2 * STALL_MS - 1, events)
  t.notOk(link.stalled, 'the ping not yet STALL_MS old')
  survey([link], T0 + 2 * STALL_MS, events)
  t.ok(link.stalled, 'the ping unanswered for STALL_MS: stalled')
  t.equal(link.stalls, 1)
  t.same(seen.at(-1), ['stalled', 'a', 2 * STALL_MS], 'reported with how long it has been silent')
  for (const later of [3, 10, 100]) survey([link], T0 + later * STALL_MS, events)
  t.equal(seen.length, 2, 'no second ping, no second report in the same silence')
  t.equal(link.stalls, 1)
})

t.test('hearing from a stalled link clears it; a new silence starts over', async (t) => {
  const link = { id: 'a', ...watched(), calls: 1 }
  const { seen, events } = recorder()
  for (const now of [T0, T0 + STALL_MS, T0 + 2 * STALL_MS]) survey([link], now, events)
  t.ok(link.stalled)
  link.mux.heard++ // its pong, or any message
  survey([link], T0 + 5 * STALL_MS, events)
  t.notOk(link.stalled, 'no longer stalled')
  t.same([link.silentSince, link.pingedAt, link.callsHeard], [0, 0, 1], 'owes nothing it was sent before')
  t.same(seen.at(-1), ['answers', 'a'])
  survey([link], T0 + 10 * STALL_MS, events)
  t.equal(seen.length, 3, 'heard and owing nothing new: no ping however long it is quiet')
  link.calls++
  for (const n of [10, 11, 12]) survey([link], T0 + n * STALL_MS, events)
  t.same(seen.slice(3).map((e) => e[0]), ['ping', 'stalled'], 'a new request unanswered: the same course again')
  t.equal(link.stalls, 2, 'counted twice')
})

t.test('a slow handler that answers the ping is never stalled', async (t) => {
  const link = { id: 'a', ...watched(), calls: 1 }
  const { seen, events } = recorder()
  for (let now = T0; now <= T0 + 20 * STALL_MS; now += STALL_MS) {
    survey([link], now, events)
    if (link.pingedAt) link.mux.heard++ // its PONG, its answers still pending
  }
  t.ok(seen.filter((e) => e[0] === 'ping').length >= 1, 'pinged')
  t.equal(link.stalls, 0, 'never stalled')
  t.notOk(seen.some((e) => e[0] === 'stalled'))
})

t.test('a link that owes nothing is never pinged, however long it is silent', async (t) => {
  const link = { id: 'a', ...watched() }
  const { seen, events } = recorder()
  for (let now = T0; now <= T0 + 50 * STALL_MS; now += STALL_MS) survey([link], now, events)
  t.same(seen, [])
  t.equal(link.silentSince, 0)
})

t.test('each link is watched on its own', async (t) => {
  const quiet = { id: 'quiet', ...watched(), calls: 1 }
  const talking = { id: 'talking', ...watched(), calls: 1 }
  const { seen, events } = recorder()
  for (const now of [T0, T0 + STALL_MS, T0 + 2 * STALL_MS]) {
    talking.mux.heard++
    survey([quiet, talking], now, events)
  }
  t.same(seen, [['ping', 'quiet'], ['stalled', 'quiet', 2 * STALL_MS]])
  t.notOk(talking.stalled)
})

t.test('unwatched(): a fresh record each time, nothing owed', async (t) => {
  const a = unwatched()
  t.same(a, { heard: 0, callsHeard: 0, silentSince: 0, pingedAt: 0, stalled: false, stalls: 0 })
  a.stalls = 3
  t.equal(unwatched().stalls, 0, 'not shared')
})
