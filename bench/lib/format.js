// @ts-check
// Formatting shared by every report and console table: numbers, MiB, MB/s,
// medians across runs, the machine line and the every-run table.
import Table from 'cli-table3'
import { spread } from './stats.js'

/**
 * Requests per second and counts: thousands separated; slow variants (a large
 * dataset, say) keep three significant digits instead of rounding to 0.
 * @param {number | null | undefined} n
 */
export function fmt (n) {
  if (n == null || Number.isNaN(n)) return '–'
  return n < 100 ? String(Number(n.toPrecision(3))) : Math.round(n).toLocaleString('en-US')
}

/** A figure for prose and markdown tables: thousands separated, a fixed number of decimals. @param {number | null | undefined} n @param {number} [digits] */
export function fixed (n, digits = 0) {
  return n == null || Number.isNaN(n) ? '–' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

/** @param {number | null | undefined} n @param {number} [digits] */
export function num (n, digits = 1) {
  return n == null || Number.isNaN(n) ? '–' : n.toFixed(digits)
}

/** Bytes as whole MiB (2^20). @param {number | null | undefined} bytes */
export function mib (bytes) {
  return bytes == null || Number.isNaN(bytes) ? '–' : (bytes / 1048576).toFixed(0)
}

/** Bytes per second as MB/s (10^6), as autocannon prints. @param {number | null | undefined} bytesPerSec */
export function megabytesPerSec (bytesPerSec) {
  return bytesPerSec == null || Number.isNaN(bytesPerSec) ? '–' : (bytesPerSec / 1e6).toFixed(2)
}

/** A ratio as "1.75×". @param {number | null | undefined} ratio */
export function times (ratio) {
  return ratio == null ? '–' : `${ratio.toFixed(2)}×`
}

/**
 * Median of one figure across runs, ignoring runs that lack it.
 * @template T
 * @param {T[]} runs
 * @param {(run: T) => number | null | undefined} pick
 */
export function medianOf (runs, pick) {
  return spread(runs.map(pick).filter((v) => v != null).map(Number))?.median ?? null
}

/**
 * "Machine: …. Node …, wattpm …. Commit …. Started …." for a report's intro.
 * Versions are those recorded in the result; `runtime` (when the result has one)
 * wins for Node and Watt: the runtime's own, not the harness's.
 * @param {import('./types.js').Result} result
 * @param {string[]} [packages]  which recorded versions to name, in order
 * @param {Record<string, string | null | undefined>} [extra]  more "name version" pairs
 */
export function machineLine (result, packages = ['wattpm', 'undici', 'fastify', 'autocannon'], extra = {}) {
  const { machine } = result
  const runtime = result.runtime
  /** @type {Record<string, string | null | undefined>} */
  const versions = { ...machine.versions }
  if (runtime?.versions.watt) versions.wattpm = runtime.versions.watt
  const node = runtime?.versions.node ?? machine.node
  const named = [...packages.map((name) => `${name} ${versions[name] ?? 'unknown'}`), ...Object.entries(extra).map(([name, version]) => `${name} ${version ?? 'unknown'}`)]
  const commit = `${machine.git.commit?.slice(0, 10) ?? 'unknown'}${machine.git.dirty ? ' (with local changes)' : ''}`
  return `Machine: ${machine.cpuModel}, ${machine.cores} cores, ${(machine.memoryBytes / 2 ** 30).toFixed(0)} GiB, ${machine.os}. Node ${node}${runtime ? ' (the runtime\'s)' : ''}, ${named.join(', ')}. Commit ${commit}. Started ${result.startedAt}.`
}

/**
 * The warning a report opens with when any run failed.
 * @param {{ failed: boolean }} result
 * @param {string} what  e.g. "transports"
 */
export function failedBanner (result, what) {
  return result.failed ? `**This result contains failed runs; failed ${what} are reported as FAILED, not as numbers.**\n\n` : ''
}

/**
 * @typedef {{ header: string, cell: (run: import('./types.js').Run) => string | number }} Column
 */

/**
 * The "Every run" section every report ends with: the standard columns (round,
 * what was measured, req/s, latency, status counts, verdict) with a suite's own
 * columns inserted after the target.
 * @param {import('./types.js').Run[]} runs
 * @param {{ targetHeader?: string, profile?: boolean, extra?: Column[], text?: string }} [options]
 * @returns {import('./report.js').Section}
 */
export function everyRunSection (runs, { targetHeader = 'target', profile = false, extra = [], text } = {}) {
  /** @type {Column[]} */
  const columns = [
    { header: 'round', cell: (r) => r.round },
    ...(profile ? [{ header: 'profile', cell: (/** @type {import('./types.js').Run} */ r) => r.profile }] : []),
    { header: targetHeader, cell: (r) => r.target },
    ...extra,
    { header: 'req/s', cell: (r) => fmt(r.requestsPerSec) },
    { header: 'p50 ms', cell: (r) => r.latencyMs?.p50 ?? '–' },
    { header: 'p99 ms', cell: (r) => r.latencyMs?.p99 ?? '–' },
    { header: 'max ms', cell: (r) => r.latencyMs?.max ?? '–' },
    { header: '2xx', cell: (r) => r.status?.['2xx'] ?? '–' },
    { header: 'non-2xx', cell: (r) => r.status?.non2xx ?? '–' },
    { header: 'errors', cell: (r) => r.errors ?? '–' },
    { header: 'timeouts', cell: (r) => r.timeouts ?? '–' },
    { header: 'mismatches', cell: (r) => r.mismatches ?? '–' },
    { header: 'status', cell: (r) => (r.ok ? 'ok' : `FAILED: ${r.failures.join('; ')}`) }
  ]
  return {
    title: 'Every run',
    ...(text ? { text } : {}),
    table: { headers: columns.map((c) => c.header), rows: runs.map((run) => columns.map((c) => c.cell(run))) }
  }
}

/**
 * How the runs were ordered, read from the runs themselves: with several
 * profiles, whether each ran all its rounds before the next (the transport
 * bench's phases, lightest first) or they alternated within each round.
 * @param {{ profile: string }[]} runs
 */
export function roundsOrder (runs) {
  const profiles = [...new Set(runs.map((run) => run.profile))]
  if (profiles.length < 2) return 'the targets interleaved in each round'
  const contiguous = profiles.every((p) => {
    const at = runs.flatMap((run, i) => run.profile === p ? [i] : [])
    return at[at.length - 1] - at[0] === at.length - 1
  })
  return contiguous
    ? `the targets interleaved in each round, each profile's rounds before the next (${profiles.map((p) => `\`${p}\``).join(', then ')})`
    : 'the targets and the profiles interleaved in each round'
}

/**
 * "3 s warm-up", and the longer one before a case's first round when there was one
 * (the transport suites' --first-warmup).
 * @param {{ warmup: number, firstWarmup?: number }} config
 */
export function warmupPhrase ({ warmup, firstWarmup }) {
  return `${warmup} s warm-up${warmup > 0 && firstWarmup != null && firstWarmup > warmup ? ` (${firstWarmup} s before a case's first round)` : ''}`
}

/** One line per finished run: req/s and latency, or FAILED and why. @param {import('./types.js').Run} run */
export function describeRun (run) {
  const head = `${run.profile} · ${run.target} · round ${run.round}`
  if (!run.ok) return `✗ ${head}: FAILED (${run.failures.join('; ')})`
  return `✓ ${head}: ${fmt(run.requestsPerSec)} req/s, p50 ${run.latencyMs?.p50} ms, p99 ${run.latencyMs?.p99} ms, load generator ${num(run.loadgen?.cpuPercent, 0)}% CPU`
}

/**
 * The closing console table: req/s per profile and target, × baseline when there is one.
 * @param {Record<string, Record<string, any>>} summary
 * @param {string} [baseline]
 */
export function summaryTable (summary, baseline) {
  const head = ['profile', 'target', 'req/s median', 'min – max', 'p99 ms median', ...(baseline ? [`× ${baseline}`] : [])]
  const table = new Table({ head, style: { head: [], border: [] } })
  for (const [profile, targets] of Object.entries(summary)) {
    for (const [target, entry] of Object.entries(targets)) {
      if (entry.failed) {
        table.push([profile, target, 'FAILED', entry.failures.join('; ').slice(0, 60), '', ...(baseline ? [''] : [])])
        continue
      }
      const r = entry.requestsPerSec
      const ratioEntry = baseline ? entry[`ratioTo_${baseline}`] : null
      table.push([profile, target, fmt(r.median), `${fmt(r.min)} – ${fmt(r.max)}`, String(entry.latencyP99Ms?.median ?? ''),
        ...(baseline ? [ratioEntry ? `${ratioEntry.median.toFixed(2)}×` : '–'] : [])])
    }
  }
  return table.toString()
}
