// @ts-check
// The runner: plans cases × rounds interleaved (A B C A B C …), runs them one
// by one with progress, turns each measurement into a judged run, and stops on
// Ctrl-C or at the first failure when asked. What the runs are saved into is
// the driver's business (bench/lib/driver.js).
import { failuresOf } from './load.js'
import { onInterrupted, wasInterrupted } from './processes.js'
import { createProgress } from './progress.js'

/**
 * @typedef {import('./types.js').Case} Case
 * @typedef {import('./types.js').Measurement} Measurement
 * @typedef {import('./types.js').Run} Run
 * @typedef {ReturnType<typeof createProgress>} Progress
 */

/**
 * The interleaved plan: every case once per round, rounds one after another.
 * With phaseOf, the cases of one phase run all their rounds before the next
 * phase's first (phases in the order their first case comes).
 * @param {Case[]} cases
 * @param {number} rounds
 * @param {(kase: Case) => string} [phaseOf]
 */
export function planRuns (cases, rounds, phaseOf = () => '') {
  /** @type {Map<string, Case[]>} */
  const phases = new Map()
  for (const kase of cases) {
    const phase = phaseOf(kase)
    const list = phases.get(phase)
    if (list) list.push(kase)
    else phases.set(phase, [kase])
  }
  /** @type {{ kase: Case, round: number }[]} */
  const plan = []
  for (const phase of phases.values()) {
    for (let round = 1; round <= rounds; round++) for (const kase of phase) plan.push({ kase, round })
  }
  return plan
}

/**
 * A judged run from a measurement: any error, timeout, mismatch or non-2xx in
 * the load, or any failure the suite found, and it is not ok.
 * @param {Case} kase
 * @param {number} round
 * @param {string} startedAt
 * @param {Measurement} measurement
 * @returns {Run}
 */
export function runFrom (kase, round, startedAt, { load, failures = [], ...extra }) {
  const all = [...failures, ...(load ? failuresOf(load) : [])]
  return {
    ...kase,
    round,
    startedAt,
    ok: all.length === 0,
    failures: all,
    requestsPerSec: load ? load.requestsPerSec.avg : null,
    requestsPerSecStats: load?.requestsPerSec,
    latencyMs: load?.latencyMs,
    throughputBytesPerSec: load?.throughputBytes.avg,
    totalRequests: load?.totalRequests,
    status: load ? { '2xx': load.status['2xx'], non2xx: load.status.non2xx, byCode: load.status.byCode } : undefined,
    errors: load?.errors,
    timeouts: load?.timeouts,
    mismatches: load?.mismatches,
    loadgen: load?.loadgen,
    ...extra
  }
}

/**
 * @param {object} options
 * @param {Case[]} options.cases
 * @param {number} options.rounds
 * @param {number} options.secondsPerCase   for the progress estimate
 * @param {(kase: Case) => string} [options.phaseOf]  see planRuns
 * @param {(kase: Case, context: { round: number, progress: Progress }) => Promise<Measurement>} options.measure
 * @param {(run: Run) => void} options.onRun              after each run (e.g. save the partial result)
 * @param {(run: Run) => string} options.describe         one line per finished run
 * @param {(planned: number) => void} options.onInterrupt  Ctrl-C or SIGTERM: keep what was measured, then exit
 * @param {boolean} [options.failFast]
 * @returns {Promise<{ planned: number, stoppedEarly: boolean, interrupted: boolean }>}
 */
export async function runPlan ({ cases, rounds, secondsPerCase, phaseOf, measure, onRun, describe, onInterrupt, failFast = false }) {
  const plan = planRuns(cases, rounds, phaseOf)
  const progress = createProgress({ steps: plan.length, secondsPerStep: secondsPerCase })
  onInterrupted(() => {
    progress.stop()
    onInterrupt(plan.length)
  })
  for (const { kase, round } of plan) {
    if (wasInterrupted()) return { planned: plan.length, stoppedEarly: true, interrupted: true }
    progress.begin(`${kase.profile} · ${kase.target} · round ${round}/${rounds}`)
    const startedAt = new Date().toISOString()
    /** @type {Run} */
    let run
    try {
      run = runFrom(kase, round, startedAt, await measure(kase, { round, progress }))
    } catch (err) {
      if (wasInterrupted()) return { planned: plan.length, stoppedEarly: true, interrupted: true }
      run = { ...kase, round, startedAt, ok: false, failures: [`did not run: ${/** @type {Error} */ (err).message}`], requestsPerSec: null }
    }
    progress.end()
    onRun(run)
    progress.log(describe(run))
    if (!run.ok && failFast) {
      progress.log('stopping at the first failed run (--fail-fast)')
      progress.stop()
      return { planned: plan.length, stoppedEarly: true, interrupted: false }
    }
  }
  progress.stop()
  return { planned: plan.length, stoppedEarly: false, interrupted: false }
}
