// @ts-check
// From one transport's observations to the figures the issue asks for: the
// error window (first to last non-2xx), the recovery time (last error after the
// service was back), the slowest error answer, and what the errors said.

/**
 * @param {import('./observer.js').Observation[]} observations  in time order
 * @param {{ injectedAt: number, backAt: number }} fault
 */
export function errorWindow (observations, { injectedAt, backAt }) {
  const errors = observations.filter((o) => o.status !== 200)
  /** @type {Record<string, number>} */
  const byStatus = {}
  for (const o of errors) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1
  const first = errors[0]
  const last = errors.at(-1)
  const wrong = observations.filter((o) => o.verdict === 'wrong')
  const okLatencies = observations.filter((o) => o.verdict === 'verified').map((o) => o.latencyMs).sort((a, b) => a - b)
  const servedAgain = observations.some((o) => o.verdict === 'verified' && o.at > Math.max(backAt, last?.at ?? 0))
  return {
    answers: observations.length,
    errors: errors.length,
    byStatus,
    firstErrorMs: first ? round(first.at - injectedAt) : null, // after the fault was injected
    errorWindowMs: first && last ? round(last.at - first.at) : 0,
    recoveryMs: last ? round(Math.max(0, last.at - backAt)) : 0,
    maxErrorLatencyMs: errors.length ? round(Math.max(...errors.map((o) => o.latencyMs))) : null,
    // How slow a success was meanwhile: queueing on a busy box delays errors and successes alike.
    okLatencyP99Ms: okLatencies.length ? round(okLatencies[Math.min(okLatencies.length - 1, Math.floor(okLatencies.length * 0.99))]) : null,
    maxOkLatencyMs: okLatencies.length ? round(/** @type {number} */ (okLatencies.at(-1))) : null,
    wrongAnswers: wrong.length,
    wrongSamples: [...new Set(wrong.map((o) => o.detail ?? String(o.status)))].slice(0, 3),
    // What the errors said, e.g. 'node3 could not be reached: connect ECONNREFUSED … over tcp'
    errorSamples: [...new Set(errors.filter((o) => o.verdict === 'named').map((o) => /** @type {string} */ (o.detail).replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')))].slice(0, 3),
    servedAgain
  }
}

/** @param {number} ms */
function round (ms) {
  return Math.round(ms)
}
