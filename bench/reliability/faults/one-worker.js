// @ts-check
// The ways ONE worker of a two-worker service fails, for mesh-port, whose
// drop-in links each worker apart: only that worker's requests may fail. Each
// is done through Watt (the management API; the REPL of worker `<app>:1`) and
// says when the worker was back. The service's loopback port cannot tell (the
// other worker still answers on it), so a crash is over once Watt's restart
// counter has moved. The worker is found through the application's own REPL
// (round-robin over its workers), asking each its index, and the one with the
// higher index fails: Watt 3.67 gives a worker restarted after a crash a new index
// (2 for 1), and `<app>:<index>` then no longer opens.
//   crash    one worker exits (process.exit in its REPL); Watt starts a new one
//   hang     one worker's event loop blocked for the hold
//   restart  the application restarted through the API (each worker replaced in turn)
//   crash-then-restart, restart-in-hang, restart-twice: a restart after a crash (the
//            replaced worker has a new index), during a hang, and back to back (D-43)
// The restarts are lossless: the drop-in moves what a stopping worker refuses, and
// sends a crashed worker's unanswered GETs to the other (the entry's calls are GETs).
import { restartCounts } from '../health.js'
import { FAULT_KINDS, waitFor } from './kinds.js'

/**
 * @typedef {object} WorkerFaultContext
 * @property {import('../watt-control.js').WattControl} control
 * @property {string} service
 * @property {string} metricsUrl
 * @property {number} holdMs
 * @property {number} callTimeoutMs
 * @property {() => number} now
 */

/**
 * @typedef {object} WorkerFault
 * @property {string} description
 * @property {boolean} disruptive       the faulted worker's in-flight requests must fail (else the fault did not bite)
 * @property {boolean} [lossless]       no request may fail
 * @property {number} restartsAdded
 * @property {(holdMs: number) => number} budgetMs
 * @property {(context: WorkerFaultContext) => Promise<{ injectedAt: number, backAt: number, worker?: number }>} inject
 *   worker: the index of the worker that failed (none for a restart, which replaces them all in turn)
 */

/** @type {Record<string, WorkerFault>} */
export const WORKER_FAULTS = {
  crash: {
    description: 'one worker of 2 exits (process.exit(1) through its REPL); Watt restarts it',
    disruptive: false, // its in-flight requests fail, but at 20 Hz probes and 8 connections there may be none
    restartsAdded: 1,
    budgetMs: () => 8000,
    async inject ({ control, service, metricsUrl, now }) {
      const before = (await restartCounts(metricsUrl))[service] ?? 0
      const { repl, worker } = await openWorkerRepl(control, service)
      const injectedAt = now()
      try {
        repl.send('process.exit(1)')
        await waitFor(async () => ((await restartCounts(metricsUrl))[service] ?? 0) > before, 30_000, `${service} worker ${worker} was not restarted`)
      } finally {
        repl.close()
      }
      return { injectedAt, backAt: now(), worker }
    }
  },
  hang: {
    description: 'one worker of 2 stops answering: its event loop blocked (busy loop through its REPL)',
    disruptive: false, // the drop-in stops sending to it once it has the most in flight
    restartsAdded: 0,
    budgetMs: (holdMs) => holdMs + 2000,
    async inject ({ control, service, holdMs, now }) {
      const { repl, worker } = await openWorkerRepl(control, service)
      try {
        const injectedAt = now()
        // The REPL answers when the loop ends: that is when the worker is back.
        await repl.run(`{ const until = Date.now() + ${holdMs}; while (Date.now() < until); }`, holdMs + 30_000)
        return { injectedAt, backAt: now(), worker }
      } finally {
        repl.close()
      }
    }
  },
  // The application's own restart (kinds.js), which replaces its workers in turn.
  restart: {
    ...FAULT_KINDS.restart,
    lossless: true,
    // It reads only control, service and now, which a worker fault's context has too.
    inject: (context) => FAULT_KINDS.restart.inject(/** @type {any} */ (context)),
    description: 'the application restarted through the management API (POST /api/v1/restart): its workers replaced in turn, each stopping one sends GOAWAY'
  }
}

/** How long after a crash the restart comes (issue 43's trial). */
export const RESTART_AFTER_CRASH_MS = 4000

Object.assign(WORKER_FAULTS, {
  'crash-then-restart': {
    description: `one worker of 2 exits, then ${RESTART_AFTER_CRASH_MS / 1000} s later the application is restarted through the management API`,
    disruptive: false,
    lossless: true,
    restartsAdded: 2,
    budgetMs: () => 8000 + RESTART_AFTER_CRASH_MS + 14_000,
    async inject (/** @type {WorkerFaultContext} */ context) {
      const crashed = await WORKER_FAULTS.crash.inject(context)
      await new Promise((resolve) => setTimeout(resolve, RESTART_AFTER_CRASH_MS))
      const restarted = await WORKER_FAULTS.restart.inject(context)
      return { injectedAt: crashed.injectedAt, backAt: restarted.backAt }
    }
  },
  'restart-in-hang': {
    description: 'one worker of 2 blocks its event loop for half the call timeout, and the application is restarted meanwhile',
    disruptive: false,
    lossless: true,
    restartsAdded: 1,
    budgetMs: () => 14_000,
    async inject (/** @type {WorkerFaultContext} */ { control, service, callTimeoutMs, now }) {
      const { repl, worker } = await openWorkerRepl(control, service)
      try {
        const injectedAt = now()
        // Shorter than the call timeout: what the hung worker holds is answered once it wakes.
        repl.send(`{ const until = Date.now() + ${Math.floor(callTimeoutMs / 2)}; while (Date.now() < until); }`)
        await new Promise((resolve) => setTimeout(resolve, Math.floor(callTimeoutMs / 4)))
        await control.restartApplication(service)
        return { injectedAt, backAt: now(), worker }
      } finally {
        repl.close()
      }
    }
  },
  'restart-twice': {
    description: 'the application restarted through the management API twice, back to back',
    disruptive: false,
    lossless: true,
    restartsAdded: 2,
    budgetMs: () => 28_000,
    async inject (/** @type {WorkerFaultContext} */ context) {
      const first = await WORKER_FAULTS.restart.inject(context)
      const second = await WORKER_FAULTS.restart.inject(context)
      return { injectedAt: first.injectedAt, backAt: second.backAt }
    }
  }
})

export const WORKER_FAULT_NAMES = Object.keys(WORKER_FAULTS)

/**
 * The REPL of one worker of a two-worker service, the one with the higher index:
 * the application's REPL lands on each worker in turn, each is asked its index.
 * @param {import('../watt-control.js').WattControl} control
 * @param {string} service
 * @returns {Promise<{ repl: import('../watt-control.js').Repl, worker: number }>}
 */
export async function openWorkerRepl (control, service) {
  /** @type {{ repl: import('../watt-control.js').Repl, worker: number }[]} */
  const opened = []
  for (let attempt = 0; attempt < 6; attempt++) {
    const repl = await control.openRepl(service)
    const answer = await repl.run("'worker=' + require('node:worker_threads').workerData.worker.index", 10_000)
    const worker = Number(/worker=(\d+)/.exec(answer)?.[1])
    if (Number.isNaN(worker) || opened.some((o) => o.worker === worker)) { repl.close(); continue }
    opened.push({ repl, worker })
    if (opened.length === 2) break
  }
  opened.sort((a, b) => a.worker - b.worker)
  for (const { repl } of opened.slice(0, -1)) repl.close()
  if (opened.length < 2) {
    opened[0]?.repl.close()
    throw new Error(`${service} has no second worker to fail (its REPL found ${opened.map((o) => o.worker).join(', ') || 'none'})`)
  }
  return opened[1]
}
