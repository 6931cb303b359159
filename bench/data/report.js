// @ts-check
// Turns a data result into the console memory table and the report sections.
import Table from 'cli-table3'
import { everyRunSection, failedBanner, fmt, machineLine, medianOf as median, mib, num } from '../lib/format.js'
import { barChart } from '../lib/report.js'
import { recordedParser } from './parsers.js'
import { isRefused, variantsChart } from './report-chart.js'
import { meshPortTargetLine, meshPortVerdicts } from './mesh-port-target.js'

/** Requests per second: decimals where they matter (the large dataset answers a few per second at most). @param {number | null | undefined} n */
export function rps (n) {
  return n == null ? '–' : n < 100 ? n.toFixed(2) : fmt(n)
}

/**
 * One row per target: numbers from ok runs, FAILED with the reasons otherwise.
 * @param {any} result
 */
function rowsByTarget (result) {
  const rows = []
  for (const [profile, targets] of Object.entries(result.summary)) {
    for (const [target, entry] of Object.entries(/** @type {Record<string, any>} */ (targets))) {
      const mine = result.runs.filter((/** @type {any} */ r) => r.profile === profile && r.target === target && r.ok)
      rows.push({ profile, target, entry, mine, dataset: target.split('/')[0] })
    }
  }
  return rows
}

const PARSERS_TEXT = 'Each mode is named by its parser: **stream** parses with stream-json (a tokenizer written in JavaScript; the generic-parser row), **scan** streams too but cuts the bytes at record boundaries with a byte-level scanner and parses each chunk\'s records with the native `JSON.parse` (every record is parsed and validated), **promise** reads the whole dataset and parses it with one `JSON.parse`. stream vs scan is the cost of the parser; scan vs promise is the cost of streaming. REFUSED (507) is by design: a buffered answer that cannot fit the heap (or one V8 string) is refused instead of crashing the worker; it is not a number.'

/** @param {any[]} runs */
function durationsOf (runs) {
  const unique = [...new Set(runs.map((r) => r.duration))]
  return unique.length ? unique.join('/') : '?'
}

/**
 * A variant refused by design (507) says so; anything else failed.
 * @param {any} entry
 */
function failedLabel (entry) {
  return isRefused(entry) ? 'REFUSED (507)' : 'FAILED'
}

/**
 * The console table printed after the summary: memory beside throughput.
 * @param {any} result
 */
export function memoryTable (result) {
  const table = new Table({ head: ['target', 'parser', 'req/s', 'dataset MB/s', 'p99 ms', 'errors', 'timeouts', 'peak RSS MiB', 'consumed MiB'], style: { head: [], border: [] } })
  for (const { target, entry, mine } of rowsByTarget(result)) {
    const parser = recordedParser(target.split('/')[2], result.config)
    if (entry.failed) {
      table.push([target, parser, failedLabel(entry), entry.failures.join('; ').slice(0, 70), '', '', '', '', ''])
      continue
    }
    table.push([target, parser, rps(entry.requestsPerSec.median), num(median(mine, (r) => r.datasetMBPerSec)), num(median(mine, (r) => r.latencyMs.p99), 0),
      fmt(median(mine, (r) => r.errors)), fmt(median(mine, (r) => r.timeouts)), mib(median(mine, (r) => r.peakRssBytes)), mib(median(mine, (r) => r.memoryConsumedBytes))])
  }
  return table.toString()
}

/**
 * @param {any} result
 * @returns {import('../lib/report.js').Report}
 */
export function dataReport (result) {
  const { config, runs } = result
  const rows = rowsByTarget(result)
  const sections = []
  for (const dataset of ['small', 'large']) {
    const mine = rows.filter((row) => row.dataset === dataset)
    if (mine.length === 0) continue
    const info = config.datasets?.[dataset]
    const first = runs.find((/** @type {any} */ r) => r.dataset === dataset)
    const ok = mine.filter((row) => !row.entry.failed)
    const targets = ok.map((row) => row.target)
    sections.push({
      title: `The ${dataset} dataset (${info ? `${(info.bytes / 1e6).toFixed(1)} MB, ${info.records.toLocaleString('en-US')} records` : 'size unknown'})`,
      text: `${first?.connections ?? '?'} connections, ${durationsOf(runs.filter((/** @type {any} */ r) => r.dataset === dataset))} s per run${first?.warmup ? ` after ${first.warmup} s warm-up` : ''}, ids rotating so every request filters for another id; every response checked against the dataset's manifest (length and SHA-256). Medians across ${config.rounds} round(s). "Dataset MB/s" is req/s × dataset size: how fast the variant gets through the data. Peak RSS is the whole serving process (the Watt runtime with its data-api and data-source threads) during the measured run${config.runtime === 'per-run' ? ', each run in a fresh runtime; "consumed" is peak minus the runtime\'s RSS when idle before the run.' : ', in one runtime shared by every run: memory carries over from variant to variant, so no "consumed" figure.'}\n\n${PARSERS_TEXT}`,
      table: {
        headers: ['variant', 'parser', 'req/s', 'min – max', 'dataset MB/s', 'avg ms', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'timeouts', 'peak RSS MiB', 'consumed MiB', 'loadgen CPU %'],
        rows: mine.map(({ target, entry, mine: ok }) => entry.failed
          ? [target, recordedParser(target.split('/')[2], config), failedLabel(entry), entry.failures.join('; '), '', '', '', '', '', '', '', '', '', '']
          : [target, recordedParser(target.split('/')[2], config), rps(entry.requestsPerSec.median), `${rps(entry.requestsPerSec.min)} – ${rps(entry.requestsPerSec.max)}`,
              num(median(ok, (r) => r.datasetMBPerSec)), num(median(ok, (r) => r.latencyMs.avg), 0), num(median(ok, (r) => r.latencyMs.p50), 0),
              num(median(ok, (r) => r.latencyMs.p99), 0), num(median(ok, (r) => r.latencyMs.max), 0), fmt(median(ok, (r) => r.errors)),
              fmt(median(ok, (r) => r.timeouts)), mib(median(ok, (r) => r.peakRssBytes)), mib(median(ok, (r) => r.memoryConsumedBytes)),
              num(median(ok, (r) => r.loadgen?.cpuPercent), 0)])
      },
      charts: targets.length === 0
        ? []
        : [
            variantsChart({ dataset, rows: mine, median, streamJsonVersion: config.streamJsonVersion }),
            barChart({ title: `Requests/s (${dataset})`, categories: targets, series: [{ name: 'median req/s', values: ok.map((row) => row.entry.requestsPerSec.median) }], unit: 'req/s' }),
            barChart({
              title: `Latency, ms (${dataset})`,
              categories: targets,
              series: ['p50', 'p99'].map((p) => ({ name: p, values: ok.map((row) => median(row.mine, (r) => r.latencyMs[p])) })),
              unit: 'ms'
            }),
            barChart({
              title: `Memory of the serving process, MiB (${dataset})`,
              categories: targets,
              series: [
                { name: 'idle before the run', values: ok.map((row) => median(row.mine, (r) => r.rssIdleBytes / 1048576)) },
                { name: 'peak during the run', values: ok.map((row) => median(row.mine, (r) => r.peakRssBytes / 1048576)) }
              ],
              unit: 'MiB'
            })
          ]
    })
  }

  const meshPort = meshPortTargetLine(meshPortVerdicts(result))
  if (meshPort) {
    sections.push({
      title: 'The mesh source over the mesh-port drop-in',
      text: `net-mesh-port is net-ipc's request unchanged (http://data-source.plt.local), made in a runtime whose config adds the @watt-lab/channel/mesh-port drop-in (bench/data/watt.mesh-port.json), which carries it over http-port to the data-source's own http.Server.\n\n${meshPort}`
    })
  }

  const wrk = result.crossCheck
  if (wrk) {
    sections.push({
      title: 'Cross-check with wrk',
      text: wrk.skipped ?? `${wrk.note}.`,
      table: wrk.skipped
        ? undefined
        : {
            headers: ['variant', 'connections', 'wrk req/s', 'wrk p50 ms', 'wrk p99 ms', 'status'],
            rows: wrk.runs.map((/** @type {any} */ w) => [w.target, w.connections, rps(w.requestsPerSec), num(w.latencyMs?.p50, 2), num(w.latencyMs?.p99, 2), w.ok ? 'ok' : `FAILED: ${w.failures.join('; ')}`])
          }
    })
  }

  sections.push(everyRunSection(runs, {
    targetHeader: 'variant',
    extra: [{ header: 'connections', cell: (r) => r.connections }, { header: 'idle RSS MiB', cell: (r) => mib(r.rssIdleBytes) }, { header: 'peak RSS MiB', cell: (r) => mib(r.peakRssBytes) }]
  }))

  return {
    title: 'Streaming vs buffered JSON, from disk and over the network (the mesh, loopback TCP and the mesh-port drop-in)',
    intro: `${failedBanner(result, 'variants')}${machineLine(result, ['wattpm', 'undici', 'fastify', 'autocannon'], { 'stream-json': config.streamJsonVersion })} Datasets generated with seed ${config.seed}. The load generator runs on the same machine and shares its cores with the runtime.`,
    sections
  }
}
