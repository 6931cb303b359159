// @ts-check
// The target for the mesh source over the mesh-port drop-in
// (net-mesh-port), per variant beside the same variant over tcp: throughput at
// least tcp's, and peak RSS over idle at most tcp's plus a small allowance.
// Read from a data result's runs only, so the report and the README block
// (scripts/readme/data-block.js) judge it the same way.
import { medianOf } from '../lib/format.js'

/** How much more memory over idle than tcp the drop-in may take. */
export const MESH_PORT_RSS_SLACK_MIB = 16
const MIB = 1048576

/**
 * @typedef {object} MeshPortVerdict
 * @property {string} variant             e.g. small/scan (dataset/mode)
 * @property {number | null} ratio        req/s over tcp's, median of per-round ratios
 * @property {number | null} overIdleMiB  net-mesh-port's peak RSS over idle, median
 * @property {number | null} tcpOverIdleMiB
 * @property {boolean} throughputMet
 * @property {boolean | null} memoryMet   null when not measured (a shared runtime has no idle baseline)
 */

/**
 * One verdict per dataset/mode where both net-mesh-port and net-tcp ran fine.
 * @param {{ runs: any[] }} result
 * @returns {MeshPortVerdict[]}
 */
export function meshPortVerdicts (result) {
  const ok = (/** @type {string} */ target) => result.runs.filter((r) => r.target === target && r.ok)
  const verdicts = []
  const variants = [...new Set(result.runs.filter((r) => r.source === 'net-mesh-port').map((r) => `${r.dataset}/${r.mode}`))]
  for (const variant of variants) {
    const [dataset, mode] = variant.split('/')
    const mine = ok(`${dataset}/net-mesh-port/${mode}`)
    const tcp = ok(`${dataset}/net-tcp/${mode}`)
    if (mine.length === 0 || tcp.length === 0) continue
    // paired per round: the same round ran both under the same conditions
    const ratios = mine.map((run) => {
      const other = tcp.find((r) => r.round === run.round)
      return other?.requestsPerSec ? run.requestsPerSec / other.requestsPerSec : null
    })
    const ratio = medianOf(ratios, (v) => v)
    const overIdleMiB = medianOf(mine, (r) => r.memoryConsumedBytes == null ? null : r.memoryConsumedBytes / MIB)
    const tcpOverIdleMiB = medianOf(tcp, (r) => r.memoryConsumedBytes == null ? null : r.memoryConsumedBytes / MIB)
    verdicts.push({
      variant,
      ratio,
      overIdleMiB,
      tcpOverIdleMiB,
      throughputMet: ratio != null && ratio >= 1,
      memoryMet: overIdleMiB == null || tcpOverIdleMiB == null ? null : overIdleMiB <= tcpOverIdleMiB + MESH_PORT_RSS_SLACK_MIB
    })
  }
  return verdicts
}

/**
 * One markdown line for the verdicts, or '' when there is nothing to judge.
 * @param {MeshPortVerdict[]} verdicts
 */
export function meshPortTargetLine (verdicts) {
  if (verdicts.length === 0) return ''
  const x = (/** @type {number | null} */ n) => n == null ? '–' : `${n.toFixed(2)}×`
  const m = (/** @type {number | null} */ n) => n == null ? '–' : String(Math.round(n))
  const parts = verdicts.map((v) => `${v.variant} ${x(v.ratio)} tcp's req/s (${v.throughputMet ? 'met' : 'missed'}), ${m(v.overIdleMiB)} MiB over idle against tcp's ${m(v.tcpOverIdleMiB)} (${v.memoryMet === null ? 'not measured' : v.memoryMet ? 'met' : 'missed'})`)
  const all = verdicts.every((v) => v.throughputMet && v.memoryMet !== false)
  return `- **the mesh source over the mesh-port drop-in (net-mesh-port) against tcp** (target: throughput ≥ tcp's, peak RSS over idle ≤ tcp's + ${MESH_PORT_RSS_SLACK_MIB} MiB): ${parts.join('; ')}: ${all ? 'met' : 'missed'}.`
}
