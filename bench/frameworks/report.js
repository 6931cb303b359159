// @ts-check
// Turns a frameworks result into the report: the original write-up's table
// (avg latency, avg req/s, avg bytes/s) fastest first, with spread across
// rounds, versions, charts, the headers each framework sent, and every run.
import { everyRunSection, failedBanner, fmt, machineLine, medianOf as median, megabytesPerSec as megabytes, num } from '../lib/format.js'
import { barChart, lineChart } from '../lib/report.js'
import { rankingLine, rankTargets } from './ranking.js'

const BASELINE = 'node-http'

/**
 * @param {any} result
 * @returns {import('../lib/report.js').Report}
 */
export function frameworkReport (result) {
  const { machine, config, runs, summary } = result
  /** @type {import('../lib/report.js').Section[]} */
  const sections = []
  for (const [profile, targets] of Object.entries(summary)) {
    const mine = (/** @type {string} */ target) => runs.filter((/** @type {any} */ r) => r.profile === profile && r.target === target && r.ok)
    const versionOf = (/** @type {string} */ target) => runs.find((/** @type {any} */ r) => r.target === target)?.version ?? '–'
    const ranking = rankTargets(/** @type {Record<string, any>} */ (targets))
    const withBaseline = Boolean(targets[BASELINE] && !targets[BASELINE].failed && ranking.ranked.length > 1)
    const rows = ranking.ranked.map((entry, i) => {
      const ok = mine(entry.target)
      const ratio = targets[entry.target][`ratioTo_${BASELINE}`]
      return [
        i + 1,
        entry.target,
        versionOf(entry.target),
        num(median(ok, (r) => r.latencyMs?.avg), 2),
        fmt(entry.median),
        `${fmt(entry.min)} – ${fmt(entry.max)}`,
        megabytes(median(ok, (r) => r.throughputBytesPerSec)),
        num(median(ok, (r) => r.latencyMs?.p99), 0),
        ...(withBaseline ? [ratio ? `${ratio.median.toFixed(2)}×` : '–'] : []),
        entry.rounds
      ]
    })
    for (const entry of ranking.failed) {
      rows.push(['–', entry.target, versionOf(entry.target), 'FAILED', entry.failures.join('; '), '', '', '', ...(withBaseline ? [''] : []), targets[entry.target].rounds])
    }
    const order = ranking.ranked.map((entry) => entry.target)
    const first = runs.find((/** @type {any} */ r) => r.profile === profile)
    /** @type {object[]} */
    const charts = [
      barChart({ title: `Requests/s, median of ${config.rounds} round(s) (${profile})`, categories: order, series: [{ name: 'median req/s', values: ranking.ranked.map((entry) => entry.median) }], unit: 'req/s' }),
      barChart({ title: `Average latency, ms (${profile})`, categories: order, series: [{ name: 'avg latency', values: order.map((t) => median(mine(t), (r) => r.latencyMs?.avg)) }], unit: 'ms' })
    ]
    if (config.rounds > 1) {
      const rounds = [...new Set(runs.map((/** @type {any} */ r) => r.round))].sort((a, b) => a - b)
      charts.push(lineChart({
        title: `Requests/s in each interleaved round (${profile})`,
        xName: 'round',
        categories: rounds.map(String),
        series: order.map((target) => ({ name: target, values: rounds.map((round) => mine(target).find((/** @type {any} */ r) => r.round === round)?.requestsPerSec ?? null) })),
        unit: 'req/s'
      }))
    }
    sections.push({
      title: `Ranking: ${first.connections} connections, pipelining ${first.pipelining}`,
      text: `**${rankingLine(ranking) || 'nothing ranked'}**\n\nFastest first by median req/s across ${config.rounds} interleaved round(s) of ${config.duration} s, each on a fresh process after ${config.warmup} s of warm-up, every response's body checked. ≈ joins neighbours whose min–max ranges overlap. Avg latency, avg req/s and avg bytes/s are autocannon's per-run averages (the original's columns), medians across rounds; bytes/s in MB/s (10^6).${withBaseline ? ' × node-http is paired per round.' : ''}`,
      table: {
        headers: ['#', 'framework', 'version', 'avg latency ms', 'avg req/s', 'req/s min – max', 'avg MB/s', 'p99 ms', ...(withBaseline ? ['× node-http'] : []), 'rounds'],
        rows
      },
      charts
    })
  }

  sections.push(headersSection(runs))
  sections.push(everyRunSection(runs, {
    targetHeader: 'framework',
    extra: [{ header: 'avg ms', cell: (r) => num(r.latencyMs?.avg, 2) }, { header: 'loadgen CPU %', cell: (r) => num(r.loadgen?.cpuPercent, 0) }]
  }))

  return {
    title: 'HTTP frameworks: "Hello world" on GET /',
    intro: `${failedBanner(result, 'frameworks')}${machineLine(result, Object.keys(machine.versions).filter((name) => name !== 'node'))} The load generator (autocannon, one thread) runs on the same machine and shares its cores with the server: compare frameworks within this run, not with numbers from another machine.`,
    sections
  }
}

/**
 * What each framework sent besides the body, compared with node:http's own.
 * @param {any[]} runs
 * @returns {import('../lib/report.js').Section}
 */
function headersSection (runs) {
  /** @type {Map<string, any>} */
  const firstAnswer = new Map()
  for (const run of runs) if (run.headerDifferences && !firstAnswer.has(run.target)) firstAnswer.set(run.target, run)
  return {
    title: 'Response headers',
    text: 'Every server sets content-type: text/plain; charset=utf-8 and content-length: 11; node:http adds date, connection: keep-alive and keep-alive: timeout=5. Framework defaults that add other headers were turned off where the framework allows it (see each file in bench/frameworks/servers/). Differences found in the first answer of each framework:',
    table: {
      headers: ['framework', 'headers (besides date)', 'differences from node:http'],
      rows: [...firstAnswer.values()].map((run) => [run.target, Object.entries(run.headers).map(([k, v]) => `${k}: ${v}`).join('; '), run.headerDifferences.length ? run.headerDifferences.join('; ') : 'none'])
    }
  }
}
