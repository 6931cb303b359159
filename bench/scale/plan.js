// @ts-check
// The scale suite's flags and the cases they expand to: every strategy at every
// scale, the single process once at scale 1 (it is the baseline, one core).
import { UsageError } from '../lib/cli.js'

export const TARGETS = /** @type {const} */ (['node', 'cluster', 'reuseport', 'pm2', 'watt'])
export const MAX_SCALE = 64

/** @type {Record<string, import('../lib/cli.js').FlagSpec>} */
export const FLAGS = {
  targets: { type: 'list', default: [...TARGETS], choices: TARGETS, help: 'which strategies' },
  scale: { type: 'list', default: ['1', '2', 'max'], help: 'worker counts: integers and/or max (= available cores); node always runs once, at 1' },
  duration: { type: 'integer', default: 40, min: 1, max: 600, help: 'seconds measured per run (autocannon -d)' },
  warmup: { type: 'integer', default: 10, min: 0, max: 120, help: 'seconds of unmeasured load before each run' },
  connections: { type: 'integer', default: 100, min: 1, max: 10_000, help: 'autocannon connections (-c)' },
  rounds: { type: 'integer', default: 1, min: 1, max: 50, help: 'interleaved rounds (A B C A B C …)' },
  'wrk-duration': { type: 'integer', default: 10, min: 1, max: 600, help: 'wrk seconds per run (-d)' },
  'wrk-threads': { type: 'integer', default: 4, min: 1, max: 64, help: 'wrk threads (-t)' },
  'wrk-connections': { type: 'integer', default: 1000, min: 1, max: 10_000, help: 'wrk connections (-c)' },
  'ready-timeout': { type: 'integer', default: 60, min: 1, max: 600, help: 'seconds a target may take to have all workers answering' },
  // --out, --report, --wrk, --allow-errors and --fail-fast come from the driver (bench/lib/driver.js)
}

/**
 * "1,2,max" → [1, 2, cores], sorted, without duplicates.
 * @param {string[]} items
 * @param {number} cores
 */
export function resolveScales (items, cores) {
  const scales = items.map((item) => {
    if (item === 'max') return cores
    const n = Number(item)
    if (!/^\d+$/.test(item) || n < 1 || n > MAX_SCALE) throw new UsageError(`--scale: ${JSON.stringify(item)} is not an integer from 1 to ${MAX_SCALE} or max`)
    return n
  })
  return [...new Set(scales)].sort((a, b) => a - b)
}

/**
 * One case per strategy and scale. Profile = the scale: strategies compared at
 * the same scale are compared under the same load (autocannon workers = scale
 * above 1, as the original did).
 * @param {Record<string, any>} flags  targets, scale, connections
 * @param {number} cores
 */
export function casesFrom (flags, cores) {
  const scales = resolveScales(flags.scale, cores)
  const cases = []
  for (const scale of flags.targets.includes('node') ? [...new Set([1, ...scales])].sort((a, b) => a - b) : scales) {
    for (const target of TARGETS) {
      if (!flags.targets.includes(target)) continue
      if (target === 'node' && scale !== 1) continue
      if (target !== 'node' && !scales.includes(scale)) continue
      cases.push({
        target,
        profile: `scale-${scale}`,
        scale,
        connections: flags.connections,
        autocannonWorkers: scale > 1 ? scale : 0
      })
    }
  }
  return cases
}
