// @ts-check
// The pass/fail table: one row per check, with what was measured (error
// windows, recovery times, RSS and heap growth, exit codes), then every failure
// in full below it.
import Table from 'cli-table3'
import { fmt } from '../lib/format.js'
import { mib, pct } from './scenarios/leaks.js'

/**
 * @param {any} result  a runSuite result of the reliability suite
 */
export function renderTable (result) {
  const table = new Table({
    head: ['scenario', 'case', 'result', 'measured'],
    colWidths: [10, 34, 8, 74],
    wordWrap: true,
    style: { head: [], border: [] }
  })
  for (const run of result.runs) for (const row of rowsOf(run)) table.push(row)
  const lines = [table.toString()]
  const failed = result.runs.filter((/** @type {any} */ run) => !run.ok)
  for (const run of failed) {
    lines.push(`✗ ${run.profile} · ${run.target}:`)
    for (const failure of run.failures) lines.push(`    - ${failure}`)
  }
  const verdict = failed.length === 0 && result.complete
    ? `PASS: all ${result.runs.length} checks`
    : `FAIL: ${failed.length} of ${result.runs.length} checks failed${result.complete ? '' : ', run incomplete'}`
  lines.push(verdict)
  return lines.join('\n')
}

/**
 * @param {any} run
 * @returns {string[][]}
 */
function rowsOf (run) {
  const verdict = (/** @type {boolean} */ ok) => (ok ? 'PASS' : 'FAIL')
  const firstFailure = run.failures?.[0] ? `✗ ${run.failures[0]}` : ''
  switch (run.profile) {
    case 'load':
      return [['load', `${run.target} · c100 p10`, verdict(run.ok), run.ok
        ? `${fmt(run.totalRequests)} verified 200s, ${fmt(run.requestsPerSec)} req/s, p99 ${run.latencyMs?.p99} ms; 0 non-2xx, errors, timeouts, wrong bodies; backlog drained ${((run.drainMs ?? 0) / 1000).toFixed(1)} s after`
        : firstFailure]]
    case 'leaks': {
      const leaks = run.leaks
      if (!leaks) return [['leaks', run.target, 'FAIL', firstFailure]]
      const first = leaks.readings[0]
      const last = leaks.readings.at(-1)
      const heaps = Object.keys(first.heapUsedBytes).map((app) => `${app} ${mib(first.heapUsedBytes[app])}→${mib(last.heapUsedBytes[app])} (${pct(leaks.heapGrowth[app])})`)
      return [['leaks', `${run.target} · after GC`, verdict(run.ok), [
        `RSS run 1 → ${last.run}: ${mib(first.rssBytes)} → ${mib(last.rssBytes)} MiB (${pct(leaks.rssGrowth)}, limit ${pct(leaks.maxGrowth)})`,
        `heap MiB: ${heaps.join(', ')}`,
        ...(run.ok ? [] : [firstFailure])
      ].join('\n')]]
    }
    case 'fuzz': {
      const fuzz = run.fuzz
      if (!fuzz) return [['fuzz', run.target, 'FAIL', firstFailure]]
      const statuses = Object.entries(fuzz.byStatus).map(([status, n]) => `${n}×${status}`).join(' ')
      return [['fuzz', `${run.target} · seed ${fuzz.seed}`, verdict(run.ok), [
        // in mesh-port's runtime, the one route fuzzed (the services' ports as always)
        ...(run.transport ? [`entry route: ${fuzz.routes.join(', ')}; services' own ports`] : []),
        `${fuzz.requests} in ${fuzz.seconds.toFixed(1)} s: ${statuses}; ${fuzz.deliberate502or504} deliberate 502/504; ${fuzz.droppedWithoutAnswer} dropped without answer`,
        run.ok ? 'no 5xx but deliberate, every 4xx JSON, no hang, no crash' : `${run.failures.length} problem(s), e.g. ${run.failures[0].slice(0, 200)}`
      ].join('\n')]]
    }
    case 'faults':
      return faultRows(run)
    case 'scaler': {
      const s = run.scaler
      if (!s) return [['scaler', run.target, 'FAIL', firstFailure]]
      const failed = s.failed === 0 ? 'no call failed' : `${s.failed} failed: ${Object.entries(s.failedByCode).map(([code, n]) => `${n}×${code}`).join(' ')}`
      const at = (/** @type {number | null} */ ms) => ms === null ? 'not' : `at ${(ms / 1000).toFixed(1)} s`
      return [['scaler', run.target, verdict(run.ok), [
        `${s.application}: up to ${s.workers.maximum} ${at(s.upAtMs)}, down to ${s.workers.minimum} ${at(s.downAtMs)} (the scaler's steps: ${[s.workers.minimum, ...s.scaledUp, ...s.scaledDown].join('→')}); ${s.callers} callers, ${s.calls} calls: ${failed}`,
        `answers per worker: ${Object.entries(s.answersByWorker).map(([w, n]) => `${w}: ${n}`).join(', ')}` +
          (s.httpPortByWorker ? `; over http-port ${Object.entries(s.httpPortByWorker).map(([w, n]) => `${w}: ${n}`).join(', ')}, mesh ${s.meshCalls}; links left ${s.linksLeft}` : ''),
        ...(run.ok ? [] : [firstFailure])
      ].join('\n')]]
    }
    case 'caller-scaler': {
      const s = run.callerScaler
      if (!s) return [['scaler', run.target, 'FAIL', firstFailure]]
      // over the mesh failed calls are Watt's, recorded with their status codes
      const failed = s.failed === 0 ? 'no call failed' : `${s.failed} failed: ${Object.entries(s.failedByCode).map(([code, n]) => `${n}×${code}`).join(' ')}`
      return [['scaler', run.target, verdict(run.ok), [
        `${s.application}: ${s.workers.from}→${s.workers.left} workers ${s.downAtMs === null ? 'not done' : `in ${(s.downAtMs / 1000).toFixed(1)} s`} (the scaler's steps: ${[s.workers.from, ...s.scaledDown].join('→')}); ${s.callers} callers, ${s.calls} calls to ${s.target}: ${failed}`,
        `answers per ${s.application} worker: ${Object.entries(s.answersByWorker).map(([w, n]) => `${w}: ${n}`).join(', ')}; connections to the entry reset as a worker closed them, the GET sent again: ${s.resetAtEntry}` +
          (s.httpPortCalls === undefined ? '' : `; over http-port ${s.httpPortCalls}, mesh ${s.meshCalls}`),
        ...(s.failed > 0 ? [`e.g. ${s.failedSamples[0]}`] : []),
        ...(run.ok ? [] : [firstFailure])
      ].join('\n')]]
    }
    case 'binds': {
      const binds = run.binds
      if (!binds) return [['binds', run.target, 'FAIL', firstFailure]]
      const list = (/** @type {any} */ part) => part ? part.sockets.join(', ') : '–'
      return [['binds', run.target, verdict(run.ok), [
        `runtime: ${list(binds.runtime)} (management dir mode ${binds.runtime?.management?.directoryMode ?? '–'})`,
        // mesh-port's case: a bench over it is checked mid-run by its shutdown case
        `runner: ${binds.runner.length ? binds.runner.join(', ') : 'no listener'}; bench mid-run: ${binds.suite || !run.transport ? list(binds.suite) : 'in its shutdown case'}`,
        ...(run.ok ? [] : [firstFailure])
      ].join('\n')]]
    }
    case 'shutdown': {
      const s = run.shutdown
      if (!s) return [['shutdown', run.target, 'FAIL', firstFailure]]
      return [['shutdown', run.target, verdict(run.ok), [
        `exit ${s.exitCode ?? s.exitSignal} after ${(s.stoppedMs / 1000).toFixed(1)} s; ${s.processesBefore} process(es), ports ${s.portsBefore.join(', ')} (all 127.0.0.1) before, none left after`,
        `partial result kept: ${s.runsKept === null ? 'none needed (nothing measured yet)' : `${s.runsKept} run(s)`}; stale Watt management socket dirs left: ${s.staleManagementSockets}`,
        ...(run.ok ? [] : [firstFailure])
      ].join('\n')]]
    }
    default:
      return [[run.profile, run.target, verdict(run.ok), firstFailure]]
  }
}

/**
 * One row for the fault itself, one per transport with its window and recovery.
 * @param {any} run
 * @returns {string[][]}
 */
function faultRows (run) {
  const fault = run.fault
  if (!fault || !run.transports) return [['faults', run.target, 'FAIL', run.failures?.[0] ?? '']]
  const checks = /** @type {{ name: string, ok: boolean, detail: string }[]} */ (run.checks)
  const transports = Object.keys(run.transports)
  const general = checks.filter((c) => !transports.some((t) => c.name.startsWith(`${t}:`)))
  const back = fault.backAfterMs !== undefined ? `back ${(fault.backAfterMs / 1000).toFixed(1)} s after injection` : 'not back'
  const rows = [['faults', run.target, general.every((c) => c.ok) ? 'PASS' : 'FAIL',
    `${fault.description}; ${back}; entry alive, not restarted; ${fault.connections} conn${fault.workers ? '' : '/transport'} for ${fault.durationS} s` +
    general.filter((c) => !c.ok).map((c) => `\n✗ ${c.name} ${c.detail}`).join('')]]
  for (const transport of transports) {
    const t = run.transports[transport]
    const mine = checks.filter((c) => c.name.startsWith(`${transport}:`))
    const codes = Object.entries(t.load.byCode).filter(([code]) => !code.startsWith('2')).map(([code, n]) => `${n}×${code}`).join(' ')
    const measured = t.errors === 0 && t.load.non2xx === 0
      ? 'no error'
      : `load ${codes || 'no error'}; probes ${t.errors}/${t.answers} errors, window ${(t.errorWindowMs / 1000).toFixed(1)} s, recovery ${t.recoveryMs} ms after back, slowest error ${t.maxErrorLatencyMs ?? '–'} ms (p99 of 200s ${t.okLatencyP99Ms ?? '–'} ms)`
    // one worker of two failed (mesh-port): how the errors compare with their bound, and the other worker
    const oneWorker = t.errorBudget === undefined ? '' : `; errors ${t.errors + t.load.non2xx} ≤ ${t.errorBudget} (in flight to the worker); the other worker served ${t.otherWorkerCallsDuringFault} calls meanwhile${t.otherWorkerFloor === undefined ? '' : ` (floor ${t.otherWorkerFloor})`}, longest gap ${t.longestVerifiedGapMs} ms`
    rows.push(['', `  · ${transport}`, mine.every((c) => c.ok) ? 'PASS' : 'FAIL',
      measured + oneWorker + mine.filter((c) => !c.ok).map((c) => `\n✗ ${c.name.slice(transport.length + 2)} ${c.detail}`).join('')])
  }
  return rows
}

/**
 * The line printed as each scenario finishes.
 * @param {any} run
 */
export function describeCheck (run) {
  const head = `${run.profile} · ${run.target}`
  return run.ok ? `✓ ${head}` : `✗ ${head}: ${run.failures.length} failure(s): ${run.failures[0]?.slice(0, 300)}`
}
