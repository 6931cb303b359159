// The choice of a target's worker (balancer.js) on plain objects, the clock a number:
// a slice of HOLD_MS on one link, left early once it is more than HOLD_SLACK ahead or
// stalled; every SPREAD requests of one turn the least loaded again; ties in turn.
import t from 'tap'
import {
  choose, HOLD_MS, HOLD_SLACK, kept, leastLoaded, NO_HOLD, renewed, SPREAD, without
} from '../../lib/mesh-port/balancer.js'

/** @param {number[]} loads  requests in flight per link */
const linksWith = (loads) => loads.map((inFlight, id) => ({ id, inFlight, stalled: false }))

/**
 * Frozen in place, so a choice that wrote to either would throw (modules run in strict mode).
 * @param {any} links
 * @param {any} hold
 */
const frozen = (links, hold) => [Object.freeze(links.map(Object.freeze)), Object.freeze(hold)]

t.test('fewer than two links: the only one, or none', async (t) => {
  const [one] = linksWith([5])
  t.equal(choose([one], NO_HOLD, 0, false).held, one)
  t.equal(choose([], NO_HOLD, 0, false).held, null)
})

t.test('the first pick: the least loaded, held from now', async (t) => {
  const links = linksWith([3, 1, 2])
  const hold = choose(links, NO_HOLD, 1000, false)
  t.same(hold, { held: links[1], heldFor: 1, heldSince: 1000, turn: 1 })
})

t.test('the held link is kept turn after turn within HOLD_MS, and left at HOLD_MS for the next in turn', async (t) => {
  const links = linksWith([0, 0])
  let hold = choose(links, NO_HOLD, 1000, false)
  const first = hold.held
  for (const now of [1001, 1000 + HOLD_MS / 2, 1000 + HOLD_MS - 1]) {
    hold = choose(links, hold, now, false)
    t.equal(hold.held, first, `${now - 1000} ms into the slice: kept`)
    t.equal(hold.heldSince, 1000, 'the slice is not renewed by keeping it')
    t.equal(hold.heldFor, 1, 'a new turn counts afresh')
  }
  hold = choose(links, hold, 1000 + HOLD_MS, false)
  t.not(hold.held, first, 'at HOLD_MS, with equal loads, the other link')
  t.equal(hold.heldSince, 1000 + HOLD_MS, 'and its slice starts now')
})

t.test(`more than HOLD_SLACK (${HOLD_SLACK}) ahead of the least loaded, the held link is left`, async (t) => {
  const links = linksWith([0, 0])
  const hold = choose(links, NO_HOLD, 0, false)
  const held = /** @type {any} */ (hold.held)
  const other = links.find((l) => l !== held)
  other.inFlight = 3
  held.inFlight = 3 + HOLD_SLACK
  t.equal(choose(links, hold, 10, false).held, held, `${HOLD_SLACK} ahead: kept`)
  held.inFlight = 3 + HOLD_SLACK + 1
  const left = choose(links, hold, 10, false)
  t.equal(left.held, other, `${HOLD_SLACK + 1} ahead: the least loaded`)
  t.equal(left.heldSince, 10, 'which starts a slice of its own')
})

t.test(`a turn's first SPREAD (${SPREAD}) go to the held link whatever its load, then the least loaded`, async (t) => {
  const links = linksWith([0, 0])
  let hold = choose(links, NO_HOLD, 0, false)
  const held = /** @type {any} */ (hold.held)
  held.inFlight = 1000 // a count, not loads, within a turn
  for (let i = 2; i <= SPREAD; i++) {
    hold = choose(links, hold, 0, true)
    t.equal(hold.held, held, `request ${i} of the turn`)
  }
  t.equal(hold.heldFor, SPREAD)
  hold = choose(links, hold, 5, true)
  t.not(hold.held, held, `request ${SPREAD + 1}: the least loaded`)
  t.same([hold.heldFor, hold.heldSince], [1, 5], 'held afresh from now')
  held.inFlight = 0
  for (let i = 2; i <= SPREAD; i++) hold = choose(links, hold, 5, true)
  t.not(hold.held, held, 'the new one keeps its own SPREAD, though the first is now less loaded')
})

t.test('kept(): the held link\'s next request of the turn without a clock, or null when a pick is due', async (t) => {
  const link = { inFlight: 0, stalled: false }
  t.equal(kept(NO_HOLD), null, 'nothing held')
  const one = Object.freeze({ held: link, heldFor: 1, heldSince: 7, turn: 3 })
  t.same(kept(one), { held: link, heldFor: 2, heldSince: 7, turn: 3 }, 'one more, the slice and turn count kept')
  t.equal(kept({ held: link, heldFor: SPREAD, heldSince: 7, turn: 3 }), null, 'SPREAD taken')
})

t.test('renewed(): once SPREAD are taken, the least loaded, held from now, the same as choose() in a turn', async (t) => {
  const [links, hold] = frozen(linksWith([5, 1, 3]), { held: null, heldFor: SPREAD, heldSince: 7, turn: 4 })
  const hold2 = { ...hold, held: links[0] }
  t.same(renewed(links, hold2, 20), { held: links[1], heldFor: 1, heldSince: 20, turn: 5 }, 'the least loaded, a new slice from now')
  t.same(renewed(links, hold2, 20), choose(links, hold2, 20, true), 'what choose() gives in a turn once kept() is null')
})

t.test('ties go round robin, slice after slice', async (t) => {
  const links = linksWith([0, 0, 0])
  let hold = NO_HOLD
  const order = []
  for (let slice = 0; slice < 6; slice++) {
    hold = choose(links, hold, slice * HOLD_MS, false)
    order.push(/** @type {any} */ (hold.held).id)
  }
  t.same(order, [0, 1, 2, 0, 1, 2])
  t.equal(hold.turn, 6, 'one turn of the count per pick')
})

t.test('a stalled link is skipped, held or not, unless every link is stalled', async (t) => {
  const links = linksWith([0, 5, 9])
  links[0].stalled = true
  t.equal(leastLoaded(links, 0).link, links[1], 'the least loaded of those not stalled')
  let hold = choose(links, NO_HOLD, 0, false)
  t.equal(hold.held, links[1])
  links[1].stalled = true
  hold = choose(links, hold, 1, false)
  t.equal(hold.held, links[2], 'a held link that stalls is left within its slice')
  links[2].stalled = true
  t.same(leastLoaded(links, 2), { link: links[0], load: 0 }, 'all stalled: the least loaded of them all')
  t.equal(choose(links, hold, 2, false).held, links[0])
})

t.test('choose() changes neither the links nor what was held', async (t) => {
  const [links, hold] = frozen(linksWith([2, 0]), { held: null, heldFor: 0, heldSince: 0, turn: 0 })
  const next = choose(links, hold, 0, false)
  t.not(next, hold, 'a new hold')
  t.doesNotThrow(() => choose(links, next, 0, true), 'within the turn')
  t.doesNotThrow(() => choose(links, Object.freeze({ ...next, heldFor: SPREAD }), 0, true), 'a pick within the turn')
  t.doesNotThrow(() => choose(links, Object.freeze(next), HOLD_MS, false), 'a pick at the slice\'s end')
})

t.test('without(): a link that leaves is no longer held', async (t) => {
  const links = linksWith([0, 0])
  const hold = choose(links, NO_HOLD, 0, false)
  const other = links.find((l) => l !== hold.held)
  t.equal(without(hold, /** @type {any} */ (other)), hold, 'another link left: the same hold')
  const after = without(hold, /** @type {any} */ (hold.held))
  t.same(after, { ...hold, held: null }, 'the held one left: nothing held, the rest kept')
  t.equal(choose(links, after, 1, true).held, links[1], 'within the turn, the least loaded (ties from the turn count)')
})
