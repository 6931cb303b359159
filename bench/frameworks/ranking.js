// @ts-check
// The spelled answer: frameworks fastest first by median req/s. Neighbours whose
// min–max ranges across rounds overlap are joined with ≈ rather than >, because
// those rounds did not separate them.

/**
 * @typedef {{ target: string, median: number, min: number, max: number, rounds: number }} Ranked
 * @typedef {{ target: string, failures: string[] }} Failed
 */

/**
 * @param {Record<string, any>} targets  one profile of a result's summary
 * @returns {{ ranked: Ranked[], failed: Failed[] }}
 */
export function rankTargets (targets) {
  /** @type {Ranked[]} */
  const ranked = []
  /** @type {Failed[]} */
  const failed = []
  for (const [target, entry] of Object.entries(targets)) {
    if (entry.failed || !entry.requestsPerSec) failed.push({ target, failures: entry.failures ?? ['no measurement'] })
    else ranked.push({ target, ...pick(entry.requestsPerSec), rounds: entry.rounds })
  }
  ranked.sort((a, b) => b.median - a.median)
  return { ranked, failed }
}

/** @param {{ median: number, min: number, max: number }} spread */
function pick ({ median, min, max }) {
  return { median, min, max }
}

/**
 * e.g. "fastify > find-my-way ≈ polka > express; FAILED: restify"
 * @param {{ ranked: Ranked[], failed: Failed[] }} ranking
 */
export function rankingLine ({ ranked, failed }) {
  let line = ranked.map((entry, i) => {
    if (i === 0) return entry.target
    const faster = ranked[i - 1]
    const overlap = entry.rounds > 1 && faster.rounds > 1 && entry.max >= faster.min
    return `${overlap ? '≈' : '>'} ${entry.target}`
  }).join(' ')
  if (failed.length) line += `${line ? '; ' : ''}FAILED: ${failed.map((entry) => entry.target).join(', ')}`
  return line
}
