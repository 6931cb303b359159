// @ts-check
// The realtime suite's block (bench/realtime/README.md), written from a
// realtime result only (npm run bench:realtime): how it was measured, the
// WebSocket echo and the SSE fan-out with each path's rate, the paired ratios,
// p99 and CPU; the client-leaves outcome per path; why each FAILED row failed
// (never a number for it); and the targets. Same input, same bytes. Before any
// result is published, the block says how to make one (placeholder).
import { fixed, fmt, num } from '../../bench/lib/format.js'
import { cellOf, leaveOf, pairedRatio, pathsOf, profilesOf, targetVerdicts } from '../../bench/realtime/figures.js'
import { DROP_IN_PATH, MESH_PATH, TCP_PATH } from '../../bench/realtime/plan.js'

/** @param {import('../../bench/realtime/figures.js').Spread | null} r */
const times = (r) => (r ? `${r.median.toFixed(2)}×` : '–')

/**
 * @param {any} result
 * @param {'ws' | 'sse'} kind
 * @param {string} versus  the path the drop-in's ratio is taken against
 */
function table (result, kind, versus) {
  const paths = pathsOf(result)
  const per = kind === 'ws' ? 'round trips/s' : 'events/s'
  const rows = [
    `| ${kind === 'ws' ? 'sockets × message' : 'subscribers'} | ${paths.map((p) => `${p} ${per}`).join(' | ')} | ${DROP_IN_PATH} ÷ ${versus} | ${kind === 'ws' ? 'p99' : 'lag p99'} ms ${paths.join(' / ')} | CPU µs ${kind === 'ws' ? 'per round trip' : 'per event'} ${paths.join(' / ')} |`,
    `|---|${paths.map(() => '---:').join('|')}|---:|---:|---:|`
  ]
  for (const profile of profilesOf(result, kind)) {
    const cells = paths.map((p) => cellOf(result, profile, p))
    const rate = cells.map((c) => (!c ? '–' : c.failed ? 'FAILED' : fmt(c.rate?.median)))
    const ratio = paths.includes(DROP_IN_PATH) && paths.includes(versus) ? times(pairedRatio(result, profile, DROP_IN_PATH, versus)) : '–'
    const trio = (/** @type {(c: any) => number | null} */ pick, /** @type {number} */ digits) => cells.map((c) => (c && !c.failed ? num(pick(c), digits) : '–')).join(' / ')
    rows.push(`| ${profile.replace(/^(ws|sse) /, '')} | ${rate.join(' | ')} | ${ratio} | ${trio((c) => c.p99, 1)} | ${trio((c) => c.cpu, 0)} |`)
  }
  return rows.join('\n')
}

/**
 * Why each FAILED row failed: one line per profile and path, its distinct reasons.
 * @param {any} result
 */
function failures (result) {
  const lines = []
  for (const kind of /** @type {const} */ (['ws', 'sse'])) {
    for (const profile of profilesOf(result, kind)) {
      for (const path of pathsOf(result)) {
        const cell = cellOf(result, profile, path)
        if (cell?.failed) lines.push(`- \`${profile}\` over \`${path}\`: ${cell.failures.join('; ')}`)
      }
    }
  }
  for (const path of pathsOf(result)) {
    const leave = /** @type {any} */ (leaveOf(result, path))
    if (leave?.failed) lines.push(`- \`client leaves\` over \`${path}\`: ${leave.failures.join('; ')}`)
  }
  return lines.length ? `FAILED rows (no figure is shown for them), and why:\n\n${lines.join('\n')}` : ''
}

/** @param {any} result */
function leaves (result) {
  const lines = pathsOf(result).map((path) => {
    const leave = /** @type {any} */ (leaveOf(result, path))
    if (!leave || leave.failed) return null
    const told = leave.delayMs
      ? `feed's response closed ${num(leave.delayMs.median, 1)} ms after the client left (${num(leave.delayMs.min, 1)}–${num(leave.delayMs.max, 1)}), in ${leave.told} of ${leave.rounds} round(s)`
      : `feed was not told within ${fixed(leave.waitedMs)} ms in any of ${leave.rounds} round(s), and wrote ${fmt(leave.writtenAfterLeave)} more events into the stream`
    return `\`${path}\`: ${told}`
  }).filter(Boolean)
  return lines.length ? `**A client that leaves an SSE stream** (after ${result.config.leaveAfter} events): ${lines.join('; ')}.` : ''
}

/** @param {any} result */
function settings (result) {
  const { config, machine } = result
  const commit = `${machine.git?.commit?.slice(0, 10) ?? 'unknown'}${machine.git?.dirty ? ' with local changes' : ''}`
  return `edge → chat (\`ws\` ${machine.versions?.ws ?? 'unknown'} on \`'upgrade'\`) and feed → edge → an outside client, one runtime per path; ${config.rounds} interleaved round(s) of ${config.duration} s after ${config.warmup} s unmeasured, ratios paired per round (median). Every echo checked byte for byte; every SSE event by its sequence number (none lost, repeated or out of order); SSE offered at ${fmt(config.eventRate)} events a second per subscriber. CPU is the whole runtime process's. ${machine.cpuModel}, ${machine.cores} cores; wattpm ${machine.versions?.wattpm ?? 'unknown'}; commit ${commit}; started ${result.startedAt}; \`${result.source}\`.`
}

/**
 * @param {{ realtime: any }} results
 */
export function realtimeBlock ({ realtime }) {
  const verdicts = targetVerdicts(realtime).map((t) => `- ${t.label} (target ${t.goal}): ${t.measured}${t.met == null ? '' : t.met ? ': met' : ': missed'}.`)
  return [
    `**Realtime between applications** (\`npm run bench:realtime\`): ${settings(realtime)}`,
    profilesOf(realtime, 'ws').length ? `WebSocket echo, edge → chat (Node's \`WebSocket\`, one message at a time per socket):\n\n${table(realtime, 'ws', TCP_PATH)}` : '',
    profilesOf(realtime, 'sse').length ? `SSE fan-out through the entrypoint (events delivered a second, all subscribers):\n\n${table(realtime, 'sse', MESH_PATH)}` : '',
    leaves(realtime),
    failures(realtime),
    `Targets, from this file:\n\n${verdicts.join('\n')}`
  ].filter(Boolean).join('\n\n') + '\n'
}

/**
 * What the block says before a result is published.
 * @param {string} path  where the result is expected
 */
export function realtimePlaceholder (path) {
  return `No realtime figures are published yet: run \`npm run bench:realtime -- --out results/realtime.json\` on a quiet machine, then \`npm run readme -- --realtime results/realtime.json\` (it is copied to \`${path}\`).\n`
}
