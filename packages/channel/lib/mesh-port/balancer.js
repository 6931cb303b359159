// @ts-check
// Which of a target's links takes the next request (README "Workers"): a pure function of the
// links, what was held so far, the time and whether the request is of the last one's event-loop
// turn. The route keeps the clock and the turn, so this is tested without either.

/**
 * How many of one turn's requests the held worker takes before the least loaded is
 * picked again, so a burst is spread in chunks; a count, not loads, so it costs
 * nothing per request (D-spread).
 */
export const SPREAD = 16

/**
 * How long one worker keeps a target's requests, turn after turn: the other workers
 * sleep through the slice instead of taking turns waking on the same cores (D-hold).
 */
export const HOLD_MS = 250

/**
 * The held worker is left at its next turn once it has more than this many in flight
 * above the least loaded: a slow worker's queue goes to the others, and a hung one keeps
 * at most this many and one turn's requests. Lower ended slices early (D-hold-slack).
 */
export const HOLD_SLACK = SPREAD

/**
 * What the balancer reads of a link.
 * @typedef {object} Candidate
 * @property {number} inFlight  requests sent over it and not yet answered (its load)
 * @property {number} sockets  upgraded connections open over it (a WebSocket's load)
 * @property {boolean} stalled  passed over while any other is not (stall.js)
 */

/**
 * What the balancer carries from one request to the next.
 * @template {Candidate} [L=Candidate]
 * @typedef {object} Hold
 * @property {L | null} held   the link the requests go to (for this turn at least)
 * @property {number} heldFor  requests of this turn given to it
 * @property {number} heldSince  when it was picked (the clock the route passes as `now`)
 * @property {number} turn     picks so far: where the search for the least loaded starts, so ties go in turn
 */

/** Before the first request: nothing held. */
export const NO_HOLD = Object.freeze({ held: null, heldFor: 0, heldSince: 0, turn: 0 })

/**
 * The link for the next request and what is held after it (its `held`); `inTurn`: a request
 * of this turn was routed already. Neither the links nor `hold` is changed.
 * @template {Candidate} L
 * @param {readonly L[]} links
 * @param {Hold<L>} hold
 * @param {number} now
 * @param {boolean} inTurn
 * @returns {Hold<L>}
 */
export function choose (links, hold, now, inTurn) {
  if (links.length < 2) return { ...hold, held: links[0] ?? null } // nothing to balance
  const { held, heldSince, turn } = hold
  // One worker per event-loop turn at least, so the turn's requests leave in one
  // message to one thread; every SPREAD requests of a turn, the least loaded is
  // picked again (D-turn-holder, D-spread).
  if (inTurn) return kept(hold) ?? renewed(links, hold, now)
  if (held !== null && !held.stalled && now - heldSince < HOLD_MS) {
    // Kept while at most HOLD_SLACK ahead of the least loaded (which may be itself).
    const least = leastLoaded(links, turn)
    if (held.inFlight <= least.load + HOLD_SLACK) return { held, heldFor: 1, heldSince, turn }
    return pick(least.link, turn, now)
  }
  return pick(leastLoaded(links, turn).link, turn, now)
}

/**
 * Within a turn, what is held after the held link takes one more request, or null when the
 * least loaded is to be picked. The route asks this before choose(): it needs no clock, and
 * most requests end here, so they cost no read of performance.now().
 * @template {Candidate} L
 * @param {Hold<L>} hold
 * @returns {Hold<L> | null}
 */
export function kept (hold) {
  const { held, heldFor, heldSince, turn } = hold
  return held !== null && heldFor < SPREAD ? { held, heldFor: heldFor + 1, heldSince, turn } : null
}

/**
 * Within a turn, once the held link has taken SPREAD requests: the least loaded, held from `now`.
 * @template {Candidate} L
 * @param {readonly L[]} links  two or more
 * @param {Hold<L>} hold
 * @param {number} now
 * @returns {Hold<L>}
 */
export function renewed (links, hold, now) {
  return pick(leastLoaded(links, hold.turn).link, hold.turn, now)
}

/**
 * What is held once `link` leaves the links: nothing, if it was held.
 * @template {Candidate} L
 * @param {Hold<L>} hold
 * @param {L} link
 * @returns {Hold<L>}
 */
export function without (hold, link) {
  return hold.held === link ? { ...hold, held: null } : hold
}

/**
 * Fewest in flight (or, for `'sockets'`, fewest upgraded connections open), the search starting at
 * `turn` (round robin when all are equal), of the links not stalled if any.
 * @template {Candidate} L
 * @param {readonly L[]} links  two or more
 * @param {number} turn
 * @param {'inFlight' | 'sockets'} [load]
 * @returns {{ link: L, load: number }}
 */
export function leastLoaded (links, turn, load = 'inFlight') {
  const start = turn % links.length
  /** @type {L | null} */
  let link = null
  let least = Infinity
  for (let pass = 0; pass < 2 && link === null; pass++) {
    // the second pass, only when every link is stalled, takes them all
    for (let i = 0; i < links.length && least > 0; i++) {
      const other = links[(start + i) % links.length]
      if (pass === 0 && other.stalled) continue
      if (other[load] < least) { link = other; least = other[load] }
    }
  }
  return { link: /** @type {L} */ (link), load: least }
}

/**
 * @template {Candidate} L
 * @param {L} link
 * @param {number} turn
 * @param {number} now
 * @returns {Hold<L>}
 */
function pick (link, turn, now) {
  return { held: link, heldFor: 1, heldSince: now, turn: turn + 1 }
}
