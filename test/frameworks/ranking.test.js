// The ranking and the report: fastest first, ≈ only where rounds overlap,
// failed frameworks shown as FAILED with their reason and never as a number.
import t from 'tap'
import { rankingLine, rankTargets } from '../../bench/frameworks/ranking.js'
import { frameworkReport } from '../../bench/frameworks/report.js'
import { summarize } from '../../bench/lib/results.js'

const spreadOf = (median, min, max) => ({ median, min, max, n: 3 })

t.test('fastest first; ≈ where min–max ranges overlap; failed last', async (t) => {
  const ranking = rankTargets({
    express: { failed: false, rounds: 3, requestsPerSec: spreadOf(10, 9, 11) },
    fastify: { failed: false, rounds: 3, requestsPerSec: spreadOf(30, 29, 31) },
    polka: { failed: false, rounds: 3, requestsPerSec: spreadOf(28, 27, 29.5) },
    restify: { failed: true, rounds: 3, failures: ['3 errors'] }
  })
  t.same(ranking.ranked.map((entry) => entry.target), ['fastify', 'polka', 'express'])
  t.same(ranking.failed, [{ target: 'restify', failures: ['3 errors'] }])
  t.equal(rankingLine(ranking), 'fastify ≈ polka > express; FAILED: restify')
})

t.test('one round never claims a tie', async (t) => {
  const one = (v) => ({ failed: false, rounds: 1, requestsPerSec: { median: v, min: v, max: v, n: 1 } })
  t.equal(rankingLine(rankTargets({ a: one(5), b: one(5), c: one(7) })), 'c > a > b')
  t.equal(rankingLine(rankTargets({ x: { failed: true, failures: ['did not run'] } })), 'FAILED: x')
})

t.test('the report table is sorted and prints no number for a failed framework', async (t) => {
  const run = (target, round, rps, ok = true) => ({
    target,
    profile: 'c200-p1',
    round,
    ok,
    version: '1.0.0',
    connections: 200,
    pipelining: 1,
    failures: ok ? [] : ['12 errors'],
    requestsPerSec: ok ? rps : null,
    latencyMs: ok ? { avg: 1000 / rps, p50: 1, p90: 2, p99: 3, max: 9 } : undefined,
    throughputBytesPerSec: ok ? rps * 150 : undefined,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    headerDifferences: []
  })
  const runs = [run('node-http', 1, 100), run('fastify', 1, 200), run('hapi', 1, 50), run('restify', 1, 0, false),
    run('node-http', 2, 110), run('fastify', 2, 190), run('hapi', 2, 60), run('restify', 2, 80)]
  const result = {
    failed: true,
    startedAt: '2026-01-01T00:00:00.000Z',
    config: { rounds: 2, duration: 10, warmup: 3 },
    machine: { cpuModel: 'cpu', cores: 2, memoryBytes: 2 ** 30, os: 'os', versions: { node: 'v24' }, git: { commit: 'abc', dirty: false } },
    runs,
    summary: summarize(runs, { baseline: 'node-http' })
  }
  const report = frameworkReport(result)
  const ranking = report.sections[0]
  t.match(ranking.text, /fastify > node-http > hapi; FAILED: restify/)
  t.same(ranking.table.rows.map((row) => row[1]), ['fastify', 'node-http', 'hapi', 'restify'])
  t.equal(ranking.table.rows[0][4], '195', 'median req/s of the fastest')
  t.equal(ranking.table.rows[0][5], '190 – 200', 'spread across rounds')
  const failed = ranking.table.rows[3]
  t.equal(failed[3], 'FAILED')
  t.match(failed[4], /12 errors/)
  t.same(failed.slice(5, -1), ['', '', '', ''], 'no number for the failed framework')
  t.match(report.intro, /failed frameworks are reported as FAILED/)
})
