// @ts-check
// What the suite prints: one line per finished run, and the closing table
// (per profile and path: the rate, p50/p99, CPU, or FAILED and why).
import Table from 'cli-table3'
import { fmt, num } from '../lib/format.js'
import { cellOf, leaveOf, pathsOf, profilesOf } from './figures.js'

/** @param {import('../lib/types.js').Run} run */
export function describeRealtimeRun (run) {
  const head = `${run.profile} · ${run.target} · round ${run.round}`
  if (!run.ok) return `✗ ${head}: FAILED (${run.failures.join('; ')})`
  if (run.kind === 'leave') {
    const leave = run.leave
    return `✓ ${head}: ${leave.told ? `feed told in ${num(leave.delayMs, 1)} ms` : `feed not told within ${leave.waitedMs} ms`} (${leave.writtenAfterLeave} events written past the ones read)`
  }
  const unit = run.kind === 'ws' ? 'round trips/s' : `events/s of ${fmt(run.sse?.offeredPerSec)} offered, lag`
  const cpu = run.kind === 'ws' ? run.resources?.cpuMicrosPerRoundTrip : run.resources?.cpuMicrosPerEvent
  return `✓ ${head}: ${fmt(run.requestsPerSec)} ${unit} p50 ${num(run.latencyMs?.p50, 2)} ms, p99 ${num(run.latencyMs?.p99, 2)} ms, ${num(cpu, 1)} µs CPU each`
}

/** @param {import('../lib/types.js').Result} result */
export function realtimeTable (result) {
  const table = new Table({ head: ['profile', 'path', 'per second (median)', 'min – max', 'p50 ms', 'p99 ms', 'CPU µs each'], style: { head: [], border: [] } })
  for (const kind of /** @type {const} */ (['ws', 'sse'])) {
    for (const profile of profilesOf(result, kind)) {
      for (const path of pathsOf(result)) {
        const cell = cellOf(result, profile, path)
        if (!cell) continue
        if (cell.failed) { table.push([profile, path, 'FAILED', cell.failures.join('; ').slice(0, 90), '', '', '']); continue }
        table.push([profile, path, fmt(cell.rate?.median), `${fmt(cell.rate?.min)} – ${fmt(cell.rate?.max)}`, num(cell.p50, 2), num(cell.p99, 2), num(cell.cpu, 1)])
      }
    }
  }
  for (const path of pathsOf(result)) {
    const leave = /** @type {any} */ (leaveOf(result, path))
    if (!leave) continue
    table.push(['client leaves', path, ...(leave.failed ? ['FAILED', leave.failures.join('; ').slice(0, 90)] : [`told ${leave.told} of ${leave.rounds}`, leave.delayMs ? `${num(leave.delayMs.median, 1)} ms (${num(leave.delayMs.min, 1)} – ${num(leave.delayMs.max, 1)})` : `not within ${leave.waitedMs} ms`]), '', '', ''])
  }
  return table.toString()
}
