// @ts-check
// The data suite's block in bench/data/README.md, written from result files
// only: the parsers' MB/s on one core (parser-speed), the variants at the
// default size and, when given, at a large size (npm run bench:data), each row
// naming its parser, and the issue's targets checked against those figures.
// A variant that failed is FAILED (a buffered one refused by design, REFUSED),
// never a number. Same input, same bytes.
import { fixed, medianOf, times as x } from '../../bench/lib/format.js'
import { recordedParser } from '../../bench/data/parsers.js'
import { rps } from '../../bench/data/report.js'
import { isRefused } from '../../bench/data/report-chart.js'
import { meshPortTargetLine, meshPortVerdicts } from '../../bench/data/mesh-port-target.js'

const MIB = 1048576
/** A dataset's size, rounded for prose (dataset/size.js's formatSize keeps the decimals an exact --size needs: "100.0 MB"). @param {number} bytes */
const size = (bytes) => bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`
/** The memory target for streaming on the large dataset: peak RSS within this of the runtime's idle RSS. */
export const FLAT_MEMORY_MIB = 64

/**
 * One data result, seen by target.
 * @param {any} result
 */
function view (result) {
  const profile = Object.keys(result.summary)[0]
  const targets = /** @type {string[]} */ ([...new Set(result.runs.map((/** @type {any} */ r) => r.target))])
  const entry = (/** @type {string} */ target) => result.summary[profile]?.[target]
  const okRuns = (/** @type {string} */ target) => result.runs.filter((/** @type {any} */ r) => r.target === target && r.ok)
  const ok = (/** @type {string} */ target) => Boolean(entry(target) && !entry(target).failed)
  const med = (/** @type {string} */ target, /** @type {(r: any) => number | null | undefined} */ pick) => medianOf(okRuns(target), pick)
  /**
   * a/b paired per round (same round, same conditions), median with min and max
   * @param {string} a @param {string} b
   */
  const paired = (a, b) => {
    if (!ok(a) || !ok(b)) return null
    const ratios = okRuns(a).map((/** @type {any} */ run) => {
      const other = okRuns(b).find((/** @type {any} */ r) => r.round === run.round)
      return other?.requestsPerSec ? run.requestsPerSec / other.requestsPerSec : null
    }).filter((/** @type {number | null} */ v) => v != null)
    if (!ratios.length) return null
    return { median: /** @type {number} */ (medianOf(ratios, (v) => v)), min: Math.min(...ratios), max: Math.max(...ratios) }
  }
  return { targets, entry, okRuns, ok, med, paired, profile }
}

/**
 * How fast a run got through its dataset, in MB/s: connections × dataset size ÷
 * mean answer time (Little's law for a closed loop; autocannon's req/s has two
 * decimals, too coarse when a 2 GB answer takes minutes).
 * @param {any} run
 */
export function datasetMegabytesPerSec (run) {
  if (!run.latencyMs?.avg || !run.datasetBytes) return null
  return (run.connections * run.datasetBytes) / (run.latencyMs.avg / 1000) / 1e6
}

/**
 * The variants' table for one dataset of one result.
 * @param {any} result
 * @param {'small' | 'large'} dataset
 */
function variantsTable (result, dataset) {
  const v = view(result)
  const rows = ['| variant | parser | req/s (min–max) | verified answers | dataset MB/s | p50 ms | p99 ms | peak RSS MiB | over idle MiB |', '|---|---|---:|---:|---:|---:|---:|---:|---:|']
  for (const target of v.targets.filter((t) => t.startsWith(`${dataset}/`))) {
    const parser = recordedParser(target.split('/')[2], result.config)
    const entry = v.entry(target)
    if (!v.ok(target)) {
      const label = entry && isRefused(entry) ? 'REFUSED (507)' : 'FAILED'
      rows.push(`| ${target} | ${parser} | ${label} | ${(entry?.failures ?? []).join('; ').replace(/\|/g, '/').slice(0, 160)} | | | | | |`)
      continue
    }
    const runs = v.okRuns(target)
    const answers = runs.reduce((/** @type {number} */ sum, /** @type {any} */ r) => sum + (r.status?.['2xx'] ?? 0), 0)
    rows.push(`| ${target} | ${parser} | ${rps(entry.requestsPerSec.median)} (${rps(entry.requestsPerSec.min)}–${rps(entry.requestsPerSec.max)}) | ${fixed(answers)} | ${fixed(v.med(target, datasetMegabytesPerSec), 1)} | ${fixed(v.med(target, (r) => r.latencyMs?.p50))} | ${fixed(v.med(target, (r) => r.latencyMs?.p99))} | ${fixed(v.med(target, (r) => r.peakRssBytes / MIB))} | ${fixed(v.med(target, (r) => r.memoryConsumedBytes / MIB))} |`)
  }
  return rows.join('\n')
}

/**
 * How the result was measured, from what it recorded.
 * @param {any} result
 */
function settings (result) {
  const { config, machine } = result
  const byDataset = (/** @type {string} */ dataset) => result.runs.filter((/** @type {any} */ r) => r.dataset === dataset)
  const parts = []
  for (const dataset of ['small', 'large']) {
    const runs = byDataset(dataset)
    const info = config.datasets?.[dataset]
    if (!runs.length || !info) continue
    const durations = [...new Set(runs.map((/** @type {any} */ r) => r.duration))].join('/')
    parts.push(`${dataset} ${size(info.bytes)} (${fixed(info.records)} records), ${runs[0].connections} connections, ${durations} s per run`)
  }
  const commit = `${machine.git?.commit?.slice(0, 10) ?? 'unknown'}${machine.git?.dirty ? ' with local changes' : ''}`
  return `${parts.join('; ')}; ${config.rounds} round(s), a fresh runtime per run, every answer checked against the manifest (length and SHA-256); MB/s is connections × dataset size ÷ mean answer time. ${machine.cpuModel}, ${machine.cores} cores; stream-json ${config.streamJsonVersion ?? 'unknown'}, wattpm ${machine.versions?.wattpm ?? 'unknown'}; commit ${commit}; started ${result.startedAt}; \`${result.source}\`.`
}

/**
 * The targets, as measured: one line each, with the figures that decide it.
 * @param {any} data      the default-size result
 * @param {any | null} large  a large-size result
 */
function targets (data, large) {
  const lines = []
  const v = view(data)
  const small = v.paired('small/disk/scan', 'small/disk/promise')
  if (small) lines.push(`- **scan against promise, small dataset from disk** (target ≥ 1.0×): ${x(small.median)}${data.config.rounds > 1 ? ` (per round ${x(small.min)}–${x(small.max)})` : ''}: ${small.median >= 1 ? 'met' : 'missed'}.`)
  const versusStream = ['net-ipc', 'net-tcp', 'net-mesh-port'].map((source) => ({ source, ratio: v.paired(`large/${source}/scan`, `large/${source}/stream`) })).filter((r) => r.ratio)
  if (versusStream.length) {
    const met = versusStream.every((r) => /** @type {any} */ (r.ratio).median >= 1.5)
    lines.push(`- **scan against stream-json, large dataset** (target ≥ 1.5×): ${versusStream.map((r) => `${r.source} ${x(/** @type {any} */ (r.ratio).median)}`).join(', ')}: ${met ? 'met' : 'missed'}.`)
  }
  const meshPort = meshPortTargetLine(meshPortVerdicts(data))
  if (meshPort) lines.push(meshPort)
  for (const [label, result] of /** @type {[string, any][]} */ ([['', data], [large ? ` at ${large.config.largeSize}` : '', large]])) {
    if (!result) continue
    const r = view(result)
    const streaming = r.targets.filter((t) => t.startsWith('large/') && !t.endsWith('/promise'))
    const over = streaming.filter((t) => r.ok(t)).map((t) => ({ t, mib: /** @type {number} */ (r.med(t, (run) => run.memoryConsumedBytes / MIB)) })).filter((o) => o.mib != null)
    const failed = streaming.filter((t) => !r.ok(t))
    const scanOver = over.filter((o) => o.t.endsWith('/scan'))
    if (scanOver.length) {
      const verdict = (/** @type {number} */ mib) => mib <= FLAT_MEMORY_MIB ? 'met' : 'missed'
      lines.push(`- **scan's peak RSS over the runtime's idle RSS, large dataset${label}** (target ≤ ${FLAT_MEMORY_MIB} MiB): ${scanOver.map((o) => `${o.t.split('/')[1]} ${fixed(o.mib)} MiB (${verdict(o.mib)})`).join(', ')}.`)
    }
    if (label && streaming.length) {
      const mbs = streaming.filter((t) => r.ok(t)).map((t) => `${t.split('/').slice(1).join('/')} ${fixed(r.med(t, datasetMegabytesPerSec), 1)} MB/s`)
      lines.push(`- **Every streaming variant completes${label}**: ${failed.length ? `no: ${failed.join(', ')} FAILED` : 'yes'}${mbs.length ? ` (${mbs.join(', ')})` : ''}.`)
      // memory against the dataset's size: the same variant at the default size and at this one
      const atDefault = view(data)
      const growth = over.map((o) => {
        const before = atDefault.ok(o.t) ? atDefault.med(o.t, (run) => run.memoryConsumedBytes / MIB) : null
        return `${o.t.split('/').slice(1).join('/')} ${fixed(before)} → ${fixed(o.mib)}`
      })
      if (growth.length) lines.push(`- **Memory over idle, MiB, ${size(data.config.datasets?.large?.bytes ?? 0)} → ${size(result.config.datasets?.large?.bytes ?? 0)}**: ${growth.join(', ')}.`)
    }
  }
  return lines.join('\n')
}

/**
 * @param {any} parsers  a parser-speed result
 */
function parsersTable (parsers) {
  const { config, machine } = parsers
  const rows = ['| parser | MB/s | best of ' + config.repeat + ', ms |', '|---|---:|---:|']
  for (const p of parsers.parsers) rows.push(`| ${p.name} | ${fixed(p.megabytesPerSec)} | ${fixed(p.bestMs)} |`)
  return `**Parsers on one core**, data in memory in ${config.chunkBytes / 1024} KiB chunks, no HTTP around them (\`npx node bench/data/parser-speed.js\`): the ${config.dataset} dataset, ${size(config.bytes)}, ${fixed(config.records)} records; Node ${machine.node}, ${machine.cpuModel}; started ${parsers.startedAt}; \`${parsers.source}\`.\n\n${rows.join('\n')}\n`
}

/**
 * @param {{ data: any, large?: any, parsers?: any }} results
 */
export function dataBlock ({ data, large, parsers }) {
  const parts = []
  if (parsers) parts.push(parsersTable(parsers))
  const largeSize = (/** @type {any} */ r) => size(r.config.datasets?.large?.bytes ?? 0)
  parts.push(`**${largeSize(data)}** (\`npm run bench:data\`): ${settings(data)}\n\n${variantsTable(data, 'small')}\n\n${variantsTable(data, 'large')}\n`)
  if (large) parts.push(`**${largeSize(large)}** (\`npm run bench:data -- --large-size ${large.config.largeSize}\`; its small-dataset rows are in the file): ${settings(large)}\n\n${variantsTable(large, 'large')}\n`)
  const checked = targets(data, large ?? null)
  if (checked) parts.push(`Targets, from these files:\n\n${checked}\n`)
  return parts.join('\n')
}
