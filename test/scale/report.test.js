// The tables never show a number for a failed run, and ratios pair each run
// with the single process measured in the same round.
import t from 'tap'
import { ratiosToNode, scaleReport, scaleTable, TABLE_HEADERS, wrkTable } from '../../bench/scale/report.js'

const okRun = (target, scale, round, rps) => ({
  target,
  scale,
  round,
  profile: `scale-${scale}`,
  ok: true,
  failures: [],
  requestsPerSec: rps,
  requestsPerSecStats: { avg: rps, stdev: 1, min: rps - 1, max: rps + 1 },
  latencyMs: { avg: 1, p50: 1, p90: 2, p99: 3, max: 4 },
  throughputBytesPerSec: 2e6,
  totalRequests: rps * 5,
  workersSeen: scale,
  loadgen: { cpuPercent: 50 },
  stop: { clean: true, forcedPids: [] }
})
const failedRun = { ...okRun('watt', 2, 1, 999), ok: false, failures: ['3 errors'] }
const wrkOk = { ok: true, failures: [], requestsPerSec: 5000, transferPerSec: '1MB', totalRequests: 50000, latencyMs: { avg: 2, p50: 1, p90: 3, p99: 250, max: 900 } }
const result = {
  failed: true,
  startedAt: 'now',
  machine: { cpuModel: 'cpu', cores: 2, memoryBytes: 2 ** 32, os: 'os', node: 'v24', versions: {}, git: { commit: null } },
  config: { connections: 100, duration: 5, warmup: 0, rounds: 2, wrkThreads: 4, wrkConnections: 1000, wrkDuration: 10, pm2Version: '7.0.4' },
  crossCheck: { tool: 'wrk', note: 'wrk', failedRuns: 1 },
  runs: [
    { ...okRun('node', 1, 1, 100), wrk: wrkOk },
    { ...okRun('cluster', 2, 1, 150), wrk: { ...wrkOk, ok: false, failures: ['7 timeouts'] } },
    failedRun,
    okRun('node', 1, 2, 200),
    okRun('cluster', 2, 2, 500)
  ]
}

t.test('ratios to node are paired by round, medians across rounds', async (t) => {
  const ratios = ratiosToNode(result.runs)
  t.same(ratios['cluster@2'], { median: 2, min: 1.5, max: 2.5, n: 2 })
  t.notOk('watt@2' in ratios, 'no ratio for a failed strategy')
})

t.test('a failed strategy shows FAILED and why, never a number', async (t) => {
  const { headers, rows } = scaleTable(result)
  t.same(headers, TABLE_HEADERS)
  const watt = rows.find((row) => row[0] === 'watt')
  t.same(watt.slice(0, 5), ['watt', 2, '–', 'FAILED', '3 errors'])
  t.notOk(watt.some((cell) => String(cell).includes('999')), 'its req/s is not shown')
  t.equal(watt.length, headers.length)
  const cluster = rows.find((row) => row[0] === 'cluster')
  t.equal(cluster[3], '325', 'median req/s of the two rounds')
  t.equal(cluster[6], '2.00×')
})

t.test('a failed wrk run shows FAILED, not its numbers', async (t) => {
  const { rows } = wrkTable(result)
  t.same(rows.map((row) => [row[0], row[3], row.at(-1)]), [['node', '5,000', 'ok'], ['cluster', 'FAILED', 'FAILED: 7 timeouts']])
  const report = scaleReport(result)
  t.match(report.intro, /contains failed runs/)
  t.match(report.intro, /2 cores/)
})
