// @ts-check
// Turns a transports result into report sections: tables, charts, runs.
import { barChart } from '../lib/report.js'
import { spread } from '../lib/stats.js'
import { fmt } from '../lib/suite.js'
import { APPLICATIONS as APPS, BASELINE_TRANSPORT } from '../../lib/topology.js'
import { distanceSection } from './distance.js'

/** @param {any[]} runs @param {(run: any) => number | null | undefined} pick */
function median (runs, pick) {
  return spread(runs.map(pick).filter((v) => v != null).map(Number))?.median ?? null
}

/** @param {number | null} n @param {number} [digits] */
function num (n, digits = 1) {
  return n == null ? '–' : n.toFixed(digits)
}

/** @param {number | null | undefined} bytes */
function mib (bytes) {
  return bytes == null || Number.isNaN(bytes) ? '–' : (bytes / 1048576).toFixed(0)
}

/**
 * @param {any} result
 * @returns {import('../lib/report.js').Report}
 */
export function transportReport (result) {
  const { machine, config, runs, summary } = result
  const profiles = Object.keys(summary)
  const sections = []
  const okRuns = (/** @type {string} */ profile, /** @type {string} */ target) => runs.filter((/** @type {any} */ r) => r.profile === profile && r.target === target && r.ok)

  for (const profile of profiles) {
    const first = runs.find((/** @type {any} */ r) => r.profile === profile)
    const targets = Object.keys(summary[profile])
    const rows = targets.map((target) => {
      const entry = summary[profile][target]
      if (entry.failed) return [target, 'FAILED', entry.failures.join('; '), '', '', '', '', '', '', '', '', '']
      const mine = okRuns(profile, target)
      const r = entry.requestsPerSec
      const ratioToTcp = entry[`ratioTo_${BASELINE_TRANSPORT}`]
      return [
        target,
        fmt(r.median),
        `${fmt(r.min)} – ${fmt(r.max)}`,
        ratioToTcp ? `${ratioToTcp.median.toFixed(2)}× (${ratioToTcp.min.toFixed(2)}–${ratioToTcp.max.toFixed(2)})` : '–',
        num(median(mine, (x) => x.latencyMs.avg), 2),
        num(median(mine, (x) => x.latencyMs.p50), 0),
        num(median(mine, (x) => x.latencyMs.p90), 0),
        num(median(mine, (x) => x.latencyMs.p99), 0),
        num(median(mine, (x) => x.resources?.cpuMicrosPerCall?.total), 0),
        num(median(mine, (x) => x.resources?.cpuMicrosPerCall?.entry), 0),
        num(median(mine, (x) => x.resources?.cpuMicrosPerCall?.services ?? x.resources?.cpuMicrosPerCall?.downstream), 0),
        num(median(mine, (x) => x.loadgen?.cpuPercent), 0)
      ]
    })
    const chartTargets = targets.filter((t) => !summary[profile][t].failed)
    sections.push({
      title: `Profile ${profile}: ${first.connections} connections, pipelining ${first.pipelining}, fan-out ${first.fanout}, ${first.size} B payload`,
      text: `Medians across ${config.rounds} interleaved round(s) of ${config.duration} s (after ${config.warmup} s warm-up). Ratios are taken per round against ${BASELINE_TRANSPORT} measured in the same round. CPU µs per call = runtime CPU (thread_cpu_seconds_total, all five apps) ÷ (2xx responses × fan-out); "entry" is tsfastify's share, "services" the four services' (for tcp-process and tcp-remote their processes' own CPU from /proc, added to the total; a delay relay's is not). Load generator CPU is % of one core.`,
      table: {
        headers: ['transport', 'req/s', 'min – max', `× ${BASELINE_TRANSPORT}`, 'avg ms', 'p50 ms', 'p90 ms', 'p99 ms', 'CPU µs/call', 'entry µs', 'services µs', 'loadgen CPU %'],
        rows
      },
      charts: [
        barChart({ title: `Requests/s (${profile})`, categories: chartTargets, series: [{ name: 'median req/s', values: chartTargets.map((t) => summary[profile][t].requestsPerSec.median) }], unit: 'req/s' }),
        barChart({
          title: `Latency percentiles, ms (${profile})`,
          categories: chartTargets,
          series: ['p50', 'p90', 'p99'].map((p) => ({ name: p, values: chartTargets.map((t) => median(okRuns(profile, t), (x) => x.latencyMs[p])) })),
          unit: 'ms'
        }),
        barChart({
          title: `CPU µs per downstream call (${profile})`,
          categories: chartTargets,
          series: ['entry', 'services'].map((part) => ({ name: part, values: chartTargets.map((t) => median(okRuns(profile, t), (x) => x.resources?.cpuMicrosPerCall?.[part] ?? (part === 'services' ? x.resources?.cpuMicrosPerCall?.downstream : null))) })),
          unit: 'µs'
        })
      ]
    })

    sections.push({
      title: `Where the CPU goes per application (${profile})`,
      text: 'Median CPU seconds spent by each Watt application during one measured run, its event-loop utilisation at the end of the run, and the runtime RSS before and after (MiB).',
      table: {
        headers: ['transport', ...APPS.map((a) => `${a} CPU s`), ...APPS.map((a) => `${a} ELU`), 'RSS before', 'RSS after'],
        rows: chartTargets.map((t) => {
          const mine = okRuns(profile, t)
          return [
            t,
            ...APPS.map((a) => num(median(mine, (x) => x.resources?.apps?.[a]?.cpuSeconds), 2)),
            ...APPS.map((a) => num(median(mine, (x) => x.resources?.apps?.[a]?.elu), 2)),
            mib(median(mine, (x) => x.resources?.rssBeforeBytes)),
            mib(median(mine, (x) => x.resources?.rssAfterBytes))
          ]
        })
      }
    })
  }

  const distance = distanceSection(result)
  if (distance) sections.unshift(distance)

  const wrk = result.crossCheck
  if (wrk) {
    sections.push({
      title: 'Cross-check with wrk',
      text: wrk.skipped ?? `${wrk.note}. One ${config.duration} s run per transport and profile after the autocannon rounds; autocannon's median shown beside it.`,
      table: wrk.skipped
        ? undefined
        : {
            headers: ['profile', 'transport', 'wrk req/s', 'autocannon req/s (median)', 'wrk p50 ms', 'wrk p99 ms', 'status'],
            rows: wrk.runs.map((/** @type {any} */ w) => [w.profile, w.target, fmt(w.requestsPerSec),
              summary[w.profile]?.[w.target]?.requestsPerSec ? fmt(summary[w.profile][w.target].requestsPerSec.median) : '–',
              num(w.latencyMs.p50, 2), num(w.latencyMs.p99, 2), w.ok ? 'ok' : `FAILED: ${w.failures.join('; ')}`])
          }
    })
  }

  sections.push({
    title: 'Every run',
    table: {
      headers: ['round', 'profile', 'transport', 'req/s', 'p50 ms', 'p99 ms', 'max ms', '2xx', 'non-2xx', 'errors', 'timeouts', 'mismatches', 'status'],
      rows: runs.map((/** @type {any} */ r) => [r.round, r.profile, r.target, fmt(r.requestsPerSec), r.latencyMs?.p50 ?? '–', r.latencyMs?.p99 ?? '–', r.latencyMs?.max ?? '–',
        r.status?.['2xx'] ?? '–', r.status?.non2xx ?? '–', r.errors ?? '–', r.timeouts ?? '–', r.mismatches ?? '–', r.ok ? 'ok' : `FAILED: ${r.failures.join('; ')}`])
    }
  })

  return {
    title: `Watt transports: ${[...new Set(runs.map((/** @type {any} */ r) => r.target))].join(' vs ')}`,
    intro: `${result.failed ? '**This result contains failed runs; failed transports are reported as FAILED, not as numbers.**\n\n' : ''}${(config.outside?.skipped ?? []).map((/** @type {any} */ s) => `**Not run: ${s.reason}.**\n\n`).join('')}Machine: ${machine.cpuModel}, ${machine.cores} cores, ${(machine.memoryBytes / 2 ** 30).toFixed(0)} GiB, ${machine.os}. Node ${machine.node}, wattpm ${machine.versions.wattpm}, undici ${machine.versions.undici}, fastify ${machine.versions.fastify}, autocannon ${machine.versions.autocannon}. Commit ${machine.git.commit?.slice(0, 10) ?? 'unknown'}${machine.git.dirty ? ' (with local changes)' : ''}. Started ${result.startedAt}. The load generator runs on the same machine and shares its cores with the runtime.`,
    sections
  }
}
