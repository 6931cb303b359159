// The whole command in quick mode: every strategy starts, answers correctly
// under load and stops cleanly; a worker dying mid-run is reported as FAILED.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { spawnTracked } from '../../bench/lib/processes.js'
import { isAlive } from '../../bench/scale/alive.js'
import { HOME_PREFIX } from '../../bench/scale/pm2.js'
import { establishedConnections, until } from '../helpers/wait.js'

const base = mkdtempSync(join(tmpdir(), 'wsr-')) // short: PM2 puts unix sockets in its home
t.teardown(() => rmSync(base, { recursive: true, force: true }))
const RUN = new URL('../../bench/scale/run.js', import.meta.url).pathname
const QUICK = ['--duration', '1', '--warmup', '0', '--wrk', 'off', '--connections', '10']

function runScale (args) {
  return spawnTracked(process.execPath, [RUN, ...args], { env: { ...process.env, TMPDIR: base } })
}

/** Direct children of `pid`, from /proc. */
function childrenOf (pid) {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number).filter((child) => {
    try {
      const stat = readFileSync(`/proc/${child}/stat`, 'utf8')
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid
    } catch {
      return false
    }
  })
}

t.test('every strategy at scale 2 (node at 1): verified, measured, stopped clean', async (t) => {
  const out = join(base, 'quick.json')
  const run = runScale([...QUICK, '--scale', '2', '--out', out, '--report', join(base, 'report')])
  const { code } = await run.exited
  t.equal(code, 0, 'exit 0')
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.match(result, { schema: 'watt-transport-lab/result@1', suite: 'scale', complete: true, failed: false })
  t.same(result.runs.map((r) => `${r.target}@${r.scale}`), ['node@1', 'cluster@2', 'reuseport@2', 'pm2@2', 'watt@2'])
  for (const r of result.runs) {
    const label = `${r.target}@${r.scale}`
    t.match(r, { ok: true, failures: [], round: 1, profile: `scale-${r.scale}`, errors: 0, timeouts: 0, mismatches: 0, status: { non2xx: 0 }, stop: { clean: true, forcedPids: [] } }, label)
    t.ok(r.totalRequests > 0 && r.requestsPerSec > 0, `${label} measured`)
    t.equal(r.autocannonWorkers, r.scale > 1 ? r.scale : 0, `${label} autocannon workers`)
    t.equal(new Set(r.workerIds).size, r.scale, `${label}: ${r.scale} distinct worker(s) answered`)
    t.same(r.workerIds.map((id) => Number(id.split(':')[0])).filter(isAlive), [], `${label}: its processes are gone`)
  }
  t.equal(new Set(result.runs.find((r) => r.target === 'watt').workerIds.map((id) => id.split(':')[0])).size, 1, 'watt: two threads in one process')
  t.equal(new Set(result.runs.find((r) => r.target === 'reuseport').workerIds.map((id) => id.split(':')[0])).size, 2, 'reuseport: two processes')
  t.match(result.crossCheck, { skipped: /--wrk off/ })
  t.same(readdirSync(base).filter((name) => name.startsWith(HOME_PREFIX)), [], 'no PM2 home left')

  const stdout = run.output()
  t.match(stdout, /strategy.*scale.*workers.*req\/s avg.*req\/s stdev.*req\/s min.*p99 ms.*MB\/s.*total requests.*loadgen CPU %/, 'the originals\' table')
  const md = readFileSync(join(base, 'report.md'), 'utf8')
  t.match(md, new RegExp(`${result.machine.cores} cores`), 'the report says how many cores')
  t.match(md, /shares .*cores with the servers/)
  for (const target of ['node', 'cluster', 'reuseport', 'pm2', 'watt']) t.match(md, new RegExp(`\\| ${target} \\| \\d \\| \\d \\| [\\d,]+ \\|`), `${target} row`)
  t.match(readFileSync(join(base, 'report.html'), 'utf8'), /<svg/, 'a chart')
})

t.test('a cluster worker killed mid-run: FAILED with the reason, exit 1, nothing left', async (t) => {
  const out = join(base, 'failed.json')
  // 4 s: the kill follows the load's first connections within a poll (50 ms); the rest is margin
  const run = runScale(['--targets', 'cluster', '--scale', '2', '--duration', '4', '--warmup', '0', '--wrk', 'off', '--connections', '10', '--out', out])
  let workers = []
  const deadline = Date.now() + 120_000
  while (workers.length < 2 && Date.now() < deadline) {
    await sleep(100)
    const [primary] = childrenOf(run.child.pid)
    workers = primary ? childrenOf(primary) : []
  }
  t.equal(workers.length, 2, 'found the two workers')
  // into the measured load (no warm-up): the bench holds its 10 load connections (readiness checks use one or two)
  await until(() => establishedConnections(run.child.pid) >= 10, { timeoutMs: 120_000, what: 'the load to start' })
  process.kill(workers[0], 'SIGKILL')
  const { code } = await run.exited
  t.equal(code, 1, 'exit 1')
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.match(result, { failed: true, summary: { 'scale-2': { cluster: { failed: true } } } })
  const [r] = result.runs
  t.equal(r.ok, false)
  t.match(r.failures.join('; '), /errors|process \d+ exited during the run/, r.failures.join('; '))
  t.match(run.output(), /cluster\s*│\s*2\s*│\s*–\s*│\s*FAILED/, 'the table says FAILED, not a number')
  t.same([run.child.pid, ...workers].filter(isAlive), [], 'primary and workers are gone')
})
