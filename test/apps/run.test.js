// npm run bench:apps in its quick form, end to end: every route of every app
// on every path, all runs ok, the drop-in's counter showing every call over
// http-port on mesh-port (and no drop-in on the others), the writes' table
// checks clean, ratios to ipc paired per round, and a report with a chart per
// app. Then a check made wrong on purpose fails its run and the command.
import t from 'tap'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { APPS, PATHS } from '../../bench/apps/plan.js'

// three apps' runtimes started three times over, on two cores shared with other work
t.setTimeout(900_000)

const exec = promisify(execFile)
const RUN = new URL('../../bench/apps/run.js', import.meta.url).pathname
// No warm-up (0 skips both): the test judges answers and counters, not speed, and
// every answer of the measured second is still checked. One load: the busy one runs the
// same code with more connections, and doubled this file's time.
const QUICK = ['--duration', '1', '--rounds', '1', '--warmup', '0', '--quiet-wait', '0', '--profiles', 'latency']
// The Next.js storefront installs ~400 MB and builds on demand: bench:apps runs it, npm test does not.
const TESTED = Object.keys(APPS).filter((app) => app !== 'nextstore')

async function bench (args) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [RUN, ...QUICK, ...args], { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 })
    return { code: 0, stdout, stderr }
  } catch (err) {
    return { code: err.code, stdout: err.stdout, stderr: err.stderr }
  }
}

t.test('the quick form: every route on every path, verified, the drop-in proven by its counter', async (t) => {
  const dir = t.testdir()
  const out = join(dir, 'apps.json')
  const { code, stdout, stderr } = await bench(['--apps', TESTED.join(','), '--out', out, '--report', join(dir, 'report')])
  t.equal(code, 0, `exit 0\n${stdout}\n${stderr}`)
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.equal(result.suite, 'apps')
  t.equal(result.complete, true)
  t.equal(result.failed, false)
  const routes = TESTED.flatMap((app) => APPS[app].routes.map((route) => `${app}/${route}`))
  t.same(Object.keys(result.summary).sort(), [...routes].sort(), 'every route measured')
  for (const route of routes) {
    t.same(Object.keys(result.summary[route]).sort(), [...PATHS].sort(), `${route}: every path`)
    t.ok(result.summary[route]['mesh-port'].ratioTo_ipc?.median > 0, `${route}: mesh-port paired with ipc`)
  }
  for (const run of result.runs) {
    const name = `${run.profile} on ${run.target}`
    t.equal(run.ok, true, `${name}: ${run.failures.join('; ')}`)
    t.ok(run.status['2xx'] > 0 && run.mismatches === 0, `${name}: ${run.status['2xx']} answers, all checked right`)
    t.ok(run.resources?.cpuMicrosPerRequest > 0 && run.resources?.rssAfterBytes > 0, `${name}: CPU per request and RSS recorded`)
    const counts = Object.values(run.meshPort ?? {})
    const httpPort = counts.reduce((sum, c) => sum + Object.values(c.httpPort).reduce((a, b) => a + b, 0), 0)
    const mesh = counts.reduce((sum, c) => sum + c.mesh, 0)
    if (run.target === 'mesh-port') t.ok(httpPort >= run.status['2xx'] && mesh === 0, `${name}: ${httpPort} calls over http-port, ${mesh} over the mesh`)
    else t.equal(httpPort + mesh, 0, `${name}: no drop-in`)
    if (run.app === 'orders') t.match(run.writes, { lost: 0, duplicated: 0, unknown: 0, wrongTotal: 0 }, `${name}: the table holds every acknowledged order once`)
    if (run.app === 'orders') t.ok(run.writes.acknowledged >= run.status['2xx'], `${name}: every 2xx answer acknowledged an order`)
  }
  const md = readFileSync(join(dir, 'report.md'), 'utf8')
  for (const app of TESTED) t.match(md, new RegExp(`## ${app}: `), `a section for ${app}`)
  t.match(md, /## Targets/)
  t.equal((readFileSync(join(dir, 'report.html'), 'utf8').match(/<svg/g) ?? []).length, TESTED.length, 'a chart per app')
})

t.test('a wrong check fails its run, never a number, and the command exits 1', async (t) => {
  const dir = t.testdir()
  const out = join(dir, 'apps.json')
  // One path: the check is the suite's, not a path's (the first case ran them all).
  const { code, stdout } = await bench(['--apps', 'catalog', '--routes', 'catalog/item', '--paths', 'mesh-port', '--wrong-expectation', 'catalog/item', '--out', out, '--report', 'off'])
  t.equal(code, 1)
  t.match(stdout, /FAILED: 1 failed run\(s\) of 1/)
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.equal(result.failed, true)
  for (const run of result.runs) {
    t.equal(run.ok, false)
    t.match(run.failures.join('; '), /body mismatches/)
  }
  t.equal(result.summary['catalog/item']['mesh-port'].failed, true, 'the summary holds no figure for it')
  t.notOk('requestsPerSec' in result.summary['catalog/item']['mesh-port'])
})
