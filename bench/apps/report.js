// @ts-check
// Turns an apps result into report sections: per app a table of its routes on
// each path and a chart (appSections, also in the main report), the write
// checks, the targets, and every run.
import { everyRunSection, failedBanner, fmt, machineLine, medianOf as median, mib, num, warmupPhrase } from '../lib/format.js'
import { barChart } from '../lib/report.js'
import { BASELINE_PATH } from './plan.js'
import { targetVerdicts } from './targets.js'

const PATH_LABEL = { ipc: 'ipc (Watt\'s mesh)', 'mesh-port': 'mesh-port (the drop-in)', tcp: 'tcp (loopback ports)' }

/**
 * Per app, a section with its table of routes on each path and its chart; a
 * route whose runs failed shows as FAILED (from the summary), never a number.
 * The apps report opens with these; the main report (npm run bench) carries
 * them too, from the published apps result.
 * @param {any} result  an apps result
 * @returns {import('../lib/report.js').Section[]}
 */
export function appSections (result) {
  const { config, runs, summary } = result
  const sections = []
  const apps = /** @type {string[]} */ ([...new Set(runs.map((/** @type {any} */ r) => r.app))])
  const okRuns = (/** @type {string} */ profile, /** @type {string} */ target) => runs.filter((/** @type {any} */ r) => r.profile === profile && r.target === target && r.ok)
  for (const app of apps) {
    const profiles = /** @type {string[]} */ ([...new Set(runs.filter((/** @type {any} */ r) => r.app === app).map((/** @type {any} */ r) => r.profile))])
    const paths = /** @type {string[]} */ ([...new Set(runs.filter((/** @type {any} */ r) => r.app === app).map((/** @type {any} */ r) => r.target))])
    const rows = []
    for (const profile of profiles) {
      for (const path of paths) {
        const entry = summary[profile]?.[path]
        if (!entry) continue
        if (entry.failed) {
          rows.push([profile, path, 'FAILED', entry.failures.join('; '), '', '', '', '', '', ''])
          continue
        }
        const mine = okRuns(profile, path)
        const ratio = entry[`ratioTo_${BASELINE_PATH}`]
        rows.push([
          profile,
          path,
          fmt(entry.requestsPerSec.median),
          `${fmt(entry.requestsPerSec.min)} – ${fmt(entry.requestsPerSec.max)}`,
          ratio ? `${ratio.median.toFixed(2)}× (${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)})` : '–',
          num(median(mine, (r) => r.latencyMs?.p50), 0),
          num(median(mine, (r) => r.latencyMs?.p99), 0),
          num(median(mine, (r) => r.resources?.cpuMicrosPerRequest), 0),
          mib(median(mine, (r) => r.resources?.rssAfterBytes)),
          num(median(mine, (r) => r.loadgen?.cpuPercent), 0)
        ])
      }
    }
    const first = runs.find((/** @type {any} */ r) => r.app === app)
    sections.push({
      title: `${app}: ${config.apps?.[app] ?? ''}`,
      text: `${first?.connections ?? '?'} connections, pipelining 1; medians across ${config.rounds} round(s) of ${config.duration} s, each after a ${warmupPhrase(config)}; the paths interleaved in each round, ratios to ${BASELINE_PATH} taken per round. Every answer is checked against the seeded rows (ids, counts, sums). CPU µs per request is the whole runtime process (/proc) ÷ 2xx answers; RSS is the runtime's after the run. Load generator CPU is % of one core, on the same two cores.`,
      table: { headers: ['route', 'path', 'req/s', 'min – max', `× ${BASELINE_PATH}`, 'p50 ms', 'p99 ms', 'CPU µs/req', 'RSS MiB', 'loadgen CPU %'], rows },
      charts: [barChart({
        title: `${app}: requests/s per route and path (median)`,
        categories: profiles,
        series: paths.map((path) => ({ name: PATH_LABEL[/** @type {keyof typeof PATH_LABEL} */ (path)] ?? path, values: profiles.map((p) => (summary[p]?.[path] && !summary[p][path].failed ? summary[p][path].requestsPerSec.median : null)) })),
        unit: 'req/s'
      })]
    })
  }
  return sections
}

/**
 * @param {any} result
 * @returns {import('../lib/report.js').Report}
 */
export function appsReport (result) {
  const { config, runs } = result
  const sections = appSections(result)

  const writeRuns = runs.filter((/** @type {any} */ r) => r.writes)
  if (writeRuns.length) {
    sections.push({
      title: 'Writes: the orders table after each run',
      text: 'Each write run starts from the seeded table (no orders), sends orders with references of its own, and reads the table afterwards: every acknowledged order once with its total, none twice, none unknown. Orders in flight when the load stopped may be written or not; they are counted apart. The table is then put back as seeded.',
      table: {
        headers: ['route', 'path', 'round', 'sent', 'acknowledged', 'written while in flight', 'lost', 'duplicated', 'unknown', 'wrong total'],
        rows: writeRuns.map((/** @type {any} */ r) => [r.profile, r.target, r.round, fmt(r.writes.sent), fmt(r.writes.acknowledged), r.writes.inFlightWritten, r.writes.lost, r.writes.duplicated, r.writes.unknown, r.writes.wrongTotal])
      }
    })
  }

  sections.push({
    title: 'Targets',
    text: 'The issue\'s targets, from this result (paired per round, median and the rounds\' range).',
    table: { headers: ['target', 'goal', 'measured', 'verdict'], rows: targetVerdicts(result).map((v) => [v.label, v.goal, v.measured, v.met == null ? '–' : v.met ? 'met' : 'missed']) }
  })

  sections.push(everyRunSection(runs, {
    targetHeader: 'path',
    profile: true,
    extra: [
      { header: 'CPU µs/req', cell: (r) => num(r.resources?.cpuMicrosPerRequest, 0) },
      { header: 'drop-in calls (http-port / mesh)', cell: (r) => meshPortCell(r.meshPort) }
    ]
  }))

  return {
    title: 'Watt apps: a gateway with a db and services, writes, and a BFF, over the mesh, the drop-in and TCP',
    intro: `${failedBanner(result, 'routes')}${machineLine(result)} Dataset: ${config.dataset?.categories} categories and ${fmt(config.dataset?.products)} products (seed ${config.dataset?.seed}), SQLite in a temp dir. The load generator runs on the same machine and shares its cores with the runtime.${(config.skipped ?? []).map((/** @type {{ app: string, reason: string }} */ s) => ` Left out: ${s.app}, ${s.reason}`).join('')}`,
    sections
  }
}

/** @param {Record<string, { mesh: number, httpPort: Record<string, number> }> | undefined} meshPort */
function meshPortCell (meshPort) {
  const targets = Object.values(meshPort ?? {})
  if (!targets.length) return '–'
  const httpPort = targets.reduce((sum, t) => sum + Object.values(t.httpPort).reduce((a, b) => a + b, 0), 0)
  const mesh = targets.reduce((sum, t) => sum + t.mesh, 0)
  return `${fmt(httpPort)} / ${fmt(mesh)}`
}
