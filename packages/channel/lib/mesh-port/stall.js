// @ts-check
// Which of a target's workers has stopped answering (README "Workers"), surveyed once a turn
// with the route's clock. Silence alone proves nothing (a slow handler is silent too): a ping
// tells a blocked event loop from a slow handler.

/**
 * A worker owing answers that has sent nothing back for this long is pinged (a slow
 * handler is silent too); if the ping goes unanswered as long, its event loop is blocked
 * and it gets no new request until any message from it arrives (D-stall).
 */
export const STALL_MS = 100

/**
 * What the detector reads and keeps on each link.
 * @typedef {object} Watched
 * @property {{ heard: number }} mux  its `heard`: messages received from the worker so far
 * @property {number} calls        requests sent over the link so far
 * @property {number} heard        mux.heard when last looked at
 * @property {number} callsHeard   calls when it was last heard from
 * @property {number} silentSince  when it was first seen owing an answer (0: it owes none)
 * @property {number} pingedAt     when it was pinged in this silence (0: not yet)
 * @property {boolean} stalled     the ping unanswered for STALL_MS too: passed over
 * @property {number} stalls       times it was found stalled
 */

/**
 * What the detector has done through its owner.
 * @template {Watched} L
 * @typedef {object} StallEvents
 * @property {(link: L) => void} ping  asks the worker to answer as soon as its event loop runs
 * @property {(link: L, silentMs: number) => void} stalled  it left the ping unanswered: now passed over
 * @property {(link: L) => void} answers  a stalled one was heard from: no longer passed over
 */

/** A new link's own fields: nothing owed, nothing heard yet. */
export function unwatched () {
  return { heard: 0, callsHeard: 0, silentSince: 0, pingedAt: 0, stalled: false, stalls: 0 }
}

/**
 * Which links were heard from, which owe answers and have been silent for STALL_MS
 * (pinged), and which left that ping unanswered for STALL_MS (stalled). The ping also
 * makes one that wakes up speak even if every request it owed was abandoned meanwhile.
 * @template {Watched} L
 * @param {readonly L[]} links
 * @param {number} now
 * @param {StallEvents<L>} events
 */
export function survey (links, now, events) {
  for (const link of links) {
    const heard = link.mux.heard
    if (heard !== link.heard) {
      link.heard = heard
      link.callsHeard = link.calls
      link.silentSince = 0
      link.pingedAt = 0
      if (link.stalled) {
        link.stalled = false
        events.answers(link)
      }
    } else if (link.calls !== link.callsHeard) {
      if (link.silentSince === 0) link.silentSince = now
      else if (link.pingedAt === 0) {
        if (now - link.silentSince >= STALL_MS) {
          link.pingedAt = now
          events.ping(link)
        }
      } else if (!link.stalled && now - link.pingedAt >= STALL_MS) {
        link.stalled = true
        link.stalls++
        events.stalled(link, now - link.silentSince)
      }
    }
  }
}
