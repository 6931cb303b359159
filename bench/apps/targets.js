// @ts-check
// The targets, checked against a result: the paired per-round ratios
// of one path to another on a route (median, min, max), each with its verdict.
// Shared by the report and the README block.
import { medianOf } from '../lib/format.js'
import { spread } from '../lib/stats.js'

/**
 * @typedef {{ median: number, min: number, max: number, n: number }} Ratio
 * @typedef {{ label: string, goal: string, measured: string, met: boolean | null }} Verdict   met null: not measured
 */

/**
 * a ÷ b on one route, paired per round (both runs ok), or null.
 * @param {any} result
 * @param {string} profile  app/route
 * @param {string} a        path
 * @param {string} b        path
 * @returns {Ratio | null}
 */
export function pairedRatio (result, profile, a, b) {
  const ok = (/** @type {string} */ target) => result.runs.filter((/** @type {any} */ r) => r.profile === profile && r.target === target && r.ok)
  const others = ok(b)
  const ratios = ok(a).map((/** @type {any} */ run) => {
    const other = others.find((/** @type {any} */ r) => r.round === run.round)
    return other?.requestsPerSec ? run.requestsPerSec / other.requestsPerSec : null
  }).filter((/** @type {number | null} */ v) => v != null)
  return spread(/** @type {number[]} */ (ratios))
}

/** @param {Ratio | null} r */
export function ratioText (r) {
  if (!r) return 'not measured'
  return r.n > 1 ? `${r.median.toFixed(2)}× (rounds ${r.min.toFixed(2)}–${r.max.toFixed(2)})` : `${r.median.toFixed(2)}×`
}

/**
 * @param {any} result  an apps result
 * @returns {Verdict[]}
 */
export function targetVerdicts (result) {
  const profiles = /** @type {string[]} */ ([...new Set(result.runs.map((/** @type {any} */ r) => r.profile))])
  /** @type {Verdict[]} */
  const verdicts = []
  const floor = (/** @type {string} */ label, /** @type {string} */ profile, /** @type {string} */ a, /** @type {string} */ b, /** @type {number} */ min) => {
    if (!profiles.includes(profile)) return
    const r = pairedRatio(result, profile, a, b)
    verdicts.push({ label, goal: `≥ ${min.toFixed(1)}×`, measured: ratioText(r), met: r ? r.median >= min : null })
  }
  // issue 51's targets; a route at c50 is the profile `app/route@busy`, ratios to ipc are at c10
  floor('catalog, gateway → db list route: mesh-port ÷ ipc', 'catalog/list', 'mesh-port', 'ipc', 2.5)
  floor('catalog, service fetch → db: mesh-port ÷ ipc', 'catalog/join', 'mesh-port', 'ipc', 2.5)
  for (const profile of profiles) floor(`${profile}: mesh-port ÷ tcp`, profile, 'mesh-port', 'tcp', profile.startsWith('orders/insert') ? 1.0 : 1.1)
  for (const profile of profiles) {
    const p99 = (/** @type {string} */ path) => medianOf(result.runs.filter((/** @type {any} */ r) => r.profile === profile && r.target === path && r.ok), (/** @type {any} */ r) => r.latencyMs?.p99)
    const [ours, tcp] = [p99('mesh-port'), p99('tcp')]
    if (ours == null || tcp == null) continue
    verdicts.push({ label: `${profile}: p99 mesh-port against tcp`, goal: '≤ tcp\'s', measured: `${ours} against ${tcp} ms`, met: ours <= tcp })
  }
  const writes = result.runs.filter((/** @type {any} */ r) => r.writes)
  if (writes.length) {
    const lost = writes.reduce((/** @type {number} */ sum, /** @type {any} */ r) => sum + r.writes.lost, 0)
    const duplicated = writes.reduce((/** @type {number} */ sum, /** @type {any} */ r) => sum + r.writes.duplicated, 0)
    const acknowledged = writes.reduce((/** @type {number} */ sum, /** @type {any} */ r) => sum + r.writes.acknowledged, 0)
    verdicts.push({ label: 'orders: lost or duplicated rows', goal: '0', measured: `${lost} lost, ${duplicated} duplicated of ${acknowledged.toLocaleString('en-US')} acknowledged orders`, met: lost === 0 && duplicated === 0 })
  }
  const failed = result.runs.filter((/** @type {any} */ r) => !r.ok).length
  verdicts.push({ label: 'failed checks', goal: '0 in every run', measured: `${failed} failed run(s) of ${result.runs.length}`, met: failed === 0 })
  return verdicts
}
