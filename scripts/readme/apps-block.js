// @ts-check
// The README's apps block, written from an apps result only (npm run
// bench:apps): how it was measured, a row per route with each path's req/s,
// the drop-in against the mesh and against TCP (paired per round), p99 and CPU
// per request; then what a user of each shape gains, and the targets. A route
// that failed is FAILED, never a number. Same input, same bytes. Before any
// result is published, the block says how to make one (placeholder).
import { fixed, fmt, medianOf } from '../../bench/lib/format.js'
import { pairedRatio, targetVerdicts } from '../../bench/apps/targets.js'
import { PATHS } from '../../bench/apps/plan.js'

/** @param {{ median: number } | null} r */
const times = (r) => (r ? `${r.median.toFixed(2)}×` : '–')

/**
 * @param {any} result  an apps result
 */
function view (result) {
  const profiles = /** @type {string[]} */ ([...new Set(result.runs.map((/** @type {any} */ r) => r.profile))])
  const okRuns = (/** @type {string} */ profile, /** @type {string} */ path) => result.runs.filter((/** @type {any} */ r) => r.profile === profile && r.target === path && r.ok)
  const entry = (/** @type {string} */ profile, /** @type {string} */ path) => result.summary[profile]?.[path]
  const ok = (/** @type {string} */ profile, /** @type {string} */ path) => Boolean(entry(profile, path) && !entry(profile, path).failed)
  const rps = (/** @type {string} */ profile, /** @type {string} */ path) => (ok(profile, path) ? entry(profile, path).requestsPerSec.median : null)
  const med = (/** @type {string} */ profile, /** @type {string} */ path, /** @type {(r: any) => number | null | undefined} */ pick) => (ok(profile, path) ? medianOf(okRuns(profile, path), pick) : null)
  const ratio = (/** @type {string} */ profile, /** @type {string} */ a, /** @type {string} */ b) => (ok(profile, a) && ok(profile, b) ? pairedRatio(result, profile, a, b) : null)
  return { profiles, ok, rps, med, ratio }
}

/**
 * @param {any} result
 * @param {ReturnType<typeof view>} v
 */
function table (result, v) {
  const rows = [
    `| route | ipc req/s | mesh-port req/s | × ipc | tcp req/s | mesh-port ÷ tcp | p99 ms ${PATHS.join(' / ')} | CPU µs/req ${PATHS.join(' / ')} |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|'
  ]
  for (const profile of v.profiles) {
    const cell = (/** @type {string} */ path) => (v.ok(profile, path) ? fmt(v.rps(profile, path)) : result.summary[profile]?.[path] ? 'FAILED' : '–')
    const trio = (/** @type {(r: any) => number | null | undefined} */ pick) => PATHS.map((p) => fixed(v.med(profile, p, pick))).join(' / ')
    rows.push(`| \`${profile}\` | ${cell('ipc')} | ${cell('mesh-port')} | ${times(v.ratio(profile, 'mesh-port', 'ipc'))} | ${cell('tcp')} | ${times(v.ratio(profile, 'mesh-port', 'tcp'))} | ${trio((r) => r.latencyMs?.p99)} | ${trio((r) => r.resources?.cpuMicrosPerRequest)} |`)
  }
  return rows.join('\n')
}

/**
 * What a user of each shape gains, one sentence per shape measured, figures from the result.
 * @param {any} result
 * @param {ReturnType<typeof view>} v
 */
function sentences (result, v) {
  const lines = []
  const has = (/** @type {string} */ profile) => v.ok(profile, 'ipc') && v.ok(profile, 'mesh-port')
  const p99 = (/** @type {string} */ profile) => `p99 ${fixed(v.med(profile, 'ipc', (r) => r.latencyMs?.p99))} → ${fixed(v.med(profile, 'mesh-port', (r) => r.latencyMs?.p99))} ms`
  const cpu = (/** @type {string} */ profile) => `${fixed(v.med(profile, 'mesh-port', (r) => r.resources?.cpuMicrosPerRequest))} µs of runtime CPU per request instead of ${fixed(v.med(profile, 'ipc', (r) => r.resources?.cpuMicrosPerRequest))}`
  if (has('catalog/list') || has('catalog/join')) {
    const parts = []
    if (has('catalog/list')) parts.push(`${times(v.ratio('catalog/list', 'mesh-port', 'ipc'))} the mesh's requests on the db's list route through the gateway (${p99('catalog/list')}, ${cpu('catalog/list')})`)
    if (has('catalog/item')) parts.push(`${times(v.ratio('catalog/item', 'mesh-port', 'ipc'))} on one row by id`)
    if (has('catalog/join')) parts.push(`${times(v.ratio('catalog/join', 'mesh-port', 'ipc'))} on a service route that joins two \`fetch\` calls to the db (${p99('catalog/join')})`)
    lines.push(`- **A \`@platformatic/gateway\` in front of \`@platformatic/db\` and a service** (catalog): the drop-in served ${parts.join('; ')}.`)
  }
  if (has('orders/insert') || has('orders/checkout')) {
    const parts = []
    if (has('orders/insert')) parts.push(`${times(v.ratio('orders/insert', 'mesh-port', 'ipc'))} the mesh's POSTs through the gateway into the db`)
    if (has('orders/checkout')) parts.push(`${times(v.ratio('orders/checkout', 'mesh-port', 'ipc'))} on a checkout that a service validates, has quoted by a second service and writes (${p99('orders/checkout')})`)
    const writes = result.runs.filter((/** @type {any} */ r) => r.writes)
    const lost = writes.reduce((/** @type {number} */ s, /** @type {any} */ r) => s + r.writes.lost + r.writes.duplicated, 0)
    const acknowledged = writes.reduce((/** @type {number} */ s, /** @type {any} */ r) => s + r.writes.acknowledged, 0)
    lines.push(`- **Writes** (orders): the drop-in served ${parts.join('; ')}; ${fixed(lost)} of ${fixed(acknowledged)} acknowledged orders were lost or written twice, on all paths together.`)
  }
  if (has('storefront/page')) {
    lines.push(`- **A plain \`node:http\` backend-for-frontend** (storefront, three \`fetch\` calls to the db per page, no gateway): the drop-in served ${times(v.ratio('storefront/page', 'mesh-port', 'ipc'))} the mesh (${p99('storefront/page')}, ${cpu('storefront/page')}).`)
  }
  if (has('nextstore/page') || has('nextstore/handler')) {
    const parts = []
    const tcp = (/** @type {string} */ profile) => { const r = v.ratio(profile, 'mesh-port', 'tcp'); return r ? `, ${times(r)} loopback TCP` : '' }
    if (has('nextstore/page')) parts.push(`${times(v.ratio('nextstore/page', 'mesh-port', 'ipc'))} the mesh's requests on a page it renders from two \`fetch\` calls through the gateway to the db (${p99('nextstore/page')}${tcp('nextstore/page')})`)
    if (has('nextstore/handler')) parts.push(`${times(v.ratio('nextstore/handler', 'mesh-port', 'ipc'))} on an App Router route handler that proxies one (${p99('nextstore/handler')}${tcp('nextstore/handler')})`)
    lines.push(`- **A Next.js storefront in front of the catalog** (nextstore, \`@platformatic/next\`, production build): the drop-in served ${parts.join('; ')}.`)
  }
  for (const { app, reason } of result.config?.skipped ?? []) lines.push(`- **${app}** was left out of this run: ${reason}`)
  const versusTcp = (/** @type {string[]} */ profiles) => profiles.map((p) => v.ratio(p, 'mesh-port', 'tcp')).filter((r) => r != null).map((r) => /** @type {{ median: number }} */ (r).median)
  const range = (/** @type {number[]} */ xs) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}×`
  const [low, busy] = [versusTcp(v.profiles.filter((p) => !p.includes('@'))), versusTcp(v.profiles.filter((p) => p.endsWith('@busy')))]
  if (low.length || busy.length) {
    const loads = [low.length ? `${range(low)} TCP's requests across the routes at ${connectionsOf(result, false)} connections` : '', busy.length ? `${range(busy)} at ${connectionsOf(result, true)}` : ''].filter(Boolean)
    lines.push(`- **Against loopback TCP** through a keep-alive pool (the same apps, each also listening on a port of its own): the drop-in served ${loads.join(', and ')}.`)
  }
  return lines.join('\n')
}

/**
 * "10 connections", or with a second load "10 connections (the routes marked `@busy`: 50)".
 * @param {any} result
 */
function connectionsText (result) {
  const busy = connectionsOf(result, true)
  return `${connectionsOf(result, false) ?? '?'} connections${busy == null ? '' : ` (the routes marked \`@busy\`: ${busy})`}`
}

/**
 * The connections of the result's runs at the usual load, or at the busy one (undefined when none ran).
 * @param {any} result
 * @param {boolean} busy
 */
function connectionsOf (result, busy) {
  return result.runs.find((/** @type {any} */ r) => r.profile.endsWith('@busy') === busy)?.connections
}

/**
 * @param {any} result
 */
function settings (result) {
  const { config, machine } = result
  const commit = `${machine.git?.commit?.slice(0, 10) ?? 'unknown'}${machine.git?.dirty ? ' with local changes' : ''}`
  return `${connectionsText(result)}, pipelining 1; ${config.rounds} interleaved round(s) of ${config.duration} s after ${config.warmup} s warm-up (${config.firstWarmup} s in the first round); ratios paired per round (median). Dataset ${fixed(config.dataset?.categories)} categories and ${fixed(config.dataset?.products)} products in SQLite; every answer checked against the seeded rows, every write against the table afterwards. ${machine.cpuModel}, ${machine.cores} cores; wattpm ${machine.versions?.wattpm ?? 'unknown'}; commit ${commit}; started ${result.startedAt}; \`${result.source}\`.`
}

/**
 * @param {{ apps: any }} results
 */
export function appsBlock ({ apps }) {
  const v = view(apps)
  const verdicts = targetVerdicts(apps).map((t) => `- ${t.label} (target ${t.goal}): ${t.measured}${t.met == null ? '' : t.met ? ': met' : ': missed'}.`)
  return [
    `**Apps shaped like real Watt projects** (\`npm run bench:apps\`): ${settings(apps)}`,
    table(apps, v),
    sentences(apps, v),
    `Targets, from this file:\n\n${verdicts.join('\n')}`
  ].filter(Boolean).join('\n\n') + '\n'
}

/**
 * The README's short form: what a user of each shape gains, and where the tables are.
 * @param {{ apps: any }} results
 */
export function appsSummaryBlock ({ apps }) {
  const failed = apps.runs.filter((/** @type {any} */ r) => !r.ok).length
  return [
    `### Your kind of app (\`npm run bench:apps\`, ${connectionsText(apps)}, started ${apps.startedAt}, \`${apps.source}\`)`,
    ...(failed ? [`**${failed} run(s) of this result FAILED**: their routes show no figure.`] : []),
    sentences(apps, view(apps)),
    'Per route, p99, CPU per request, the targets and what is left open: [docs/suites.md](docs/suites.md#apps-npm-run-benchapps).'
  ].join('\n\n') + '\n'
}

/**
 * What the block says before a result is published.
 * @param {string} path  where the result is expected
 */
export function appsPlaceholder (path) {
  return `No apps figures are published yet: run \`npm run bench:apps -- --out results/apps.json\` on a quiet machine, then \`npm run readme -- --apps results/apps.json\` (it is copied to \`${path}\`).\n`
}
