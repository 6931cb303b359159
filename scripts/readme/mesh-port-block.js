// @ts-check
// The channel README's figures for the drop-in as shipped (its default wire and flush), from
// the lab's published transports and apps results: the fan-out against Watt's mesh and
// loopback TCP at each load, and the apps' range against both. Ratios are paired per round;
// a path whose runs failed is FAILED, never a number.
import { pairedRatio } from '../../bench/apps/targets.js'
import { fmt } from '../../bench/lib/format.js'

/** @param {{ median: number } | null} r */
const times = (r) => (r ? `${r.median.toFixed(2)}×` : 'FAILED')

/**
 * @param {any} result
 * @param {string} profile
 * @param {string} path
 */
const failed = (result, profile, path) => result.runs.some((/** @type {any} */ r) => r.profile === profile && r.target === path && !r.ok)

/**
 * A ratio, or FAILED when either side failed a run (a failed run is never a number).
 * @param {any} result
 * @param {string} profile
 * @param {string} a
 * @param {string} b
 */
function ratio (result, profile, a, b) {
  return failed(result, profile, a) || failed(result, profile, b) ? 'FAILED' : times(pairedRatio(result, profile, a, b))
}

/**
 * min–max of the routes' paired ratios at one load, or FAILED when any of them failed.
 * @param {any} apps
 * @param {boolean} busy  the routes at 50 connections (`app/route@busy`)
 * @param {string} other  the path compared with
 */
function range (apps, busy, other) {
  const profiles = [...new Set(apps.runs.map((/** @type {any} */ r) => r.profile))].filter((p) => p.endsWith('@busy') === busy)
  if (!profiles.length) return null
  if (profiles.some((p) => failed(apps, p, 'mesh-port') || failed(apps, p, other))) return 'FAILED'
  const medians = profiles.map((p) => pairedRatio(apps, p, 'mesh-port', other)?.median).filter((m) => m != null).map(Number)
  return medians.length ? `${Math.min(...medians).toFixed(2)}–${Math.max(...medians).toFixed(2)}×` : null
}

/** @param {any} result */
const commitOf = (result) => result.machine.git?.commit?.slice(0, 10) ?? 'unknown'

/**
 * @param {{ transports: any, apps: any }} results
 */
export function meshPortBlock ({ transports, apps }) {
  const profile = (/** @type {string} */ name) => transports.runs.some((/** @type {any} */ r) => r.profile === name)
  const rps = transports.summary.latency?.['mesh-port']?.requestsPerSec?.median
  const loads = [
    profile('latency') ? `at 10 connections ${rps && !failed(transports, 'latency', 'mesh-port') ? `${fmt(rps)} req/s, ` : ''}${ratio(transports, 'latency', 'mesh-port', 'ipc')} Watt's mesh and ${ratio(transports, 'latency', 'mesh-port', 'tcp')} loopback TCP` : '',
    profile('seed') ? `at 100 connections × 10 pipelined ${ratio(transports, 'seed', 'mesh-port', 'ipc')} and ${ratio(transports, 'seed', 'mesh-port', 'tcp')}` : ''
  ].filter(Boolean)
  const [mesh10, tcp10, mesh50, tcp50] = [range(apps, false, 'ipc'), range(apps, false, 'tcp'), range(apps, true, 'ipc'), range(apps, true, 'tcp')]
  const appsLoads = [
    mesh10 && `${mesh10} Watt's mesh and ${tcp10} loopback TCP across the routes at 10 connections`,
    tcp50 && `${mesh50} and ${tcp50} at 50`
  ].filter(Boolean)
  const failedRuns = apps.runs.filter((/** @type {any} */ r) => !r.ok).length + transports.runs.filter((/** @type {any} */ r) => !r.ok).length
  return [
    `**What the defaults measured** (written by \`npm run readme\` from the lab's published results, ratios paired per round, every answer verified, ${failedRuns} failed run(s)):`,
    '',
    `- **Fan-out** (\`npm run bench\`, one entry calling four apps per request; commit ${commitOf(transports)}, started ${transports.startedAt}): the drop-in served ${loads.join(', and ')}.`,
    `- **Apps** (\`npm run bench:apps\`: a gateway in front of a db, writes, a BFF; commit ${commitOf(apps)}, started ${apps.startedAt}): the drop-in served ${appsLoads.join(', and ')}.`,
    ''
  ].join('\n')
}
