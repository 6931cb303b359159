// @ts-check
// Turns a transports result into report sections: tables, charts, runs.
import { everyRunSection, failedBanner, fmt, machineLine, medianOf as median, mib, num, roundsOrder, warmupPhrase } from '../lib/format.js'
import { barChart } from '../lib/report.js'

import { APPLICATIONS as APPS, BASELINE_TRANSPORT } from '../../lib/topology.js'
import { distanceSection } from './distance.js'
import { describeShares, totalWorkerCalls } from './worker-shares.js'

/**
 * @param {any} result
 * @returns {import('../lib/report.js').Report}
 */
export function transportReport (result) {
  const { config, runs, summary } = result
  const profiles = Object.keys(summary)
  // "× tcp" only where the baseline was measured beside the others (the summary then has the ratios)
  const withTcp = Object.values(summary).some((targets) => Object.values(targets).some((entry) => entry[`ratioTo_${BASELINE_TRANSPORT}`]))
  const sections = []
  const okRuns = (/** @type {string} */ profile, /** @type {string} */ target) => runs.filter((/** @type {any} */ r) => r.profile === profile && r.target === target && r.ok)
  const manyWorkers = (config.workers ?? 1) > 1

  for (const profile of profiles) {
    const first = runs.find((/** @type {any} */ r) => r.profile === profile)
    const targets = Object.keys(summary[profile])
    const rows = targets.map((target) => {
      const entry = summary[profile][target]
      if (entry.failed) return [target, 'FAILED', entry.failures.join('; '), ...Array((withTcp ? 10 : 9) + (manyWorkers ? 1 : 0)).fill('')]
      const mine = okRuns(profile, target)
      const r = entry.requestsPerSec
      const ratioToTcp = entry[`ratioTo_${BASELINE_TRANSPORT}`]
      // a failed metrics scrape leaves a run without resource figures: say so, do not show a median of the rest as if complete
      const missing = mine.filter((/** @type {any} */ x) => !x.resources).length
      // older results name the services' share 'downstream'
      const cpu = (/** @type {'total' | 'entry' | 'services'} */ part) => missing ? `missing (${missing} of ${mine.length} runs)` : num(median(mine, (x) => x.resources?.cpuMicrosPerCall?.[part] ?? (part === 'services' ? x.resources?.cpuMicrosPerCall?.downstream : undefined)), 0)
      return [
        target,
        fmt(r.median),
        `${fmt(r.min)} – ${fmt(r.max)}`,
        ...(withTcp ? [ratioToTcp ? `${ratioToTcp.median.toFixed(2)}× (${ratioToTcp.min.toFixed(2)}–${ratioToTcp.max.toFixed(2)})` : '–'] : []),
        num(median(mine, (x) => x.latencyMs?.avg), 2),
        num(median(mine, (x) => x.latencyMs?.p50), 0),
        num(median(mine, (x) => x.latencyMs?.p90), 0),
        num(median(mine, (x) => x.latencyMs?.p99), 0),
        cpu('total'),
        cpu('entry'),
        cpu('services'),
        num(median(mine, (x) => x.loadgen?.cpuPercent), 0),
        num(median(mine, (x) => x.resources?.coreWait?.entryPercent), 0),
        ...(manyWorkers ? [describeShares(totalWorkerCalls(mine)) || '–'] : [])
      ]
    })
    const chartTargets = targets.filter((t) => !summary[profile][t].failed)
    sections.push({
      title: `Profile ${profile}: ${first.connections} connections, pipelining ${first.pipelining}, fan-out ${first.fanout}, ${first.size} B payload`,
      text: `Medians across ${config.rounds} round(s) of ${config.duration} s, each after a ${warmupPhrase(config)}; ${roundsOrder(result.runs)}.${result.runtime?.nodeFlags?.length ? ` Every process the bench started ran with ${result.runtime.nodeFlags.join(' ')}.` : ''}${withTcp ? ` Ratios are taken per round against ${BASELINE_TRANSPORT} measured in the same round.` : ''} CPU µs per call = runtime CPU (thread_cpu_seconds_total, all five apps) ÷ (2xx responses × fan-out); "entry" is tsfastify's share, "services" the four services' (for tcp-process and tcp-remote their processes' own CPU from /proc, added to the total; a delay relay's is not). Load generator CPU is % of one core. "Entry waited for a core" is the share of the measured time the entry's thread was ready to run but not running (the kernel's run-queue delay, /proc schedstat): with more busy threads than cores, the entry, through which every request passes, stands in line.`,
      table: {
        headers: ['transport', 'req/s', 'min – max', ...(withTcp ? [`× ${BASELINE_TRANSPORT}`] : []), 'avg ms', 'p50 ms', 'p90 ms', 'p99 ms', 'CPU µs/call', 'entry µs', 'services µs', 'loadgen CPU %', 'entry waited for a core %', ...(manyWorkers ? ['calls per worker (rounds summed)'] : [])],
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

  sections.push(everyRunSection(runs, {
    targetHeader: 'transport',
    profile: true,
    extra: [
      { header: 'resources', cell: (r) => (r.resources ? 'measured' : r.ok ? `MISSING: ${r.resourcesMissing ?? 'not measured'}` : '–') },
      // with --workers N: each downstream worker's share of the calls (workerCalls in the result)
      ...((config.workers ?? 1) > 1 ? [{ header: 'calls per worker', cell: (/** @type {any} */ r) => describeShares(r.workerCalls) || '–' }] : [])
    ]
  }))

  return {
    // the title names the question; the transports, a dozen of them, are listed in the intro
    title: 'How should services in one Watt runtime call each other? Transports measured side by side',
    intro: `${failedBanner(result, 'transports')}${(config.outside?.skipped ?? []).map((/** @type {any} */ s) => `**Not run: ${s.reason}.**\n\n`).join('')}Transports: ${[...new Set(runs.map((/** @type {any} */ r) => r.target))].join(', ')}. ${machineLine(result)} The load generator runs on the same machine and shares its cores with the runtime.${runtimesLine(config)}`,
    sections
  }
}

/**
 * Which runtime each transport ran in (mesh-port: one of its own), and the workers.
 * @param {any} config
 */
function runtimesLine (config) {
  const own = Object.entries(config.outside?.about ?? {}).filter(([transport, about]) => about.config && config.transports?.includes(transport))
  const runtimes = own.map(([transport, about]) => ` ${transport} was measured in ${about.placement}, the others in the plain runtime (from watt.json): its CPU and resources are that runtime's.`).join('')
  const workers = (config.workers ?? 1) > 1 ? ` Every downstream service ran ${config.workers} workers (the entry one); "calls per worker" (per profile, rounds summed, and per run) says how each service's calls spread over them.` : ''
  return runtimes + workers
}
