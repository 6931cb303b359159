// @ts-check
// The data suite's flags and the variants they expand to.
import { UsageError } from '../lib/cli.js'
import { parseSize } from './dataset/size.js'

export const SOURCES = /** @type {const} */ (['disk', 'net-ipc', 'net-tcp'])
export const MODES = /** @type {const} */ (['stream', 'promise'])
export const DATASET_CHOICES = /** @type {const} */ (['small', 'large'])

/**
 * The original write-up ran `wrk -t12 -c400 -d45s` against every endpoint.
 * `scaled` fits two cores and one data-api thread: every request parses the
 * whole dataset, so concurrent requests share that thread and all finish late
 * together; 10 connections on the small dataset and 2 on the large one (where
 * one request scans the file for seconds) keep answers inside a run.
 */
export const PROFILES = {
  scaled: { small: 10, large: 2 },
  original: { small: 400, large: 400 }
}

/** @type {Record<string, import('../lib/cli.js').FlagSpec>} */
export const FLAGS = {
  duration: { type: 'integer', default: 10, min: 1, max: 600, help: 'seconds measured per small-dataset run' },
  'large-duration': { type: 'integer', default: 30, min: 1, max: 1800, help: 'seconds measured per large-dataset run (one request takes seconds)' },
  warmup: { type: 'integer', default: 2, min: 0, max: 120, help: 'seconds of unmeasured load before each small-dataset run' },
  rounds: { type: 'integer', default: 1, min: 1, max: 50, help: 'interleaved rounds (A B C A B C …)' },
  profile: { type: 'string', default: 'scaled', choices: Object.keys(PROFILES), help: 'connections: scaled = small 10 / large 2, original = 400 / 400' },
  connections: { type: 'integer', min: 1, max: 10_000, help: 'override the profile\'s connections on the small dataset' },
  'large-connections': { type: 'integer', min: 1, max: 10_000, help: 'override the profile\'s connections on the large dataset' },
  datasets: { type: 'list', default: [...DATASET_CHOICES], choices: DATASET_CHOICES, help: 'which datasets' },
  sources: { type: 'list', default: [...SOURCES], choices: SOURCES, help: 'where the data comes from (the large dataset has net sources only)' },
  modes: { type: 'list', default: [...MODES], choices: MODES, help: 'stream (stream-json) and/or promise (read whole, JSON.parse)' },
  'small-size': { type: 'string', default: '4MB', help: 'small (speakers) dataset size, e.g. 4MB' },
  'large-size': { type: 'string', default: '100MB', help: 'large (zipcodes) dataset size, e.g. 100MB, 2GB' },
  seed: { type: 'integer', default: 1, min: 0, max: 2 ** 31 - 1, help: 'dataset seed (same seed, same bytes everywhere)' },
  timeout: { type: 'integer', default: 60, min: 1, max: 3600, help: 'per-request timeout, seconds (a timeout fails the run)' },
  runtime: { type: 'string', default: 'per-run', choices: ['per-run', 'shared'], help: 'a fresh runtime per run (memory of one variant alone) or one for all' },
  'cache-dir': { type: 'string', help: 'dataset cache (default .cache/data)' },
  out: { type: 'string', help: 'result JSON path (default results/data-<time>.json)' },
  report: { type: 'string', help: 'write <path>.md and <path>.html (e.g. results/data-report)' },
  wrk: { type: 'string', default: 'auto', choices: ['auto', 'off'], help: 'cross-check each variant with wrk when installed' },
  'allow-errors': { type: 'boolean', default: false, help: 'keep going after a failed run (still reported as failed)' }
}

/**
 * @typedef {object} DataCase
 * @property {string} target        e.g. small/net-ipc/promise
 * @property {string} profile
 * @property {'small' | 'large'} dataset
 * @property {typeof SOURCES[number]} source
 * @property {typeof MODES[number]} mode
 * @property {number} connections
 * @property {number} duration
 * @property {number} warmup
 */

/**
 * @param {Record<string, any>} flags
 * @returns {DataCase[]}
 */
export function casesFrom (flags) {
  const profile = PROFILES[/** @type {keyof typeof PROFILES} */ (flags.profile)]
  const custom = flags.connections !== undefined || flags.largeConnections !== undefined
  /** @type {DataCase[]} */
  const cases = []
  for (const dataset of /** @type {('small' | 'large')[]} */ (flags.datasets)) {
    for (const source of /** @type {DataCase['source'][]} */ (flags.sources)) {
      if (dataset === 'large' && source === 'disk') continue
      for (const mode of /** @type {DataCase['mode'][]} */ (flags.modes)) {
        cases.push({
          target: `${dataset}/${source}/${mode}`,
          profile: custom ? 'custom' : flags.profile,
          dataset,
          source,
          mode,
          connections: dataset === 'small' ? (flags.connections ?? profile.small) : (flags.largeConnections ?? profile.large),
          duration: dataset === 'small' ? flags.duration : flags.largeDuration,
          warmup: dataset === 'small' ? flags.warmup : 0
        })
      }
    }
  }
  return cases
}

/**
 * @param {Record<string, any>} flags
 * @returns {{ small: number, large: number }}
 */
export function sizesFrom (flags) {
  return { small: size(flags.smallSize, 'small-size', 10e3, 2e9), large: size(flags.largeSize, 'large-size', 1e6, 8e9) }
}

/**
 * @param {string} text
 * @param {string} flag
 * @param {number} min
 * @param {number} max
 */
function size (text, flag, min, max) {
  let bytes
  try {
    bytes = parseSize(text)
  } catch (err) {
    throw new UsageError(`--${flag}: ${/** @type {Error} */ (err).message}`)
  }
  if (bytes < min || bytes > max) throw new UsageError(`--${flag} must be from ${min / 1e6} MB to ${max / 1e9} GB, got ${text}`)
  return bytes
}
