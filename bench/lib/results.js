// @ts-check
// The one result format every suite writes, and its summary: per profile and
// target, median/min/max across rounds, and ratios against a baseline measured
// in the same rounds.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { PROJECT_ROOT, RESULTS_DIR } from './paths.js'
import { ratio, spread } from './stats.js'

export const SCHEMA = 'watt-transport-lab/result@1'

/** @typedef {import('./types.js').Run} Run */

/**
 * Default result path: results/<suite>-<UTC timestamp>.json
 * @param {string} suite
 */
export function defaultResultPath (suite) {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').replace(/-\d{3}Z$/, 'Z')
  return join(RESULTS_DIR, `${suite}-${stamp}.json`)
}

/**
 * Groups ok runs by profile and target. A target with any failed run is
 * reported as failed, never as a number.
 * @param {Run[]} runs
 * @param {{ baseline?: string }} [options]
 */
export function summarize (runs, { baseline } = {}) {
  /** @type {Record<string, Record<string, any>>} */
  const summary = {}
  const profiles = [...new Set(runs.map((run) => run.profile))]
  for (const profile of profiles) {
    const inProfile = runs.filter((run) => run.profile === profile)
    summary[profile] = {}
    for (const target of [...new Set(inProfile.map((run) => run.target))]) {
      const mine = inProfile.filter((run) => run.target === target)
      const failed = mine.filter((run) => !run.ok)
      if (failed.length > 0) {
        summary[profile][target] = { failed: true, rounds: mine.length, failures: [...new Set(failed.flatMap((run) => run.failures))] }
        continue
      }
      const entry = {
        failed: false,
        rounds: mine.length,
        requestsPerSec: spread(mine.map((run) => /** @type {number} */ (run.requestsPerSec))),
        latencyAvgMs: spread(mine.map((run) => run.latencyMs?.avg ?? NaN)),
        latencyP99Ms: spread(mine.map((run) => run.latencyMs?.p99 ?? NaN))
      }
      if (baseline) {
        // Paired per round: each round's ratio is measured side by side, then the spread.
        const pairs = mine.map((run) => {
          const base = inProfile.find((other) => other.target === baseline && other.round === run.round)
          return base?.ok ? ratio(run.requestsPerSec, base.requestsPerSec) : null
        }).filter((value) => value !== null)
        Object.assign(entry, { [`ratioTo_${baseline}`]: spread(/** @type {number[]} */ (pairs)) })
      }
      summary[profile][target] = entry
    }
  }
  return summary
}

/**
 * Writes the result JSON (creating the folder) and returns its absolute path.
 * @param {string} path
 * @param {object} result
 */
export function writeResult (path, result) {
  const absolute = resolve(path)
  mkdirSync(dirname(absolute), { recursive: true })
  writeFileSync(absolute, JSON.stringify(result, null, 2) + '\n')
  return absolute
}

/**
 * Reads a result file, with the path it was read from as `source`.
 * @param {string} path  project-relative (or absolute)
 */
export function readResult (path) {
  return { ...JSON.parse(readFileSync(resolve(PROJECT_ROOT, path), 'utf8')), source: path }
}
