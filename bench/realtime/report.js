// @ts-check
// A realtime result as report sections: the WebSocket echo and the SSE fan-out
// (a table and a chart each; a FAILED cell carries its reasons, never a number),
// the client-leaves check per path, the targets, and every run.
import { everyRunSection, failedBanner, fmt, machineLine, num } from '../lib/format.js'
import { barChart } from '../lib/report.js'
import { cellOf, leaveOf, pairedRatio, pathsOf, profilesOf, targetVerdicts } from './figures.js'
import { LEAVE_STREAM } from './client-leaves.js'
import { MESH_PATH, TCP_PATH } from './plan.js'

export const PATH_LABEL = { ipc: 'ipc (Watt\'s mesh)', tcp: 'tcp (loopback ports)', 'mesh-port': 'mesh-port (the drop-in)' }

/** @param {import('./figures.js').Spread | null} r */
const times = (r) => (r ? `${r.median.toFixed(2)}× (${r.min.toFixed(2)}–${r.max.toFixed(2)})` : '–')

/**
 * Rows of one kind: per profile, per path.
 * @param {any} result
 * @param {'ws' | 'sse'} kind
 * @param {string} baseline  the path the ratio column is taken against
 */
function rowsOf (result, kind, baseline) {
  const rows = []
  for (const profile of profilesOf(result, kind)) {
    for (const path of pathsOf(result)) {
      const cell = cellOf(result, profile, path)
      if (!cell) continue
      if (cell.failed) { rows.push([profile, path, 'FAILED', cell.failures.join('; '), '', '', '', '', '']); continue }
      rows.push([
        profile,
        path,
        fmt(cell.rate?.median),
        `${fmt(cell.rate?.min)} – ${fmt(cell.rate?.max)}`,
        path === baseline ? '1.00×' : times(pairedRatio(result, profile, path, baseline)),
        num(cell.p50, 2),
        num(cell.p99, 2),
        num(cell.cpu, 1),
        kind === 'ws' ? num(cell.edgeCpu, 1) : num(cell.loadgenPercent, 0)
      ])
    }
  }
  return rows
}

/**
 * @param {any} result
 * @param {'ws' | 'sse'} kind
 * @param {string} title
 * @param {string} unit
 */
function chartOf (result, kind, title, unit) {
  const profiles = profilesOf(result, kind)
  return barChart({
    title,
    categories: profiles,
    series: pathsOf(result).map((path) => ({
      name: PATH_LABEL[/** @type {keyof typeof PATH_LABEL} */ (path)] ?? path,
      values: profiles.map((p) => {
        const cell = cellOf(result, p, path)
        return cell && !cell.failed ? cell.rate?.median ?? null : null
      })
    })),
    unit
  })
}

/**
 * @param {any} result
 * @returns {import('../lib/report.js').Report}
 */
export function realtimeReport (result) {
  const { config, runs } = result
  const sections = []
  const rounds = `medians across ${config.rounds} round(s) of ${config.duration} s after ${config.warmup} s unmeasured, the paths interleaved in each round, ratios paired per round`
  if (profilesOf(result, 'ws').length) {
    sections.push({
      title: 'WebSocket echo between two applications (edge → chat)',
      text: `edge opens the sockets with Node's global \`WebSocket\` to chat's \`/echo\` (\`ws\` on chat's \`'upgrade'\`) and runs a closed loop on each, one binary message at a time; every echo is compared byte for byte with the message sent, and any mismatch, broken socket or socket that did not open fails the run. Round trips/s and their latency (a \`perf_hooks\` histogram in edge) are of the measured window; ${rounds}. CPU µs per round trip: the whole runtime process ÷ round trips; edge µs: edge's thread alone. Over Watt's mesh the sockets do not open: its row is FAILED with the error a client gets.`,
      table: { headers: ['profile', 'path', 'round trips/s', 'min – max', `× ${TCP_PATH}`, 'p50 ms', 'p99 ms', 'CPU µs/round trip', 'edge µs/round trip'], rows: rowsOf(result, 'ws', TCP_PATH) },
      charts: [chartOf(result, 'ws', 'WebSocket echo: round trips/s per profile and path (median)', 'round trips/s')]
    })
  }
  if (profilesOf(result, 'sse').length) {
    sections.push({
      title: 'SSE fan-out through the entrypoint (feed → edge → client)',
      text: `The suite's client (outside the runtime) opens the subscribers' streams to edge, which fetches each from feed over the path and pipes it through. feed publishes ${fmt(config.eventRate)} events a second to every subscriber (${config.eventSize} characters of padding each), stamped with the time each was due; every event is checked (its sequence number the next one, none lost, repeated or out of order, its padding, the end event's count). Events/s: arrivals at the client in the measured window, all streams; lag: arrival − due time, of the events due in the window; ${rounds}. CPU µs per event: the runtime process (/proc) over the window ÷ events delivered; load generator CPU in % of one core.`,
      table: { headers: ['profile', 'path', 'events/s', 'min – max', `× ${MESH_PATH}`, 'lag p50 ms', 'lag p99 ms', 'CPU µs/event', 'loadgen CPU %'], rows: rowsOf(result, 'sse', MESH_PATH) },
      charts: [chartOf(result, 'sse', 'SSE fan-out: events/s delivered per profile and path (median)', 'events/s')]
    })
  }
  const leaveRows = pathsOf(result).map((path) => [path, leaveOf(result, path)]).filter(([, l]) => l)
  if (leaveRows.length) {
    sections.push({
      title: 'A client that leaves an SSE stream',
      text: `The client reads ${config.leaveAfter} events of a stream (${LEAVE_STREAM.rate} a second, ending by itself after ${LEAVE_STREAM.durationMs / 1000} s) and destroys its socket; edge aborts its call to feed. Then feed's status is read every 10 ms for up to ${config.leaveWait} ms: did its response close before its end (the producer told), and how long after the client left.`,
      table: {
        headers: ['path', 'producer told', 'after (median, min – max)', 'events feed wrote past those read (median)'],
        rows: leaveRows.map(([path, l]) => {
          const leave = /** @type {any} */ (l)
          if (leave.failed) return [path, 'FAILED', leave.failures.join('; '), '']
          return [path, `${leave.told} of ${leave.rounds} round(s)`, leave.delayMs ? `${num(leave.delayMs.median, 1)} ms (${num(leave.delayMs.min, 1)} – ${num(leave.delayMs.max, 1)})` : `not within ${leave.waitedMs} ms`, fmt(leave.writtenAfterLeave)]
        })
      }
    })
  }
  sections.push({
    title: 'Targets',
    text: 'Issue 58\'s targets, from this result (paired per round: median and the rounds\' range).',
    table: { headers: ['target', 'goal', 'measured', 'verdict'], rows: targetVerdicts(result).map((v) => [v.label, v.goal, v.measured, v.met == null ? '–' : v.met ? 'met' : 'missed']) }
  })
  sections.push(everyRunSection(runs, {
    targetHeader: 'path',
    profile: true,
    extra: [
      { header: 'CPU µs each', cell: (r) => num(r.resources?.cpuMicrosPerRoundTrip ?? r.resources?.cpuMicrosPerEvent, 1) },
      { header: 'checked', cell: (r) => checkedCell(r) }
    ]
  }))
  return {
    title: 'Realtime between applications: WebSockets and SSE over Watt\'s mesh, loopback TCP and the drop-in',
    intro: `${failedBanner(result, 'rows')}${machineLine(result, ['wattpm', 'undici', 'ws', 'eventsource-parser'])} One runtime per path (edge, chat and feed, one worker each), all up for the whole run. The load generator shares the machine's cores with the runtimes.`,
    sections
  }
}

/** What a run checked, in one cell. @param {any} run */
function checkedCell (run) {
  if (run.ws) return run.ws.roundTrips != null ? `${fmt(run.ws.roundTrips)} echoes in the window, ${run.ws.mismatches} wrong` : `${run.ws.connected} of ${run.ws.sockets} open`
  if (run.sse) return `${fmt(run.sse.received)} events, ${run.sse.lost} lost, ${run.sse.duplicated} dup., ${run.sse.outOfOrder} reordered, ${run.sse.corrupt} corrupt`
  if (run.leave) return run.leave.told ? `told in ${num(run.leave.delayMs, 1)} ms` : `not told in ${run.leave.waitedMs} ms`
  return '–'
}
