// @ts-check
// The scale suite's tables (the originals' columns: latency percentiles, req/s
// avg/stdev/min, bytes/s, total requests, plus the load generator's CPU) and
// the report sections with charts.
import { everyRunSection, failedBanner, fmt, machineLine, medianOf as median, megabytesPerSec as mbPerSec, num } from '../lib/format.js'
import { barChart } from '../lib/report.js'
import { ratio, spread } from '../lib/stats.js'
import { TARGETS } from './plan.js'

/**
 * Strategy × scale groups in run order: [{ target, scale, profile, runs }].
 * @param {any[]} runs
 */
export function groups (runs) {
  /** @type {Map<string, { target: string, scale: number, profile: string, runs: any[] }>} */
  const byKey = new Map()
  for (const run of runs) {
    const key = `${run.target}@${run.scale}`
    if (!byKey.has(key)) byKey.set(key, { target: run.target, scale: run.scale, profile: run.profile, runs: [] })
    byKey.get(key)?.runs.push(run)
  }
  return [...byKey.values()].sort((a, b) => a.scale - b.scale || TARGETS.indexOf(/** @type {any} */ (a.target)) - TARGETS.indexOf(/** @type {any} */ (b.target)))
}

/**
 * Each run's req/s over the single process's in the same round (side by side,
 * so the machine's mood that round cancels out), per strategy@scale.
 * @param {any[]} runs
 * @returns {Record<string, ReturnType<typeof spread>>}
 */
export function ratiosToNode (runs) {
  /** @type {Record<string, ReturnType<typeof spread>>} */
  const out = {}
  for (const group of groups(runs)) {
    if (group.runs.some((run) => !run.ok)) continue
    const pairs = group.runs.map((run) => {
      const node = runs.find((other) => other.target === 'node' && other.round === run.round)
      return node?.ok ? ratio(run.requestsPerSec, node.requestsPerSec) : null
    }).filter((value) => value !== null)
    out[`${group.target}@${group.scale}`] = spread(/** @type {number[]} */ (pairs))
  }
  return out
}

export const TABLE_HEADERS = ['strategy', 'scale', 'workers', 'req/s avg', 'req/s stdev', 'req/s min', '× node@1',
  'latency avg ms', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'MB/s', 'total requests', 'loadgen CPU %']

/**
 * The originals' table, one row per strategy and scale (medians across rounds).
 * A strategy with any failed run shows FAILED and why, never a number.
 * @param {any} result
 * @returns {import('../lib/report.js').TableData}
 */
export function scaleTable (result) {
  const ratios = ratiosToNode(result.runs)
  const rows = groups(result.runs).map(({ target, scale, runs }) => {
    const failed = runs.filter((run) => !run.ok)
    if (failed.length) {
      const reasons = [...new Set(failed.flatMap((run) => run.failures))].join('; ')
      return [target, scale, '–', 'FAILED', reasons, ...Array(TABLE_HEADERS.length - 5).fill('')]
    }
    const r = ratios[`${target}@${scale}`]
    return [
      target,
      scale,
      median(runs, (x) => x.workersSeen) ?? '–',
      fmt(median(runs, (x) => x.requestsPerSecStats?.avg)),
      fmt(median(runs, (x) => x.requestsPerSecStats?.stdev)),
      fmt(median(runs, (x) => x.requestsPerSecStats?.min)),
      r ? `${r.median.toFixed(2)}×` : '–',
      num(median(runs, (x) => x.latencyMs?.avg), 2),
      num(median(runs, (x) => x.latencyMs?.p50), 0),
      num(median(runs, (x) => x.latencyMs?.p90), 0),
      num(median(runs, (x) => x.latencyMs?.p99), 0),
      num(median(runs, (x) => x.latencyMs?.max), 0),
      mbPerSec(median(runs, (x) => x.throughputBytesPerSec)),
      fmt(median(runs, (x) => x.totalRequests)),
      num(median(runs, (x) => x.loadgen?.cpuPercent), 0)
    ]
  })
  return { headers: TABLE_HEADERS, rows }
}

/**
 * wrk beside autocannon, one row per run that has a wrk measurement.
 * @param {any} result
 * @returns {import('../lib/report.js').TableData}
 */
export function wrkTable (result) {
  const ms = (/** @type {number} */ n) => num(n, n >= 100 ? 0 : 2)
  const rows = result.runs.filter((/** @type {any} */ run) => run.wrk).map((/** @type {any} */ run) => {
    const { wrk } = run
    if (!wrk.ok) return [run.target, run.scale, run.round, 'FAILED', fmt(run.requestsPerSec), '', '', '', '', '', '', '', `FAILED: ${wrk.failures.join('; ')}`]
    return [run.target, run.scale, run.round, fmt(wrk.requestsPerSec), fmt(run.requestsPerSec),
      ms(wrk.latencyMs.avg), ms(wrk.latencyMs.p50), ms(wrk.latencyMs.p90), ms(wrk.latencyMs.p99), ms(wrk.latencyMs.max),
      wrk.transferPerSec ?? '–', fmt(wrk.totalRequests), 'ok']
  })
  return {
    headers: ['strategy', 'scale', 'round', 'wrk req/s', 'autocannon req/s', 'wrk avg ms', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'transfer/s', 'total requests', 'wrk status'],
    rows
  }
}

/**
 * @param {any} result
 * @returns {import('../lib/report.js').Report}
 */
export function scaleReport (result) {
  const { machine, config, runs } = result
  const okGroups = groups(runs).filter((group) => group.runs.every((run) => run.ok))
  const targets = TARGETS.filter((target) => okGroups.some((group) => group.target === target))
  const scales = [...new Set(okGroups.map((group) => group.scale))]
  const byScale = (/** @type {(runs: any[]) => number | null} */ pick) => scales.map((scale) => ({
    name: `scale ${scale}`,
    values: targets.map((target) => {
      const group = okGroups.find((g) => g.target === target && g.scale === scale)
      return group ? pick(group.runs) : null
    })
  }))
  const cores = machine.cores
  const crossCheck = result.crossCheck

  /** @type {import('../lib/report.js').Section[]} */
  const sections = [{
    title: `Strategies side by side: autocannon -c ${config.connections} -d ${config.duration}`,
    text: `Each strategy serves the same handler (same bytes, same headers), started fresh for each run, waited for until all its workers answered, and verified before the load. ${config.warmup} s of warm-up, then ${config.duration} s measured, ${config.rounds} interleaved round(s); medians across rounds. autocannon uses one worker thread per server worker above scale 1 (connections split across them), none at scale 1. "× node@1" is req/s over the single process measured in the same round. Load generator CPU is % of one core.\n\nThis machine has ${cores} core(s) and the load generator runs on it too: it shares those cores with the servers, so at a scale near the core count the servers and autocannon compete for CPU, and the figures measure that contention as much as the strategy.`,
    table: scaleTable(result),
    charts: [
      barChart({ title: 'Requests/s by strategy and scale (median)', categories: targets, series: byScale((r) => median(r, (x) => x.requestsPerSec)), unit: 'req/s' }),
      barChart({ title: 'p99 latency by strategy and scale, ms (median)', categories: targets, series: byScale((r) => median(r, (x) => x.latencyMs?.p99)), unit: 'ms' })
    ]
  }]

  sections.push({
    title: `Cross-check with wrk -t${config.wrkThreads} -c${config.wrkConnections} -d${config.wrkDuration}s --latency`,
    text: crossCheck?.skipped ?? `${crossCheck?.note ?? ''} Run right after autocannon on the same started target; a wrk run with any socket error, timeout or non-2xx is FAILED here and shows no number (the autocannon run beside it stands on its own). ${config.wrkConnections} connections opened at once can exceed the server's listen backlog (Node's default is 511): if wrk shows timeouts or a multi-second tail, look at the kernel's ListenOverflows counter (nstat) before blaming the strategy.`,
    table: crossCheck?.skipped ? undefined : wrkTable(result),
    charts: []
  })

  sections.push(everyRunSection(runs, {
    targetHeader: 'strategy',
    text: 'Start time is from launch until all workers answered and the response was verified.',
    extra: [
      { header: 'scale', cell: (r) => r.scale },
      { header: 'workers seen', cell: (r) => r.workersSeen ?? '–' },
      { header: 'start ms', cell: (r) => r.startMs ?? '–' },
      { header: 'stopped clean', cell: (r) => (r.stop ? (r.stop.clean ? 'yes' : 'NO') : '–') }
    ]
  }))

  return {
    title: 'How should one HTTP server use more than one core? Five strategies measured side by side',
    intro: `${failedBanner(result, 'strategies')}Strategies: a single process, node:cluster, reusePort, PM2 and Watt workers. ${machineLine(result, ['wattpm', 'autocannon'], { PM2: config.pm2Version ?? 'not installed' })} Logs and metrics are off in every strategy (Watt: metrics and health checks off, logger warn; PM2: no pmx, no host metrics, no version check). The load generator shares the machine's ${cores} cores with the servers.`,
    sections
  }
}
