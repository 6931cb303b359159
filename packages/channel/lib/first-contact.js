// @ts-check
// Watt 3.67's messaging (@platformatic/runtime lib/worker/messaging.js, `send`)
// asks the runtime for a channel to a worker on the first send to it. Two first
// sends that race both ask, and the second channel replaces the first in its
// table: the first stays open, listened to and referenced, so the calling thread
// never exits at stop (the runtime waits 10 s and kills it, ports held meanwhile).
// Seen in the lab's entry: parallel first requests over two channel kinds.
//
// The fix on this side: until every worker of an application has answered once,
// sends to that application go one at a time. Messaging picks workers round robin,
// so N sends in a row reach N workers; after that, sends run concurrently as before.
// A change in the application's workers (start, stop, crash, restart) re-arms it.
//
// A send waits for the one before it for at most `maxWaitMs`: Watt's send can hang
// for up to 90 s when it meets a worker that is being replaced, and every later first
// contact would queue behind it (D-send-hang).
// A channel a race then orphans is still closed at the thread's exit (lost-channels.js).
import { setTimeout as sleep } from 'node:timers/promises'
import { configuredApplications } from './watt/globals.js'
import { watchWorkers as followWorkers } from './watt/itc.js'

/** How long a first contact waits for the one before it (a handshake takes milliseconds). */
export const FIRST_CONTACT_WAIT_MS = 2000

/** @typedef {import('./handshake.js').Messaging} Messaging */

/**
 * @typedef {object} Gate
 * @property {number} workers   how many sends in a row must complete before sends run freely
 * @property {number} answered  sends completed since the workers last changed
 * @property {Promise<void>} queue  the tail of the sends waiting their turn
 * @property {string} threads   the workers' thread ids, to notice a change
 */

/** @type {WeakMap<Messaging, Messaging>} */
const guarded = new WeakMap()

/**
 * Wraps `messaging` so that first contacts with an application never race.
 * Idempotent per messaging object.
 * @param {Messaging} messaging
 * @param {{ workersOf?: (application: string) => number, watchWorkers?: boolean, maxWaitMs?: number }} [options]
 *   workersOf: the worker count before any worker list has been seen (default: the
 *   runtime's config); watchWorkers: follow Watt's worker broadcasts (default true);
 *   maxWaitMs: how long a send waits for the one before it (default FIRST_CONTACT_WAIT_MS)
 * @returns {Messaging}
 */
export function serializeFirstContact (messaging, {
  workersOf = configuredWorkers, watchWorkers = true, maxWaitMs = FIRST_CONTACT_WAIT_MS
} = {}) {
  const existing = guarded.get(messaging)
  if (existing) return existing
  /** @type {Map<string, Gate>} */
  const gates = new Map()

  /** @param {string} application */
  const gateOf = (application) => {
    let gate = gates.get(application)
    if (!gate) {
      gate = { workers: Math.max(1, workersOf(application)), answered: 0, queue: Promise.resolve(), threads: '' }
      gates.set(application, gate)
    }
    return gate
  }

  if (watchWorkers) {
    // Posted by the runtime on every worker start, stop and crash, with the live
    // workers of every application (no replay: the config gives the first count).
    followWorkers((all) => {
      for (const [application, workers] of all) {
        if (!Array.isArray(workers)) continue
        const gate = gateOf(application)
        const threads = workers.map((w) => w?.thread).join(',')
        if (threads === gate.threads) continue
        gate.threads = threads
        gate.workers = Math.max(1, workers.length)
        gate.answered = 0
      }
    })
  }

  /** @type {Messaging} */
  const wrapped = {
    send (application, name, data, options) {
      const gate = gateOf(application)
      if (gate.answered >= gate.workers) return messaging.send(application, name, data, options)
      const waited = new AbortController()
      const turn = Promise.race([gate.queue, sleep(maxWaitMs, undefined, { signal: waited.signal }).catch(() => {})])
        .then(() => { waited.abort(); return messaging.send(application, name, data, options) })
      // The next send waits for this one to settle, either way; a failure (no such
      // application, no worker) counts as no contact.
      gate.queue = turn.then(() => { gate.answered++ }, () => {})
      return turn
    },
    handle: (name, handler) => messaging.handle(name, handler)
  }
  guarded.set(messaging, wrapped)
  return wrapped
}

/**
 * The worker count the runtime was configured with for `application` (1 when unknown).
 * @param {string} application
 */
function configuredWorkers (application) {
  const workers = configuredApplications()?.find((a) => a?.id === application)?.workers
  const count = typeof workers === 'number' ? workers : workers?.static
  return Number.isInteger(count) && count > 0 ? count : 1
}
