// @ts-check
// The figures of a realtime result, shared by the console table, the report
// and the README block: per profile and path the median (min–max) of the rate
// (round trips/s for ws, events/s delivered for sse), p50/p99 and CPU, or
// FAILED with the reasons; ratios paired per round; the client-leaves outcome
// per path; and the issue's targets with their verdicts.
import { medianOf } from '../lib/format.js'
import { spread } from '../lib/stats.js'
import { DROP_IN_PATH, LEAVE_PROFILE, MESH_PATH, TCP_PATH } from './plan.js'

/**
 * @typedef {{ median: number, min: number, max: number, n: number }} Spread
 * @typedef {{ failed: true, failures: string[], rounds: number } | { failed: false, rounds: number, rate: Spread | null, p50: number | null, p99: number | null, cpu: number | null, edgeCpu: number | null, loadgenPercent: number | null }} Cell
 * @typedef {{ label: string, goal: string, measured: string, met: boolean | null }} Verdict   met null: not measured
 */

/**
 * The profiles of a kind, in the order they ran.
 * @param {any} result
 * @param {'ws' | 'sse' | 'leave'} kind
 * @returns {string[]}
 */
export function profilesOf (result, kind) {
  return [...new Set(result.runs.filter((/** @type {any} */ r) => r.kind === kind).map((/** @type {any} */ r) => r.profile))]
}

/**
 * The paths measured, in the order they ran.
 * @param {any} result
 * @returns {string[]}
 */
export function pathsOf (result) {
  return [...new Set(result.runs.map((/** @type {any} */ r) => r.path))]
}

/**
 * One profile on one path across its rounds, or null when it did not run.
 * @param {any} result
 * @param {string} profile
 * @param {string} path
 * @returns {Cell | null}
 */
export function cellOf (result, profile, path) {
  const runs = result.runs.filter((/** @type {any} */ r) => r.profile === profile && r.path === path)
  if (!runs.length) return null
  const failed = runs.filter((/** @type {any} */ r) => !r.ok)
  if (failed.length) return { failed: true, rounds: runs.length, failures: [...new Set(failed.flatMap((/** @type {any} */ r) => r.failures))] }
  const pick = (/** @type {(r: any) => number | null | undefined} */ f) => medianOf(runs, f)
  return {
    failed: false,
    rounds: runs.length,
    rate: spread(runs.map((/** @type {any} */ r) => r.requestsPerSec ?? NaN)),
    p50: pick((r) => r.latencyMs?.p50),
    p99: pick((r) => r.latencyMs?.p99),
    cpu: pick((r) => r.resources?.cpuMicrosPerRoundTrip ?? r.resources?.cpuMicrosPerEvent),
    edgeCpu: pick((r) => r.resources?.edgeCpuMicrosPerRoundTrip),
    loadgenPercent: pick((r) => r.loadgen?.cpuPercent)
  }
}

/**
 * a ÷ b of the rate on one profile, paired per round (both runs ok), or null.
 * @param {any} result
 * @param {string} profile
 * @param {string} a  path
 * @param {string} b  path
 * @returns {Spread | null}
 */
export function pairedRatio (result, profile, a, b) {
  const ok = (/** @type {string} */ path) => result.runs.filter((/** @type {any} */ r) => r.profile === profile && r.path === path && r.ok && r.requestsPerSec)
  const others = ok(b)
  const ratios = ok(a).map((/** @type {any} */ run) => {
    const other = others.find((/** @type {any} */ r) => r.round === run.round)
    return other ? run.requestsPerSec / other.requestsPerSec : null
  }).filter((/** @type {number | null} */ v) => v != null)
  return spread(/** @type {number[]} */ (ratios))
}

/**
 * The client-leaves outcome of one path: in how many rounds the producer was told, and how fast.
 * @param {any} result
 * @param {string} path
 */
export function leaveOf (result, path) {
  const runs = result.runs.filter((/** @type {any} */ r) => r.profile === LEAVE_PROFILE && r.path === path)
  if (!runs.length) return null
  const failed = runs.filter((/** @type {any} */ r) => !r.ok)
  if (failed.length) return { failed: true, rounds: runs.length, failures: [...new Set(failed.flatMap((/** @type {any} */ r) => r.failures))] }
  const told = runs.filter((/** @type {any} */ r) => r.leave?.told)
  return {
    failed: false,
    rounds: runs.length,
    told: told.length,
    delayMs: spread(told.map((/** @type {any} */ r) => r.leave.delayMs)),
    waitedMs: runs[0].leave?.waitedMs,
    writtenAfterLeave: medianOf(runs, (r) => r.leave?.writtenAfterLeave)
  }
}

/** "1.23×", or "1.23× (rounds 1.10–1.30)" with several rounds. @param {Spread | null} r */
export function ratioText (r) {
  if (!r) return 'not measured'
  return r.n > 1 ? `${r.median.toFixed(2)}× (rounds ${r.min.toFixed(2)}–${r.max.toFixed(2)})` : `${r.median.toFixed(2)}×`
}

/**
 * The issue's targets (issue 58, "Done when"), from this result: the drop-in's
 * WebSocket echo against loopback TCP at each socket count, its SSE events/s
 * against the mesh's and its lag p99 no higher, and no failed check.
 * @param {any} result
 * @returns {Verdict[]}
 */
export function targetVerdicts (result) {
  /** @type {Verdict[]} */
  const verdicts = []
  const paths = pathsOf(result)
  if (paths.includes(DROP_IN_PATH) && paths.includes(TCP_PATH)) {
    for (const profile of profilesOf(result, 'ws')) {
      const r = pairedRatio(result, profile, DROP_IN_PATH, TCP_PATH)
      const cell = cellOf(result, profile, DROP_IN_PATH)
      verdicts.push({ label: `${profile}: WebSocket echo, mesh-port ÷ tcp`, goal: '≥ 1.2× (moonshot 2×)', measured: r ? ratioText(r) : cell?.failed ? 'FAILED' : 'not measured', met: r ? r.median >= 1.2 : cell?.failed ? false : null })
    }
  }
  if (paths.includes(DROP_IN_PATH) && paths.includes(MESH_PATH)) {
    for (const profile of profilesOf(result, 'sse')) {
      const r = pairedRatio(result, profile, DROP_IN_PATH, MESH_PATH)
      const [ours, mesh] = [cellOf(result, profile, DROP_IN_PATH), cellOf(result, profile, MESH_PATH)]
      verdicts.push({ label: `${profile}: SSE events/s, mesh-port ÷ ipc`, goal: '≥ 1.0×', measured: r ? ratioText(r) : ours?.failed ? 'FAILED' : 'not measured', met: r ? r.median >= 1 : ours?.failed ? false : null })
      if (ours && !ours.failed && mesh && !mesh.failed && ours.p99 != null && mesh.p99 != null) {
        verdicts.push({ label: `${profile}: SSE lag p99, mesh-port against ipc`, goal: 'no higher', measured: `${ours.p99.toFixed(1)} against ${mesh.p99.toFixed(1)} ms`, met: ours.p99 <= mesh.p99 })
      }
    }
  }
  const failed = result.runs.filter((/** @type {any} */ r) => !r.ok)
  const refused = failed.filter(isMeshWebSocketRefusal).length
  verdicts.push({ label: 'failed checks', goal: '0 in every run', measured: `${failed.length} failed run(s) of ${result.runs.length}${refused ? ` (${refused} of them the mesh's WebSocket rows, which it cannot carry)` : ''}`, met: failed.length === refused })
  return verdicts
}

/**
 * A WebSocket run over Watt's mesh that could not open: the mesh carries no upgrade.
 * @param {any} run
 */
export function isMeshWebSocketRefusal (run) {
  return run.kind === 'ws' && run.path === MESH_PATH && run.connectFailed === true
}
