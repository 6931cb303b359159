// @ts-check
// Of two first sends to a worker that race, Watt 3.67's messaging keeps the second's channel and leaves the
// first open and referenced: the thread never exits at stop. So until every worker of an application has
// answered once, sends to it go one at a time (a channel orphaned anyway is closed at exit: lost-channels.js).
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
 * @returns {Messaging}
 */
export function serializeFirstContact (messaging) {
  const sources = { workersOf: configuredWorkers, watchWorkers: true, maxWaitMs: FIRST_CONTACT_WAIT_MS }
  return gateFirstContacts(messaging, sources)
}

/**
 * serializeFirstContact with its sources given (the tests give them; the package's API takes Watt's).
 * @param {Messaging} messaging
 * @param {{ workersOf: (application: string) => number, watchWorkers: boolean, maxWaitMs: number }} sources
 *   workersOf: the worker count before any worker list has been seen; watchWorkers: follow Watt's worker
 *   broadcasts; maxWaitMs: how long a send waits for the one before it
 * @returns {Messaging}
 */
export function gateFirstContacts (messaging, { workersOf, watchWorkers, maxWaitMs }) {
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
      // messaging picks workers round robin: N sends in a row reach N workers, and then sends run freely
      if (gate.answered >= gate.workers) return messaging.send(application, name, data, options)
      // at most maxWaitMs behind the send before: Watt's send can hang on a worker being replaced (D-send-hang)
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
