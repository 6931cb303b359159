// @ts-check
// The data suite's flags and the variants they expand to.
import { UsageError } from '../lib/cli.js'
import { parseSize } from './dataset/size.js'

export const SOURCES = /** @type {const} */ (['disk', 'net-ipc', 'net-tcp', 'net-mesh-port'])
export const MODES = /** @type {const} */ (['stream', 'scan', 'promise'])
export const DATASET_CHOICES = /** @type {const} */ (['small', 'large'])

/**
 * The runtime a source's runs go against: net-mesh-port is net-ipc's request
 * (http://data-source.plt.local) in the runtime whose config adds the drop-in.
 * @param {typeof SOURCES[number]} source
 * @returns {import('./runtime.js').RuntimeKind}
 */
export function runtimeKindOf (source) {
  return source === 'net-mesh-port' ? 'mesh-port' : 'plain'
}

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
  'large-duration': { type: 'integer', min: 1, max: 3600, help: 'seconds per large-dataset run (default: ~3 answers per connection at each mode\'s expected rate, at least 30)' },
  warmup: { type: 'integer', default: 2, min: 0, max: 120, help: 'seconds of unmeasured load before each small-dataset run' },
  rounds: { type: 'integer', default: 1, min: 1, max: 50, help: 'interleaved rounds (A B C A B C …)' },
  profile: { type: 'string', default: 'scaled', choices: Object.keys(PROFILES), help: 'connections: scaled = small 10 / large 2, original = 400 / 400' },
  connections: { type: 'integer', min: 1, max: 10_000, help: 'override the profile\'s connections on the small dataset' },
  'large-connections': { type: 'integer', min: 1, max: 10_000, help: 'override the profile\'s connections on the large dataset' },
  datasets: { type: 'list', default: [...DATASET_CHOICES], choices: DATASET_CHOICES, help: 'which datasets' },
  sources: { type: 'list', default: [...SOURCES], choices: SOURCES, help: 'where the data comes from (the large dataset has net sources only)' },
  modes: { type: 'list', default: [...MODES], choices: MODES, help: 'stream (stream-json), scan (line cuts or record scanner + JSON.parse per chunk) and/or promise (read whole, JSON.parse)' },
  'small-size': { type: 'string', default: '4MB', help: 'small (speakers) dataset size, e.g. 4MB' },
  'large-size': { type: 'string', default: '100MB', help: 'large (zipcodes) dataset size, e.g. 100MB, 2GB' },
  seed: { type: 'integer', default: 1, min: 0, max: 2 ** 31 - 1, help: 'dataset seed (same seed, same bytes everywhere)' },
  timeout: { type: 'integer', min: 1, max: 3600, help: 'per-request timeout, seconds; a timeout fails the run (default 60, longer for big datasets)' },
  runtime: { type: 'string', default: 'per-run', choices: ['per-run', 'shared'], help: 'a fresh runtime per run (memory of one variant alone) or one for all' },
  'cache-dir': { type: 'string', help: 'dataset cache (default .cache/data)' },
  // --out, --report, --wrk, --allow-errors and --fail-fast come from the driver (bench/lib/driver.js)
}

/**
 * Pessimistic rates at which one data-api thread gets through a dataset, per
 * mode, for default durations only (stream-json ~25–35 MB/s here; the scanner
 * with JSON.parse several times that; a buffered answer is refused or parses
 * at JSON.parse speed).
 */
const BYTES_PER_S = { stream: 25e6, scan: 80e6, promise: 80e6 }
const MAX_AUTO_S = 900

/**
 * Fills in the timeout the user left out, and the large-dataset run length per
 * mode when --large-duration is not given. One large-dataset answer takes about
 * connections × size ÷ rate (the requests share one thread): a run lasts three
 * of those, a request may take two (at the slowest mode's rate), so
 * `--large-size 2GB` alone still gets answers instead of timeouts.
 * @param {Record<string, any>} flags  parsed flags; largeDurationByMode and timeout are set in place
 * @param {{ small: number, large: number }} sizes
 */
export function resolveTiming (flags, sizes) {
  const profile = PROFILES[/** @type {keyof typeof PROFILES} */ (flags.profile)]
  const oneAnswerS = (/** @type {keyof typeof BYTES_PER_S} */ mode) => ((flags.largeConnections ?? profile.large) * sizes.large) / BYTES_PER_S[mode]
  // capped: the original profile's 400 connections on a big file cannot be waited out (they time out, as in the write-up)
  flags.largeDurationByMode = Object.fromEntries(MODES.map((mode) => [mode, flags.largeDuration ?? Math.min(MAX_AUTO_S, Math.max(30, Math.ceil(3 * oneAnswerS(mode))))]))
  flags.timeout ??= Math.min(MAX_AUTO_S, Math.max(60, Math.ceil(2 * oneAnswerS('stream'))))
  return flags
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
 * @param {Record<string, any>} flags  after resolveTiming
 * @returns {DataCase[]}
 */
export function casesFrom (flags) {
  const profile = PROFILES[/** @type {keyof typeof PROFILES} */ (flags.profile)]
  const custom = flags.connections !== undefined || flags.largeConnections !== undefined
  /** @type {DataCase[]} */
  const cases = []
  // streaming variants first: a buffered variant refused at this size (507) stops the run after them
  for (const dataset of /** @type {('small' | 'large')[]} */ (flags.datasets)) {
    for (const mode of /** @type {DataCase['mode'][]} */ (flags.modes)) {
      for (const source of /** @type {DataCase['source'][]} */ (flags.sources)) {
        if (dataset === 'large' && source === 'disk') continue
        cases.push({
          target: `${dataset}/${source}/${mode}`,
          profile: custom ? 'custom' : flags.profile,
          dataset,
          source,
          mode,
          connections: dataset === 'small' ? (flags.connections ?? profile.small) : (flags.largeConnections ?? profile.large),
          duration: dataset === 'small' ? flags.duration : flags.largeDurationByMode[mode],
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
