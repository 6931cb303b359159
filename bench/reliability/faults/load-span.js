// @ts-check
// How long the load under a fault runs, for both fault scenarios (a service's, one
// worker's): for the fault's budget, and on until postMs after the fault is over when
// that is later (a busy box was seen to take longer than the budget to restart a
// worker). Its duration is only a cap, one budget more.
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * @param {{ preMs: number, budgetMs: number, postMs: number }} plan
 */
export function faultLoadSpan ({ preMs, budgetMs, postMs }) {
  const plannedMs = preMs + budgetMs + postMs
  const ends = new AbortController()
  return {
    /** seconds: the load's duration, a cap */
    maxDurationS: Math.ceil((plannedMs + budgetMs) / 1000),
    signal: ends.signal,
    /**
     * Ends the load once the fault is over (or injecting it failed).
     * @param {number} elapsedMs  since the load started
     */
    async endAfterFault (elapsedMs) {
      await sleep(Math.max(postMs, plannedMs - elapsedMs))
      ends.abort()
    }
  }
}
