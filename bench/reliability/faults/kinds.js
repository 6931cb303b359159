// @ts-check
// The ways one downstream service fails, each done through Watt itself (its
// management API, as wattpm does), each saying when the service was back:
//   restart     Watt's own restart of the application (replacement worker first)
//   crash       the worker dies (process.exit in its REPL); Watt restarts it on its own
//   hang        the worker stops answering: its event loop blocked for a while
//   stop-start  the application stopped through the API, started again later
//   process-crash  the service's own process (tcp-process, tcp-remote) killed, started
//               again after the hold: only the transport that reaches it may see errors
import { setTimeout as sleep } from 'node:timers/promises'
import { statusOf } from '../health.js'

/**
 * @typedef {object} FaultContext
 * @property {import('../watt-control.js').WattControl} control
 * @property {string} service
 * @property {string} helloUrl          the service's own loopback /hello, to see it come back
 * @property {number} holdMs            how long a hang or a stop lasts
 * @property {() => number} now         ms on the scenario's clock
 * @property {import('../../outside/targets.js').ServiceFaults | null} [processes]  process-crash: the
 *                                      service processes behind the outside transport under test
 */

/**
 * @typedef {object} FaultKind
 * @property {string} description
 * @property {boolean} disruptive       callers of the service must see errors (else the fault did not happen)
 * @property {boolean} [outside]        fails the service's own process, not its Watt worker: only the
 *                                      outside transport under test is disrupted, every other must not be
 * @property {number} restartsAdded     Watt restart counter increase expected for the service
 * @property {(holdMs: number) => number} budgetMs  how long until the service is back, at most
 * @property {(context: FaultContext) => Promise<{ injectedAt: number, backAt: number }>} inject
 */

/** @type {Record<string, FaultKind>} */
export const FAULT_KINDS = {
  restart: {
    description: 'restarted through the management API (POST /api/v1/restart)',
    disruptive: false,
    restartsAdded: 1,
    // Under load the old worker's keep-alive sockets stay busy, so it may take Watt's whole
    // application grace period (gracefulShutdown.application, 10 s) to go.
    budgetMs: () => 14_000,
    async inject ({ control, service, now }) {
      const injectedAt = now()
      await control.restartApplication(service)
      return { injectedAt, backAt: now() } // the call returns once the replacement serves
    }
  },
  crash: {
    description: 'its worker exits (process.exit(1) through the REPL); Watt restarts it',
    disruptive: true,
    restartsAdded: 1,
    budgetMs: () => 8000,
    async inject ({ control, service, helloUrl, now }) {
      const repl = await control.openRepl(service)
      const injectedAt = now()
      try {
        repl.send('process.exit(1)')
        await waitFor(async () => typeof (await statusOf(helloUrl, 1000)) !== 'number', 10_000, `${service} did not go down`)
      } finally {
        repl.close()
      }
      await waitFor(async () => (await statusOf(helloUrl, 1000)) === 200, 30_000, `${service} did not come back`)
      return { injectedAt, backAt: now() }
    }
  },
  hang: {
    description: 'stops answering: its event loop blocked (busy loop through the REPL)',
    disruptive: true,
    restartsAdded: 0,
    budgetMs: (holdMs) => holdMs + 2000,
    async inject ({ control, service, holdMs, now }) {
      const repl = await control.openRepl(service)
      try {
        const injectedAt = now()
        // The REPL answers when the loop ends: that is when the service is back.
        await repl.run(`{ const until = Date.now() + ${holdMs}; while (Date.now() < until); }`, holdMs + 30_000)
        return { injectedAt, backAt: now() }
      } finally {
        repl.close()
      }
    }
  },
  'stop-start': {
    description: 'stopped through the management API, started again after the hold',
    disruptive: true,
    restartsAdded: 0,
    budgetMs: (holdMs) => holdMs + 5000,
    async inject ({ control, service, holdMs, now }) {
      const injectedAt = now()
      await control.stopApplication(service)
      await sleep(holdMs)
      await control.startApplication(service)
      return { injectedAt, backAt: now() }
    }
  }
}

FAULT_KINDS['process-crash'] = {
  description: 'its own Node process (behind tcp-process, tcp-remote or tcp-container) killed with SIGKILL, started again after the hold',
  disruptive: true,
  outside: true,
  restartsAdded: 0, // Watt's worker of the service is not touched
  budgetMs: (holdMs) => holdMs + 10_000,
  async inject ({ processes, service, holdMs, now }) {
    if (!processes) throw new Error('process-crash needs the service processes of an outside transport')
    const injectedAt = now()
    await processes.crash(service)
    await sleep(holdMs)
    await processes.restart(service) // resolves once it answers /hello again
    return { injectedAt, backAt: now() }
  }
}

export const FAULT_NAMES = Object.keys(FAULT_KINDS)
/** The faults of a Watt worker, which every in-runtime transport sees. */
export const WORKER_FAULT_NAMES = FAULT_NAMES.filter((name) => !FAULT_KINDS[name].outside)

/**
 * Polls `condition` until it holds, or throws `message` at the deadline.
 * @param {() => Promise<boolean>} condition
 * @param {number} timeoutMs
 * @param {string} message
 */
export async function waitFor (condition, timeoutMs, message) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await condition()) return
    await sleep(50)
  }
  throw new Error(`${message} within ${timeoutMs} ms`)
}
